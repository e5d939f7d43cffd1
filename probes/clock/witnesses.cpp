#include "probes/clock/witnesses.hpp"

#include "probes/clock/bounded_command.hpp"

namespace ga::clock {
namespace {

// Runs a tool and hands its output to a parser; failures become one note. Returns whether
// the tool gave parseable output.
template <typename Parse>
bool ask(const std::vector<std::string>& argv, double timeout, std::vector<std::string>& notes, Parse&& parse) {
  auto r = run_bounded(argv, timeout);
  std::string what;
  for (const auto& a : argv) what += (what.empty() ? "" : " ") + a;
  if (!r.found) return false;  // absent tools are normal: say nothing per tool, the daemon field says "none found"
  if (!r.problem.empty()) {
    notes.push_back("`" + what + "` unusable: " + r.problem);
    return false;
  }
  try {
    parse(r.out);
    return true;
  } catch (const std::exception& e) {
    notes.push_back("`" + what + "` output not understood: " + e.what());
    return false;
  }
}

}  // namespace

HostTimeView collect_host_time_view(double timeout) {
  HostTimeView v;
  auto& w = v.witnesses;
  w.kernel = read_kernel_clock(w.kernel_error);
  // -n: no DNS lookups, which could block where the resolver is unreachable.
  std::vector<std::string> chrony_notes;
  const bool chrony = ask({"chronyc", "-n", "tracking"}, timeout, chrony_notes,
                          [&](const std::string& out) { w.chrony = parse_chronyc_tracking(out); });
  if (!chrony_notes.empty()) w.chrony_error = chrony_notes.front();
  if (chrony) {
    ask({"chronyc", "-n", "sources"}, timeout, w.notes, [&](const std::string& out) {
      auto s = parse_chronyc_sources(out);
      v.chrony_sources = static_cast<int>(s.size());
      if (auto* sel = selected_source(s)) v.chrony_selected = *sel;
    });
  }
  // `timedatectl show` (systemd >= 239) is machine-readable; older ones only have the status page.
  std::vector<std::string> show_notes;
  const bool show = ask({"timedatectl", "show"}, timeout, show_notes,
                        [&](const std::string& out) { w.timedatectl_show = parse_timedatectl_show(out); });
  std::vector<std::string> status_notes;
  const bool status = show ? false
                           : ask({"timedatectl", "status"}, timeout, status_notes,
                                 [&](const std::string& out) { w.timedatectl_status = parse_timedatectl_status(out); });
  // One note for timedatectl, not two: both verbs fail the same way where systemd is not PID 1.
  if (!show && !status) {
    const auto& n = status_notes.empty() ? show_notes : status_notes;
    w.notes.insert(w.notes.end(), n.begin(), n.end());
  }
  if (show || status) {
    // Only systemd-timesyncd answers this; under chrony or ntpd it fails, which is no fault.
    std::vector<std::string> ignored;
    ask({"timedatectl", "timesync-status"}, timeout, ignored,
        [&](const std::string& out) { v.timesync = parse_timesync_status(out); });
  }
  return v;
}

}  // namespace ga::clock
