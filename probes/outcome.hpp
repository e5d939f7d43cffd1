// A probe's result on one rank. Absent hardware is `skipped` with the reason; present but
// unusable hardware is `failed` (the node's fault); gpuaccept itself breaking (an exception out
// of the probe, a library it loads misbehaving, a bad parameter) is `error`, a tool error that
// is never blamed on the node; `timeout` is set by the watchdog.
#pragma once
#include <optional>
#include <string>

namespace ga {

enum class ProbeStatus { ok, skipped, failed, timeout, error };
const char* to_string(ProbeStatus);
std::optional<ProbeStatus> probe_status_from_string(const std::string&);

struct Outcome {
  ProbeStatus status = ProbeStatus::ok;
  std::string reason;
  static Outcome ok(std::string why = {}) { return {ProbeStatus::ok, std::move(why)}; }
  static Outcome skipped(std::string why) { return {ProbeStatus::skipped, std::move(why)}; }
  static Outcome failed(std::string why) { return {ProbeStatus::failed, std::move(why)}; }
  static Outcome tool_error(std::string why) { return {ProbeStatus::error, std::move(why)}; }
};

}  // namespace ga
