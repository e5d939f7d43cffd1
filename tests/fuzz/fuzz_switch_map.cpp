// The switch map (probes/harness/topology_conf.cpp parse_switch_file): a Slurm topology.conf or
// a `--switch-map FILE` the operator writes, read by the adaptive pair schedule.
#include <stdexcept>
#include <string>

#include "probes/harness/topology_conf.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  try {
    const auto m = ga::isolation::parse_switch_file(std::string(reinterpret_cast<const char*>(data), size), ga::fuzz::kInputName);
    for (const auto& [host, leaf] : m.leaf_of) (void)m.uplinks(leaf);  // what the schedule asks of it
  } catch (const std::invalid_argument& e) {
    ga::fuzz::require_names_input(e.what());
  }
  return 0;
}
