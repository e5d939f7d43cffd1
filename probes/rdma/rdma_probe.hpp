// The rdma probe's factories (the registry uses the first; tests the second, whose hook runs
// at the run's end just before the last reading of the port error counters, so a test can
// make them rise between the run's two readings).
#pragma once
#include <functional>
#include <memory>

#include "probes/probe.hpp"

namespace ga {

std::unique_ptr<Probe> make_rdma_probe();
std::unique_ptr<Probe> make_rdma_probe_with_hook(std::function<void()> before_end_read);

}  // namespace ga
