// The NCCL topology XML (topology/nccl_xml_loader.cpp, pugixml) loader.
#include "tests/fuzz/fuzz_topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  return ga::fuzz::fuzz_topology_loader(data, size, ga::topo::detail::load_nccl_xml);
}
