// The timed operations of the gpu probe, each a copy engine or cuBLAS call timed with CUDA
// events on one stream (no kernel of our own, so no PTX to load on old drivers).
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "probes/vendor/cublas_api.hpp"
#include "probes/vendor/cuda_driver.hpp"

namespace ga::gpu {

struct TimingPlan {
  int warmup = 2;
  int iterations = 5;
  double max_seconds = 5;               // the timed iterations are cut to fit this
};

// Runs `op` plan.warmup times, then up to plan.iterations times between event pairs, and
// returns seconds per op. `while_running` is called once all timed ops are queued and before
// waiting for them (the PCIe link state is read then, while the link carries traffic).
std::vector<double> time_ops(const CudaDriver& d, const Stream& s, const TimingPlan& plan, const std::function<void()>& op,
                             const std::function<void()>& while_running = {});

// Host memory bound to one NUMA node (hwloc) and pinned for DMA (cuMemHostRegister). When
// binding is not possible (no such node, containers) `bound` is false and the memory is
// wherever the kernel put it.
class NumaHostBuffer {
 public:
  NumaHostBuffer(const CudaDriver& d, std::size_t bytes, int numa_os_index);
  ~NumaHostBuffer();
  NumaHostBuffer(const NumaHostBuffer&) = delete;
  NumaHostBuffer& operator=(const NumaHostBuffer&) = delete;
  void* data() const { return p_; }
  bool bound() const { return bound_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  void* p_ = nullptr;
  bool bound_ = false;
};

// NUMA nodes of this host (OS indexes), from hwloc.
std::vector<int> host_numa_nodes();


}  // namespace ga::gpu
