// One body for the three topology targets: a loader of recorded topology files (`topo --input`,
// `--expect-topology`, the topology a journal carries), then what every caller does with the
// host it returns: its features (what the judge compares), its JSON (what the journal records)
// and that JSON read back (what `judge` reads).
#pragma once
#include <string>

#include "tests/fuzz/fuzz_check.hpp"
#include "topology/loaders_internal.hpp"
#include "topology/topology.hpp"

namespace ga::fuzz {

template <class Loader>
int fuzz_topology_loader(const unsigned char* data, std::size_t size, Loader load) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  topo::HostTopology h;
  try {
    h = load(text, kInputName, "fuzzhost");
  } catch (const topo::TopologyError& e) {
    require_names_input(e.what());
    return 0;
  }
  (void)topo::features(h);
  const auto j = topo::to_json(h);
  (void)topo::host_from_json(nlohmann::json::parse(j.dump()));  // a loaded host must read back
  return 0;
}

}  // namespace ga::fuzz
