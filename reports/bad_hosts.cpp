#include "reports/bad_hosts.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "base/file_io.hpp"
#include "base/natural_order.hpp"
#include "reports/campaign.hpp"
#include "topology/place.hpp"

namespace ga {

namespace {

// Worst first: what the operator does about a host is decided by its worst outcome.
int severity(OutcomeClass o) {
  switch (o) {
    case OutcomeClass::node_fault: return 3;
    case OutcomeClass::tool_error: return 2;
    case OutcomeClass::inconclusive: return 1;
    case OutcomeClass::none: return 0;
  }
  return 0;
}

// One line of a TSV field: no tab, no newline.
std::string field(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) out.push_back(std::move(cur)), cur.clear();
    else cur += c;
  }
  out.push_back(std::move(cur));
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace

OutcomeClass outcome_from_words(const std::string& w) {
  if (w == "node fault") return OutcomeClass::node_fault;
  if (w == "tool error") return OutcomeClass::tool_error;
  if (w == "inconclusive") return OutcomeClass::inconclusive;
  return OutcomeClass::none;
}

const char* outcome_words(OutcomeClass o) {
  switch (o) {
    case OutcomeClass::node_fault: return "node fault";
    case OutcomeClass::tool_error: return "tool error";
    case OutcomeClass::inconclusive: return "inconclusive";
    case OutcomeClass::none: return "pass";
  }
  return "pass";
}

BadHosts bad_hosts(const Report& r) {
  BadHosts out;
  const nlohmann::json& run = r.run;
  if (run.contains("slurm") && run["slurm"].is_object() && run["slurm"].contains("job_id"))
    out.run_id = "slurm job " + run["slurm"]["job_id"].get<std::string>();
  else if (run.contains("started") && run["started"].is_string())
    out.run_id = run["started"].get<std::string>();
  else
    out.run_id = "unknown";
  const Judgement& j = *r.judgement;
  out.overall = j.summary.overall;

  std::set<std::string> judged;
  for (const auto& s : r.hosts) judged.insert(s.host);
  struct Acc {
    OutcomeClass outcome = OutcomeClass::none;
    std::vector<std::string> criteria;
    std::string evidence;
    std::vector<std::string> actions;
    std::vector<std::string> failed_at;
    bool cut = false;
  };
  std::map<std::string, Acc> by_host;
  auto note = [&](const std::string& host, OutcomeClass o, const std::string& criterion, const std::string& place,
                  const std::string& evidence, const Params* params) {
    judged.insert(host);
    Acc& a = by_host[host];
    if (severity(o) > severity(a.outcome)) a = Acc{o, {}, evidence, {}, {}, false};  // a worse outcome starts over
    if (severity(o) < severity(a.outcome)) return;
    if (std::find(a.criteria.begin(), a.criteria.end(), criterion) == a.criteria.end()) a.criteria.push_back(criterion);
    if (!place.empty()) {
      const std::string at = criterion + "@" + place;
      if (std::find(a.failed_at.begin(), a.failed_at.end(), at) == a.failed_at.end()) {
        if (a.failed_at.size() < kMaxFailedAt) a.failed_at.push_back(at);
        else a.cut = true;
      }
    }
    if (params && params->contains("actions") && params->at("actions").is_array())
      for (const auto& act : params->at("actions"))
        if (act.is_object() && act.contains("action") && act["action"].is_string()) {
          const auto word = act["action"].get<std::string>();
          if (std::find(a.actions.begin(), a.actions.end(), word) == a.actions.end()) a.actions.push_back(word);
        }
  };
  for (const auto& v : j.verdicts) {
    // A tool error is gpuaccept's or its setup's, never a host's: it is in report.json,
    // report.md and the summary, never here, where an operator drains from (issue 32).
    if (v.severity != Severity::error || v.outcome() == OutcomeClass::none || v.outcome() == OutcomeClass::tool_error)
      continue;
    for (const auto& h : place::hosts_of(v.place))
      note(h, v.outcome(), v.criterion, v.place, v.criterion + " at " + v.place + ": " + v.reason, &v.params);
  }
  if (j.incomplete)
    for (const auto& m : j.incomplete->missing_ranks)
      if (!m.host.empty())
        note(m.host, OutcomeClass::inconclusive, "run.complete", m.host,
             "rank " + std::to_string(m.rank) + " lost during " + j.incomplete->probe + ": " + j.incomplete->reason,
             nullptr);

  out.judged.assign(judged.begin(), judged.end());
  std::sort(out.judged.begin(), out.judged.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });
  for (const auto& h : out.judged) {
    auto it = by_host.find(h);
    if (it == by_host.end()) continue;
    out.hosts.push_back({h, it->second.outcome, it->second.criteria, it->second.evidence, it->second.actions,
                         it->second.failed_at, it->second.cut});
  }
  return out;
}

std::string bad_hosts_text(const BadHosts& b) {
  std::string s = "# gpuaccept bad hosts: one line per host that did not pass (" + std::to_string(b.hosts.size()) +
                  " of " + std::to_string(b.judged.size()) + ")\n";
  s += "# run: " + field(b.run_id) + "\n";
  s += "# overall: " + field(b.overall) + "\n";
  s += "# judged: " + join(b.judged, ",") + "\n";
  s += "# columns: host\toutcome\tcriteria\tevidence\tactions\tfailed_at\n";
  for (const auto& h : b.hosts) {
    std::string at = join(h.failed_at, ",");
    if (h.failed_at_cut) at += ",+more";
    s += field(h.host) + "\t" + outcome_words(h.outcome) + "\t" + field(join(h.criteria, ",")) + "\t" +
         field(h.evidence) + "\t" + field(join(h.actions, ",")) + "\t" + field(at) + "\n";
  }
  return s;
}

