#include "probes/outcome.hpp"

namespace ga {

const char* to_string(ProbeStatus s) {
  switch (s) {
    case ProbeStatus::ok: return "ok";
    case ProbeStatus::skipped: return "skipped";
    case ProbeStatus::failed: return "failed";
    case ProbeStatus::timeout: return "timeout";
    case ProbeStatus::error: return "error";
  }
  return "failed";
}

std::optional<ProbeStatus> probe_status_from_string(const std::string& s) {
  for (auto st : {ProbeStatus::ok, ProbeStatus::skipped, ProbeStatus::failed, ProbeStatus::timeout,
                  ProbeStatus::error})
    if (s == to_string(st)) return st;
  return std::nullopt;
}

bool settle_library_failures(std::vector<Outcome>& per_rank) {
  bool any = false;
  for (const auto& o : per_rank) {
    if (o.status == ProbeStatus::skipped) continue;
    if (!(o.status == ProbeStatus::failed && o.library)) return false;  // someone loaded it, or failed otherwise
    any = true;
  }
  if (!any) return false;
  for (auto& o : per_rank)
    if (o.status == ProbeStatus::failed && o.library) {
      o.status = ProbeStatus::error;
      o.reason = "on every host, so the run's environment, not a node (check GPUACCEPT_*_LIBRARY and the image): " + o.reason;
    }
  return true;
}

bool settle_waiting_ranks(std::vector<Outcome>& per_rank) {
  bool waited = false, someone_late = false;
  for (const auto& o : per_rank) {
    waited = waited || (o.status == ProbeStatus::ok && o.waited);
    someone_late = someone_late || o.status == ProbeStatus::timeout;
  }
  if (!waited || someone_late) return false;
  for (auto& o : per_rank)
    if (o.status == ProbeStatus::ok && o.waited) {
      o.status = ProbeStatus::timeout;
      o.reason += "; no rank reported itself late, so none is cleared";
    }
  return true;
}

}  // namespace ga
