// The `nvidia-smi topo -m` text (topology/nvidia_smi_loader.cpp) loader.
#include "tests/fuzz/fuzz_topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  return ga::fuzz::fuzz_topology_loader(data, size, ga::topo::detail::load_nvidia_smi);
}
