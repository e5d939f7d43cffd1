#include "probes/vendor/gpu_libraries.hpp"

#include <cstdlib>
#include <stdexcept>

namespace ga::gpu {
namespace {

// A toolkit outside the loader path still counts: the GPU-host script relies on it.
const std::string kToolkit = "/usr/local/cuda/lib64/";

std::vector<std::string> pick(const nlohmann::json& params, const char* key, const EnvLookup& env, const char* var,
                              std::vector<std::string> defaults) {
  if (params.is_object() && params.contains(key)) {
    const auto& v = params[key];
    if (!v.is_string() || v.get<std::string>().empty())
      throw std::invalid_argument(std::string("param ") + key + " must be a library path, not " + v.dump());
    return {v.get<std::string>()};
  }
  if (const char* e = env(var); e && *e) return {e};
  return defaults;
}

}  // namespace

LibraryPaths library_paths(const nlohmann::json& params, const EnvLookup& env) {
  LibraryPaths p;
  p.cuda = pick(params, "cuda_library", env, "GPUACCEPT_CUDA_LIBRARY", {"libcuda.so.1"});
  p.nvml = pick(params, "nvml_library", env, "GPUACCEPT_NVML_LIBRARY", {"libnvidia-ml.so.1"});
  // cuBLAS ships with the toolkit, not the driver; a 12.x cuBLAS runs on drivers 525+, a 13.x
  // one needs 580+, so the newer sonames come last only where both exist.
  p.cublas = pick(params, "cublas_library", env, "GPUACCEPT_CUBLAS_LIBRARY",
                  {"libcublas.so.12", "libcublas.so.13", "libcublas.so.11", "libcublas.so", kToolkit + "libcublas.so"});
  p.nccl = pick(params, "nccl_library", env, "GPUACCEPT_NCCL_LIBRARY", {"libnccl.so.2", kToolkit + "libnccl.so.2"});
  return p;
}

LibraryPaths library_paths(const nlohmann::json& params) {
  return library_paths(params, [](const char* v) { return std::getenv(v); });
}

}  // namespace ga::gpu
