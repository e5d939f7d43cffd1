// The rdma probe's factories (the registry uses the first; tests the second, whose hook runs
// between the two reads of the port error counters so a test can make them rise).
#pragma once
#include <functional>
#include <memory>

#include "probes/probe.hpp"

namespace ga {

std::unique_ptr<Probe> make_rdma_probe();
std::unique_ptr<Probe> make_rdma_probe_with_hook(std::function<void()> between_counter_reads);

}  // namespace ga
