// Thin adapter over cuBLAS (dlopen): one handle bound to a stream, and cublasGemmEx for the
// bf16/fp16 GEMM rate. cuBLAS attaches to the current device's primary context, which is the
// context DeviceContext makes current.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "probes/vendor/dynlib.hpp"

namespace ga::gpu {

struct CublasError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class GemmType { bf16, fp16 };
const char* to_string(GemmType);

class Cublas {
 public:
  explicit Cublas(const std::vector<std::string>& candidates);
  bool loaded() const { return lib_.loaded() && complete_; }
  std::string error() const;
  std::string path() const { return lib_.real_path(); }

  // RAII handle on the current context, issuing work on `stream`.
  class Handle {
   public:
    Handle(const Cublas& c, void* stream);
    ~Handle();
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    int version() const;                // 120304 = 12.3.4
    // C = A x B, column major, n x n, inputs and output of `type`, fp32 accumulation.
    void gemm(GemmType type, int n, const void* a, const void* b, void* c) const;

   private:
    const Cublas& c_;
    void* h_ = nullptr;
  };

 private:
  DynLib lib_;
  bool complete_ = false;
  struct Table;
  std::shared_ptr<Table> t_;
};

}  // namespace ga::gpu
