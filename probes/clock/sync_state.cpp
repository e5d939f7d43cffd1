#include "probes/clock/sync_state.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ga::clock {

SyncVerdict decide_synchronized(const SyncWitnesses& w) {
  SyncVerdict v;
  std::vector<std::string> said;
  bool all_yes = true;
  if (w.kernel) {
    const bool k = w.kernel->synchronized();
    all_yes = all_yes && k;
    said.push_back(k ? "kernel synchronised (maxerror " + std::to_string(w.kernel->maxerror) + " s)" : w.kernel->why_not());
  } else {
    // Without the kernel's word there is no proof; an unreadable clock state is not a pass.
    all_yes = false;
    said.push_back("kernel clock state unreadable: " + w.kernel_error);
  }
  if (w.chrony) {
    v.daemon = "chrony";
    const bool c = w.chrony->synchronized();
    all_yes = all_yes && c;
    said.push_back(c ? "chrony synchronised to " + w.chrony->reference_id +
                           (w.chrony->reference_name.empty() ? "" : " (" + w.chrony->reference_name + ")") +
                           " stratum " + std::to_string(w.chrony->stratum)
                     : "chrony not synchronised (leap status \"" + w.chrony->leap_status + "\", stratum " +
                           std::to_string(w.chrony->stratum) + ")");
  }
  if (!w.chrony && !w.chrony_error.empty()) {
    v.daemon = "chrony";
    all_yes = false;
    said.push_back("chronyc is installed but chrony did not answer: " + w.chrony_error);
  }
  std::optional<bool> td_sync;
  std::string td_ntp;
  if (w.timedatectl_show) {
    td_sync = w.timedatectl_show->ntp_synchronized;
    if (w.timedatectl_show->ntp) td_ntp = *w.timedatectl_show->ntp ? "active" : "inactive";
  } else if (w.timedatectl_status) {
    td_sync = w.timedatectl_status->synchronized;
    td_ntp = w.timedatectl_status->ntp_service;
  }
  if (td_sync) {
    if (v.daemon.empty() && td_ntp == "active") v.daemon = "systemd-timesyncd";
    all_yes = all_yes && *td_sync;
    said.push_back(std::string("timedatectl: clock synchronized ") + (*td_sync ? "yes" : "no") +
                   (td_ntp.empty() ? "" : ", NTP service " + td_ntp));
  }
  if (v.daemon.empty()) v.daemon = "none found";
  for (const auto& n : w.notes) said.push_back(n);
  v.synchronized = all_yes;
  for (std::size_t i = 0; i < said.size(); ++i) v.reason += (i ? "; " : "") + said[i];
  return v;
}

std::string time_zone_from(const char* tz_env, const std::string& localtime_target, const std::string& etc_timezone) {
  if (tz_env && *tz_env) {
    std::string tz = tz_env;
    if (tz[0] == ':') tz.erase(0, 1);
    if (!tz.empty()) return tz;
  }
  if (!localtime_target.empty()) {
    const auto at = localtime_target.find("zoneinfo/");
    return at == std::string::npos ? localtime_target : localtime_target.substr(at + 9);
  }
  std::string t = etc_timezone;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ' || t.back() == '\r')) t.pop_back();
  return t.empty() ? "unknown" : t;
}

std::string host_time_zone(const std::string& root) {
  char buf[4096];
  const std::string lt = root + "/etc/localtime";
  const ssize_t n = ::readlink(lt.c_str(), buf, sizeof buf - 1);
  const std::string target = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  std::ifstream in(root + "/etc/timezone");
  std::stringstream ss;
  ss << in.rdbuf();
  return time_zone_from(std::getenv("TZ"), target, ss.str());
}

}  // namespace ga::clock
