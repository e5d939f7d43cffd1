#include "probes/clock/timesync_parsers.hpp"

#include <cstdlib>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace ga::clock {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// "Key : value" (chronyc) and "Key: value" (timedatectl) lines; the key is trimmed.
std::map<std::string, std::string> key_values(const std::string& text) {
  std::map<std::string, std::string> kv;
  for (const auto& l : lines_of(text)) {
    const auto colon = l.find(':');
    if (colon == std::string::npos) continue;
    kv.emplace(trim(l.substr(0, colon)), trim(l.substr(colon + 1)));
  }
  return kv;
}

std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  return v;
}

// "0.000006523 seconds slow of NTP time" -> -6.523e-6 ; "3.225 ppm slow" -> -3.225
std::optional<double> signed_by_word(const std::string& s) {
  auto v = number(s);
  if (!v) return std::nullopt;
  if (s.find(" slow") != std::string::npos) return -std::abs(*v);
  if (s.find(" fast") != std::string::npos) return std::abs(*v);
  return v;
}

std::optional<bool> yes_no(const std::string& s) {
  if (s == "yes") return true;
  if (s == "no") return false;
  return std::nullopt;
}

std::string need(const std::map<std::string, std::string>& kv, const char* key, const char* tool) {
  auto it = kv.find(key);
  if (it == kv.end()) throw std::runtime_error(std::string(tool) + ": no \"" + key + "\" line in its output");
  return it->second;
}

}  // namespace

std::optional<double> parse_duration(const std::string& text) {
  static const std::regex part(R"(([+-]?[0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|min|h)?)");
  const std::string s = trim(text);
  if (s.empty()) return std::nullopt;
  double total = 0;
  std::size_t pos = 0;
  bool any = false;
  while (pos < s.size()) {
    if (s[pos] == ' ') { ++pos; continue; }
    std::smatch m;
    const std::string rest = s.substr(pos);
    if (!std::regex_search(rest, m, part, std::regex_constants::match_continuous)) return std::nullopt;
    const double v = std::stod(m[1].str());
    const std::string u = m[2].str();
    const double scale = u == "ns" ? 1e-9 : (u == "us" || u == "µs") ? 1e-6 : u == "ms" ? 1e-3 : u == "min" ? 60 : u == "h" ? 3600 : 1;
    if (u.empty() && v != 0 && any) return std::nullopt;  // a bare number after a unit is not a duration
    total += v * scale;
    any = true;
    pos += static_cast<std::size_t>(m.length(0));
  }
  return any ? std::optional<double>(total) : std::nullopt;
}

bool ChronyTracking::synchronized() const {
  return stratum > 0 && reference_id != "00000000" && !reference_id.empty() && leap_status != "Not synchronised";
}

ChronyTracking parse_chronyc_tracking(const std::string& text) {
  const auto kv = key_values(text);
  const char* tool = "chronyc tracking";
  ChronyTracking t;
  const std::string ref = need(kv, "Reference ID", tool);
  t.reference_id = trim(ref.substr(0, ref.find('(')));
  if (auto open = ref.find('('); open != std::string::npos) {
    auto close = ref.find(')', open);
    t.reference_name = ref.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
  }
  const auto stratum = number(need(kv, "Stratum", tool));
  if (!stratum) throw std::runtime_error("chronyc tracking: Stratum is not a number");
  t.stratum = static_cast<int>(*stratum);
  t.leap_status = need(kv, "Leap status", tool);
  if (kv.count("System time")) t.system_offset = signed_by_word(kv.at("System time"));
  if (kv.count("Last offset")) t.last_offset = number(kv.at("Last offset"));
  if (kv.count("RMS offset")) t.rms_offset = number(kv.at("RMS offset"));
  if (kv.count("Frequency")) t.frequency_ppm = signed_by_word(kv.at("Frequency"));
  if (kv.count("Root delay")) t.root_delay = number(kv.at("Root delay"));
  if (kv.count("Root dispersion")) t.root_dispersion = number(kv.at("Root dispersion"));
  return t;
}

