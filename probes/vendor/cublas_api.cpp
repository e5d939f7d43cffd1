#include "probes/vendor/cublas_api.hpp"

#ifdef GA_HAVE_CUDA_HEADERS
#include <cublas_api.h>
#include <library_types.h>
#endif

namespace ga::gpu {

namespace {
constexpr int kR16F = 2, kR16BF = 14, kCompute32F = 68, kGemmDefault = -1, kOpN = 0, kSuccess = 0;
#ifdef GA_HAVE_CUDA_HEADERS
static_assert(kR16F == CUDA_R_16F && kR16BF == CUDA_R_16BF && kCompute32F == CUBLAS_COMPUTE_32F);
static_assert(kGemmDefault == CUBLAS_GEMM_DEFAULT && kOpN == CUBLAS_OP_N && kSuccess == CUBLAS_STATUS_SUCCESS);
#endif
}  // namespace

const char* to_string(GemmType t) { return t == GemmType::bf16 ? "bf16" : "fp16"; }

struct Cublas::Table {
  int (*create)(void**) = nullptr;
  int (*destroy)(void*) = nullptr;
  int (*set_stream)(void*, void*) = nullptr;
  int (*get_version)(void*, int*) = nullptr;
  int (*gemm_ex)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int, const void*,
                 void*, int, int, int, int) = nullptr;
};

Cublas::Cublas(const std::vector<std::string>& candidates) : lib_(candidates), t_(std::make_shared<Table>()) {
  if (!lib_.loaded()) return;
  auto sym = [&](auto& fn, const char* name) { fn = lib_.symbol<std::remove_reference_t<decltype(fn)>>(name); };
  sym(t_->create, "cublasCreate_v2");
  sym(t_->destroy, "cublasDestroy_v2");
  sym(t_->set_stream, "cublasSetStream_v2");
  sym(t_->get_version, "cublasGetVersion_v2");
  sym(t_->gemm_ex, "cublasGemmEx");
  complete_ = t_->create && t_->destroy && t_->set_stream && t_->gemm_ex;
}

std::string Cublas::error() const {
  if (!lib_.loaded()) return lib_.error();
  if (!complete_) return lib_.name() + " lacks cublasCreate_v2, cublasSetStream_v2 or cublasGemmEx";
  return {};
}

Cublas::Handle::Handle(const Cublas& c, void* stream) : c_(c) {
  if (!c.loaded()) throw CublasError("cuBLAS not loaded: " + c.error());
  int rc = c.t_->create(&h_);
  if (rc != kSuccess) throw CublasError("cublasCreate_v2 failed: status " + std::to_string(rc));
  rc = c.t_->set_stream(h_, stream);
  if (rc != kSuccess) {
    c.t_->destroy(h_);
    throw CublasError("cublasSetStream_v2 failed: status " + std::to_string(rc));
  }
}

Cublas::Handle::~Handle() {
  if (h_) c_.t_->destroy(h_);
}

int Cublas::Handle::version() const {
  int v = 0;
  if (c_.t_->get_version) c_.t_->get_version(h_, &v);
  return v;
}

void Cublas::Handle::gemm(GemmType type, int n, const void* a, const void* b, void* c) const {
  const float alpha = 1.0f, beta = 0.0f;
  const int dt = type == GemmType::bf16 ? kR16BF : kR16F;
  const int rc = c_.t_->gemm_ex(h_, kOpN, kOpN, n, n, n, &alpha, a, dt, n, b, dt, n, &beta, c, dt, n, kCompute32F, kGemmDefault);
  if (rc != kSuccess) throw CublasError(std::string("cublasGemmEx (") + to_string(type) + ", n=" + std::to_string(n) +
                                        ") failed: status " + std::to_string(rc));
}

}  // namespace ga::gpu
