// Where the GPU probes look for the vendor libraries they load at run time. Clusters carry the
// driver's libcuda and libnvidia-ml on the loader path and their own NCCL and cuBLAS wherever
// their training stack put them, so each can be named: by a suite param (`cuda_library`,
// `nccl_library`, `cublas_library`, `nvml_library`) or by an environment variable
// (GPUACCEPT_CUDA_LIBRARY ...). A named library is the only candidate: a wrong path must fail
// loudly rather than fall back to another copy. Tests point these at fake libraries.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ga::gpu {

struct LibraryPaths {
  std::vector<std::string> cuda;        // candidates, tried in order
  std::vector<std::string> nvml;
  std::vector<std::string> cublas;
  std::vector<std::string> nccl;
};

using EnvLookup = std::function<const char*(const char*)>;

// Param beats environment beats the default candidates. Throws std::invalid_argument naming
// the param when it is not a non-empty string.
LibraryPaths library_paths(const nlohmann::json& params, const EnvLookup& env);
// The same with the process environment.
LibraryPaths library_paths(const nlohmann::json& params);

}  // namespace ga::gpu
