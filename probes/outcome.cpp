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

}  // namespace ga