std::vector<ChronySource> parse_chronyc_sources(const std::string& text) {
  // MS Name Stratum Poll Reach LastRx Last-sample ; the sample is "OFF[ ADJ] +/- ERR"
  static const std::regex row(
      R"(^([\^=#])([*+\-?x~])\s+(\S+)\s+([0-9]+)\s+(-?[0-9]+)\s+([0-7]+)\s+(\S+)\s+([+-]?[0-9.]+\S*)\[\s*([+-]?[0-9.]+\S*)\]\s+\+/-\s+([0-9.]+\S*)\s*$)");
  std::vector<ChronySource> out;
  bool header = false;
  for (const auto& l : lines_of(text)) {
    if (l.rfind("MS Name", 0) == 0) { header = true; continue; }
    if (l.empty() || l[0] == '=') continue;
    std::smatch m;
    if (!std::regex_match(l, m, row)) {
      if (header) throw std::runtime_error("chronyc sources: cannot read the line \"" + l + "\"");
      continue;
    }
    ChronySource s;
    s.mode = m[1].str()[0];
    s.state = m[2].str()[0];
    s.name = m[3];
    s.stratum = std::stoi(m[4]);
    s.poll = std::stoi(m[5]);
    s.reach = static_cast<int>(std::stol(m[6], nullptr, 8));
    s.offset = parse_duration(m[9]);
    s.error = parse_duration(m[10]);
    out.push_back(std::move(s));
  }
  if (!header) throw std::runtime_error("chronyc sources: no \"MS Name/IP address\" header in its output");
  return out;
}

const ChronySource* selected_source(const std::vector<ChronySource>& sources) {
  for (const auto& s : sources)
    if (s.state == '*') return &s;
  return nullptr;
}

TimedatectlStatus parse_timedatectl_status(const std::string& text) {
  const auto kv = key_values(text);
  TimedatectlStatus t;
  auto get = [&](const char* k) { auto it = kv.find(k); return it == kv.end() ? std::string() : it->second; };
  t.local_time = get("Local time");
  t.universal_time = get("Universal time");
  t.rtc_time = get("RTC time");
  const std::string tz = get("Time zone");
  t.time_zone = trim(tz.substr(0, tz.find(" (")));
  t.synchronized = yes_no(get("System clock synchronized"));
  if (!t.synchronized) t.synchronized = yes_no(get("NTP synchronized"));  // systemd < 239
  t.ntp_service = get("NTP service");
  if (t.ntp_service.empty()) {
    const std::string old = get("Network time on");  // systemd < 239 said yes/no
    if (!old.empty()) t.ntp_service = old == "yes" ? "active" : "inactive";
  }
  t.rtc_in_local_tz = yes_no(get("RTC in local TZ"));
  if (t.time_zone.empty() && !t.synchronized)
    throw std::runtime_error("timedatectl: neither \"Time zone\" nor \"System clock synchronized\" in its output");
  return t;
}

TimedatectlShow parse_timedatectl_show(const std::string& text) {
  TimedatectlShow s;
  for (const auto& l : lines_of(text)) {
    const auto eq = l.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    s.values[l.substr(0, eq)] = trim(l.substr(eq + 1));
  }
  if (s.values.empty()) throw std::runtime_error("timedatectl show: no key=value line in its output");
  auto flag = [&](const char* k) -> std::optional<bool> {
    auto it = s.values.find(k);
    return it == s.values.end() ? std::nullopt : yes_no(it->second);
  };
  if (auto it = s.values.find("Timezone"); it != s.values.end()) s.timezone = it->second;
  s.local_rtc = flag("LocalRTC");
  s.can_ntp = flag("CanNTP");
  s.ntp = flag("NTP");
  s.ntp_synchronized = flag("NTPSynchronized");
  return s;
}

TimesyncStatus parse_timesync_status(const std::string& text) {
  const auto kv = key_values(text);
  TimesyncStatus t;
  t.server = need(kv, "Server", "timedatectl timesync-status");
  auto get = [&](const char* k) { auto it = kv.find(k); return it == kv.end() ? std::string() : it->second; };
  t.leap = get("Leap");
  if (auto v = number(get("Stratum"))) t.stratum = static_cast<int>(*v);
  t.offset = parse_duration(get("Offset"));
  t.delay = parse_duration(get("Delay"));
  const std::string rd = get("Root distance");
  t.root_distance = parse_duration(rd.substr(0, rd.find(" (")));
  const std::string f = get("Frequency");
  if (f.size() > 3 && f.compare(f.size() - 3, 3, "ppm") == 0) t.frequency_ppm = number(f.substr(0, f.size() - 3));
  return t;
}

}  // namespace ga::clock
