// A probe's result on one rank. Absent hardware is `skipped` with the reason; present but
// unusable hardware is `failed` (the node's fault); gpuaccept itself breaking (an exception out
// of the probe, a library it loads misbehaving, a bad parameter) is `error`, a tool error that
// is never blamed on the node; `timeout` is set by the watchdog, or by a probe on the rank that
// could not keep its schedule's deadline (p2p's late rank): the run is then incomplete.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ga {

enum class ProbeStatus { ok, skipped, failed, timeout, error };
const char* to_string(ProbeStatus);
std::optional<ProbeStatus> probe_status_from_string(const std::string&);

struct Outcome {
  ProbeStatus status = ProbeStatus::ok;
  std::string reason;
  // Failed because a library the probe loads (libcuda, NCCL, cuBLAS) does not load on this
  // host. Whose fault that is depends on the other hosts, so the harness decides once it has
  // every rank's outcome (settle_library_failures): where others load it, this node's image
  // lacks it, a node fault; where no host does, it is the run's environment (a wrong
  // GPUACCEPT_*_LIBRARY, an image without it), a tool error.
  bool library = false;
  // ok, but cut short waiting for a rank that did not come (p2p's round barrier): fine where
  // that rank reports itself late (timeout), never a pass where none does
  // (settle_waiting_ranks).
  bool waited = false;
  static Outcome ok(std::string why = {}) { return {ProbeStatus::ok, std::move(why)}; }
  static Outcome skipped(std::string why) { return {ProbeStatus::skipped, std::move(why)}; }
  static Outcome failed(std::string why) { return {ProbeStatus::failed, std::move(why)}; }
  static Outcome tool_error(std::string why) { return {ProbeStatus::error, std::move(why)}; }
  static Outcome missing_library(std::string why) { return {ProbeStatus::failed, std::move(why), true}; }
  static Outcome waited_for_late(std::string why) { return {ProbeStatus::ok, std::move(why), false, true}; }
};

// One probe's outcomes, one per rank: when every rank that did not skip failed on a library
// (Outcome::library), each of those becomes a tool error saying so; otherwise they stay node
// faults at their hosts. Returns whether it changed any.
bool settle_library_failures(std::vector<Outcome>& per_rank);
// One probe's outcomes: ranks that waited for a late one (Outcome::waited_for_late) are blamed for
// nothing when some rank timed out (the late one said so, and the run is incomplete); when
// none did, nobody knows who was late, and the waiters become timeouts themselves, so the cut
// is never read as a pass. Returns whether it changed any.
bool settle_waiting_ranks(std::vector<Outcome>& per_rank);

}  // namespace ga
