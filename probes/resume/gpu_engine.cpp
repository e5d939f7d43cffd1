// The resume job with its state in GPU memory: the kernels of resume_kernels.ptx, loaded
// through the driver API (no CUDA runtime, no device binary), and the workers' contributions
// summed with ncclAllReduce over uint64 (wrapping, so exact in any order). The local loss is
// computed on the GPU and travels in the frames, summed on the host in worker order as the
// host engine does, so both engines end in the same bits.
#include <cstring>
#include <memory>
#include <stdexcept>

#include "probes/vendor/cuda_driver.hpp"
#include "probes/vendor/gpu_libraries.hpp"
#include "probes/vendor/nccl_api.hpp"
#include "probes/resume/engine.hpp"

namespace ga::resume {
namespace {

using gpu::CudaDriver;
using gpu::DeviceBuffer;

constexpr unsigned kBlock = 256;

unsigned blocks_for(std::uint64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

gpu::LibraryPaths paths_for(const GpuEngineOptions& o) {
  nlohmann::json p = nlohmann::json::object();
  if (!o.cuda_library.empty()) p["cuda_library"] = o.cuda_library;
  if (!o.nccl_library.empty()) p["nccl_library"] = o.nccl_library;
  return gpu::library_paths(p);
}

class GpuEngine final : public Engine {
 public:
  GpuEngine(const GpuEngineOptions& o, const State& initial)
      : o_(o), paths_(paths_for(o)), drv_(paths_.cuda), nccl_(paths_.nccl) {
    if (!drv_.loaded()) throw std::runtime_error("the CUDA driver library cannot be loaded: " + drv_.load_error());
    if (!nccl_.loaded()) throw std::runtime_error("NCCL cannot be loaded: " + nccl_.error());
    drv_.init();
    const int count = drv_.device_count();
    if (count < 1) throw std::runtime_error("CUDA sees no GPU");
    ordinal_ = o.slot % count;
    ctx_ = std::make_unique<gpu::DeviceContext>(drv_, ordinal_);
    stream_ = std::make_unique<gpu::Stream>(drv_);
    module_ = std::make_unique<gpu::Module>(drv_, resume_kernels_ptx());
    f_contribute_ = module_->function("ga_resume_contribute");
    f_loss_ = module_->function("ga_resume_local_loss");
    f_apply_ = module_->function("ga_resume_apply");
    const std::uint64_t words = o.job.state_words;
    if (initial.size() != words) throw std::logic_error("gpu engine: initial state has the wrong size");
    state_ = std::make_unique<DeviceBuffer>(drv_, words * 8);
    contrib_ = std::make_unique<DeviceBuffer>(drv_, o.job.contrib_words * 8);
    loss_ = std::make_unique<DeviceBuffer>(drv_, 8);
    drv_.memcpy_htod(state_->ptr(), initial.data(), words * 8, stream_->handle());
    stream_->synchronize();
  }

  ~GpuEngine() override {
    comm_.reset();  // before the context goes
  }

  std::uint64_t frame_words_of_contribution() const override { return kNcclIdWords; }
  bool needs_hello() const override { return true; }

  std::vector<std::uint64_t> hello_words() override {
    std::vector<std::uint64_t> w(kNcclIdWords, 0);
    if (o_.worker == 0) {
      const gpu::NcclUniqueId id = nccl_.unique_id();
      std::memcpy(w.data(), id.data(), id.size());
    }
    return w;
  }

  void connect(const std::vector<std::uint64_t>& worker0_hello) override {
    if (worker0_hello.size() * 8 < sizeof(gpu::NcclUniqueId)) throw std::logic_error("gpu engine: short NCCL id");
    gpu::NcclUniqueId id;
    std::memcpy(id.data(), worker0_hello.data(), id.size());
    comm_ = std::make_unique<gpu::Nccl::Comm>(nccl_, o_.job.workers, id, o_.worker);
  }

  Contribution contribute(int step) override {
    std::uint64_t st = state_->ptr(), words = o_.job.state_words, m = o_.job.contrib_words,
                  salt = contribute_salt(step, o_.worker), out = contrib_->ptr(), loss = loss_->ptr();
    void* pc[] = {&st, &words, &m, &salt, &out};
    drv_.launch(f_contribute_, blocks_for(m), kBlock, stream_->handle(), pc);
    void* pl[] = {&st, &words, &loss};
    drv_.launch(f_loss_, 1, 1, stream_->handle(), pl);
    Contribution c;
    drv_.memcpy_dtoh(&c.local_loss, loss_->ptr(), 8, stream_->handle());
    // The one wait of a step: it also covers the previous step's all-reduce and update.
    stream_->synchronize();
    if (comm_)
      if (auto e = comm_->async_error(); !e.empty()) throw std::runtime_error("NCCL: " + e);
    return c;
  }

  void apply(int step, const Reduced&) override {
    const std::uint64_t m = o_.job.contrib_words;
    comm_->all_reduce_sum_u64(contrib_->as_void(), contrib_->as_void(), m, stream_->handle());
    std::uint64_t st = state_->ptr(), words = o_.job.state_words, mm = m, k = apply_key(step, o_.worker), red = contrib_->ptr();
    void* pa[] = {&st, &words, &mm, &k, &red};
    drv_.launch(f_apply_, blocks_for(words), kBlock, stream_->handle(), pa);
  }

  State snapshot() override {
    State s(o_.job.state_words);
    drv_.memcpy_dtoh(s.data(), state_->ptr(), s.size() * 8, stream_->handle());
    stream_->synchronize();
    return s;
  }

  void abandon() noexcept override {
    if (comm_) comm_->abort();
  }

 private:
  GpuEngineOptions o_;
  gpu::LibraryPaths paths_;
  CudaDriver drv_;
  gpu::Nccl nccl_;
  int ordinal_ = 0;
  // Declared in the order they must be created; destroyed in reverse (buffers, module, stream,
  // then the context).
  std::unique_ptr<gpu::DeviceContext> ctx_;
  std::unique_ptr<gpu::Stream> stream_;
  std::unique_ptr<gpu::Module> module_;
  void* f_contribute_ = nullptr;
  void* f_loss_ = nullptr;
  void* f_apply_ = nullptr;
  std::unique_ptr<DeviceBuffer> state_, contrib_, loss_;
  std::unique_ptr<gpu::Nccl::Comm> comm_;
};

}  // namespace

std::unique_ptr<Engine> make_gpu_engine(const GpuEngineOptions& o, const State& initial) {
  return std::make_unique<GpuEngine>(o, initial);
}

}  // namespace ga::resume
