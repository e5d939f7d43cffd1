// The transport and interface counters taken around a fabric probe (issue 33): the harness
// (app/run_loop.cpp) reads them on each host's first rank before the probe starts and after
// every rank has finished it, and records the deltas as the `net` probe's samples, params
// {during: PROBE}. One rank per host: the counters are the network namespace's, shared by the
// host's ranks. A counter that cannot be read is recorded as not read (net.counters_read 0,
// with why), never as a fault.
#pragma once
#include <optional>
#include <string>

#include "probes/harness/net_counters.hpp"
#include "probes/probe.hpp"

namespace ga::net {

class Watch {
 public:
  explicit Watch(std::string proc_root = "/proc") : proc_root_(std::move(proc_root)) {}
  void begin();
  // Records the deltas since begin() at `host` for the probe `during` into `out`.
  void end(const std::string& host, const std::string& during, SampleSink& out);

 private:
  std::string proc_root_;
  std::optional<Counters> before_;
  std::string why_not_;
};

// Whether the harness takes the counters around this probe: the ones whose traffic crosses
// the fabric between hosts.
bool watched(const std::string& probe);

}  // namespace ga::net
