#include <hwloc.h>

#include <sstream>

#include "app/commands.hpp"

#ifndef GA_VERSION
#define GA_VERSION "0.0.0"
#endif

namespace ga::app {

std::string version_text() {
  std::ostringstream o;
  o << "gpuaccept " << GA_VERSION << "\n";
#ifdef GA_WITH_MPI
  o << "  MPI: yes (the MPI library found at run time is recorded in each report)\n";
#else
  o << "  MPI: no (one process, one host)\n";
#endif
  o << "  hwloc: built against " << (HWLOC_API_VERSION >> 16) << "." << ((HWLOC_API_VERSION >> 8) & 0xff) << "\n";
#ifdef GA_CUDA_TOOLKIT_VERSION
  o << "  CUDA: headers of toolkit " << GA_CUDA_TOOLKIT_VERSION
    << "; libcuda, NCCL, cuBLAS and NVML are loaded at run time (dlopen)\n";
#else
  o << "  CUDA: no toolkit at build time; libcuda, NCCL, cuBLAS and NVML are loaded at run time (dlopen)\n";
#endif
  o << "  RDMA: libibverbs loaded at run time\n";
  return o.str();
}

}  // namespace ga::app
