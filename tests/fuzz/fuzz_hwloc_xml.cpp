// The hwloc XML (topology/hwloc_loader.cpp, through hwloc's own XML import) loader.
#include "tests/fuzz/fuzz_topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  return ga::fuzz::fuzz_topology_loader(data, size, ga::topo::detail::load_hwloc_xml);
}
