// Where the resume job's state lives and what computes a step. The worker's loop (worker.cpp:
// frames, reductions in worker order, checkpoints, the manifest, the loss log) is one; the
// engine is either the host's (state in host memory, contributions travel in the frames) or
// the GPU's (state in GPU memory, kernels from PTX, contributions summed with ncclAllReduce
// among the workers). Both compute the same job, bit for bit (probes/resume/job.hpp).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "probes/resume/job.hpp"

namespace ga::resume {

// ncclUniqueId is 128 bytes: the GPU engine's frames have room for it (worker 0's first frame).
inline constexpr std::uint64_t kNcclIdWords = 16;

class Engine {
 public:
  virtual ~Engine() = default;
  // Words of contribution in every frame this engine's worker sends.
  virtual std::uint64_t frame_words_of_contribution() const = 0;
  // A GPU job first exchanges one "hello" frame per worker (step = the resume point), in which
  // worker 0 hands out the NCCL id; then connect() builds the communicator with it.
  virtual bool needs_hello() const { return false; }
  virtual std::vector<std::uint64_t> hello_words() { return {}; }
  virtual void connect(const std::vector<std::uint64_t>& /*worker0_hello*/) {}
  // This worker's part of `step`: its local loss, and its words when they travel in frames.
  virtual Contribution contribute(int step) = 0;
  // The update of `step` with the reduction of every worker's frame (loss in worker order).
  virtual void apply(int step, const Reduced& from_frames) = 0;
  // The state as host words: for checkpoints and the final file.
  virtual State snapshot() = 0;
  // The job is stopped (another worker died): drop collective resources without waiting for
  // peers that will never come.
  virtual void abandon() noexcept {}
};

std::unique_ptr<Engine> make_host_engine(const JobConfig&, int worker, State initial);

struct GpuEngineOptions {
  JobConfig job;
  int worker = 0;
  int slot = 0;                         // the rank's index among its host's ranks: GPU = slot mod count
  std::string cuda_library, nccl_library;  // named libraries; empty: the defaults
};
// Throws (CudaError, NcclError, std::runtime_error) saying what is missing or failed.
std::unique_ptr<Engine> make_gpu_engine(const GpuEngineOptions&, const State& initial);

// The contribution words of a frame, as the relay must size them.
inline std::uint64_t frame_contrib_words(const JobConfig& c, bool gpu) { return gpu ? kNcclIdWords : c.contrib_words; }

// The PTX of the job's kernels (probes/resume/resume_kernels.ptx, compiled in).
const char* resume_kernels_ptx();

}  // namespace ga::resume