BadHosts parse_bad_hosts(const std::string& text, const std::string& name) {
  BadHosts b;
  std::istringstream in(text);
  std::string line;
  bool header = false;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    auto bad = [&](const std::string& why) { return std::runtime_error(name + ":" + std::to_string(n) + ": " + why); };
    if (line[0] == '#') {
      auto value = [&](const char* key) -> std::optional<std::string> {
        const std::string k = std::string("# ") + key + ": ";
        if (line.rfind(k, 0) != 0) return std::nullopt;
        return line.substr(k.size());
      };
      if (line.rfind("# gpuaccept bad hosts", 0) == 0) header = true;
      else if (auto v = value("run")) b.run_id = *v;
      else if (auto v = value("overall")) b.overall = *v;
      else if (auto v = value("judged")) b.judged = v->empty() ? std::vector<std::string>{} : split(*v, ',');
      continue;
    }
    if (!header) throw bad("not a gpuaccept bad-hosts file (no \"# gpuaccept bad hosts\" line first)");
    const auto f = split(line, '\t');
    if (f.size() < 4 || f.size() > 6)
      throw bad("expected 6 tab-separated fields (host, outcome, criteria, evidence, actions, failed_at), found " +
                std::to_string(f.size()));
    BadHost h;
    h.line = n;
    h.host = f[0];
    h.outcome = outcome_from_words(f[1]);
    if (h.outcome == OutcomeClass::none) throw bad("unknown outcome \"" + f[1] + "\" (node fault, tool error or inconclusive)");
    h.criteria = f[2].empty() ? std::vector<std::string>{} : split(f[2], ',');
    h.evidence = f[3];
    if (f.size() >= 5 && !f[4].empty()) h.actions = split(f[4], ',');
    if (f.size() == 6 && !f[5].empty())
      for (auto& at : split(f[5], ',')) {
        if (at == "+more") h.failed_at_cut = true;
        else h.failed_at.push_back(std::move(at));
      }
    b.hosts.push_back(std::move(h));
  }
  if (!header) throw std::runtime_error(name + ": not a gpuaccept bad-hosts file (empty)");
  return b;
}

bool plain_node_name(const std::string& name) {
  return !name.empty() && name.size() <= 255 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.';
  });
}

std::vector<std::string> run_hosts(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> hosts;
  if (const auto j = read_campaign_json(dir)) {
    for (const auto& h : j->value("hosts", nlohmann::json::array()))
      if (h.is_object() && h.contains("host") && h["host"].is_string()) hosts.push_back(h["host"].get<std::string>());
    if (hosts.empty()) throw std::runtime_error((fs::path(dir) / "campaign.json").string() + ": no hosts");
    return hosts;
  }
  // The journal's first record is the run_start: one line, read without the rest of the file.
  // A directory `gpuaccept judge --out` wrote has no journal: its report.json's run.hosts then,
  // parsed with everything else dropped as it goes (a 4096-host report is never held).
  const auto journal = fs::path(dir) / "samples.jsonl";
  if (!fs::exists(journal)) {
    const auto report = fs::path(dir) / "report.json";
    std::ifstream in(report);
    if (!in) throw std::runtime_error("cannot read " + journal.string() + " or " + report.string() + ": the run's hosts are in them");
    std::string top;
    auto keep = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& j) -> bool {
      if (ev != nlohmann::json::parse_event_t::key) return true;
      if (depth == 1) return (top = j.get<std::string>()) == "run";
      if (depth == 2 && top == "run") return j.get<std::string>() == "hosts";
      return true;
    };
    try {
      const auto r = nlohmann::json::parse(in, keep);
      if (r.contains("run") && r["run"].contains("hosts") && r["run"]["hosts"].is_array())
        for (const auto& h : r["run"]["hosts"])
          if (h.is_string()) hosts.push_back(h.get<std::string>());
    } catch (const std::exception& e) {
      throw std::runtime_error(report.string() + ": " + e.what());
    }
    if (hosts.empty()) throw std::runtime_error(report.string() + ": run.hosts names no host");
    return hosts;
  }
  std::ifstream in(journal);
  std::string line;
  if (!in || !std::getline(in, line))
    throw std::runtime_error("cannot read " + journal.string() + ": the run's hosts are in its run_start record");
  try {
    const auto r = nlohmann::json::parse(line);
    if (r.value("type", "") != "run_start") throw std::runtime_error("line 1 is not the run_start record");
    for (const auto& h : r.value("hosts", nlohmann::json::array()))
      if (h.is_string()) hosts.push_back(h.get<std::string>());
  } catch (const std::exception& e) {
    throw std::runtime_error(journal.string() + ":1: " + e.what());
  }
  if (hosts.empty()) throw std::runtime_error(journal.string() + ":1: the run_start record names no host");
  return hosts;
}

BadHosts read_bad_hosts(const std::string& dir) {
  const auto path = (std::filesystem::path(dir) / "bad-hosts.txt").string();
  if (!std::filesystem::exists(path))
    throw std::runtime_error("no " + path + " (a run writes it; for an older run directory, `gpuaccept judge " + dir +
                             "` writes it)");
  const auto bytes = base::read_whole_file(path);
  return parse_bad_hosts(std::string(bytes.begin(), bytes.end()), path);
}

}  // namespace ga
