#include "probes/vendor/versions.hpp"

#include <hwloc.h>
#ifdef GA_WITH_MPI
#include <mpi.h>
#endif

#include <regex>

#include "probes/vendor/dynlib.hpp"

namespace ga {

namespace {

// Where a toolkit installed outside the loader path keeps its libraries; clusters usually
// have the driver's libcuda and their own NCCL on the default path.
const char* kToolkitLib = "/usr/local/cuda/lib64/";

std::string dotted(int major, int minor, int patch = -1) {
  return std::to_string(major) + "." + std::to_string(minor) + (patch >= 0 ? "." + std::to_string(patch) : "");
}

// CUDA encodes 12040 as 12.4.
std::string cuda_version(int v) { return dotted(v / 1000, (v % 1000) / 10); }

void absent(StackVersions& out, const std::string& key, const std::string& why) {
  out.version[key] = "none";
  out.reasons[key] = why;
}

}  // namespace

StackVersions discover_versions() {
  StackVersions out;
#ifdef GA_WITH_MPI
  {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    std::string s(lib, static_cast<std::size_t>(len));
    out.version["mpi"] = s.substr(0, s.find_first_of(",\n"));
  }
#else
  absent(out, "mpi", "built without MPI");
#endif
  {
    // hwloc has no run-time release number, only its API level (2.9.x has API 2.8.0).
    unsigned v = hwloc_get_api_version();
    out.version["hwloc"] =
#ifdef HWLOC_VERSION
        std::string(HWLOC_VERSION) + " (API " +
#else
        std::string("API ") +
#endif
        dotted(static_cast<int>(v >> 16), static_cast<int>((v >> 8) & 0xff), static_cast<int>(v & 0xff))
#ifdef HWLOC_VERSION
        + ")"
#endif
        ;
  }
  {
    DynLib cuda({"libcuda.so.1"});
    using Fn = int (*)(int*);
    int v = 0;
    if (!cuda.loaded()) absent(out, "cuda_driver", "libcuda.so.1 not found (no NVIDIA driver)");
    else if (auto f = cuda.symbol<Fn>("cuDriverGetVersion"); f && f(&v) == 0) out.version["cuda_driver"] = cuda_version(v);
    else absent(out, "cuda_driver", "cuDriverGetVersion failed");
  }
  {
    DynLib rt({"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0",
               std::string(kToolkitLib) + "libcudart.so"});
    using Fn = int (*)(int*);
    int v = 0;
    if (!rt.loaded()) absent(out, "cuda_runtime", "libcudart not found");
    else if (auto f = rt.symbol<Fn>("cudaRuntimeGetVersion"); f && f(&v) == 0) out.version["cuda_runtime"] = cuda_version(v);
    else absent(out, "cuda_runtime", "cudaRuntimeGetVersion failed");
  }
  {
    DynLib nccl({"libnccl.so.2", std::string(kToolkitLib) + "libnccl.so.2"});
    using Fn = int (*)(int*);
    int v = 0;
    if (!nccl.loaded()) absent(out, "nccl", "libnccl.so.2 not found");
    else if (auto f = nccl.symbol<Fn>("ncclGetVersion"); f && f(&v) == 0)
      // NCCL >= 2.9 encodes major*10000 + minor*100 + patch; older ones major*1000 + minor*100 + patch.
      out.version["nccl"] = v >= 10000 ? dotted(v / 10000, (v % 10000) / 100, v % 100) : dotted(v / 1000, (v % 1000) / 100, v % 100);
    else absent(out, "nccl", "ncclGetVersion failed");
  }
  {
    DynLib ibv({"libibverbs.so.1"});
    if (!ibv.loaded()) {
      absent(out, "libibverbs", "libibverbs.so.1 not found");
    } else {
      // The library carries no version call; its file name does (libibverbs.so.1.14.44.0 = rdma-core 44).
      std::smatch m;
      const std::string path = ibv.real_path();
      static const std::regex re(R"(libibverbs\.so\.([0-9.]+)$)");
      out.version["libibverbs"] = std::regex_search(path, m, re) ? m[1].str() : "unknown";
    }
  }
  return out;
}

}  // namespace ga
