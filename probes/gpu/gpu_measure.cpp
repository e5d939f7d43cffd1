#include "probes/gpu/gpu_measure.hpp"

#include <hwloc.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace ga::gpu {

std::vector<double> time_ops(const CudaDriver& d, const Stream& s, const TimingPlan& plan, const std::function<void()>& op,
                             const std::function<void()>& while_running) {
  // The warm-up is timed as a whole to size the timed run to the budget.
  Event w0(d), w1(d);
  w0.record(s);
  for (int i = 0; i < std::max(1, plan.warmup); ++i) op();
  w1.record(s);
  w1.synchronize();
  const double per_op = std::max(1e-7, w1.seconds_since(w0) / std::max(1, plan.warmup));
  const int iters = std::clamp(static_cast<int>(plan.max_seconds / per_op), 1, std::max(1, plan.iterations));
  std::vector<std::unique_ptr<Event>> ev;
  for (int i = 0; i < 2 * iters; ++i) ev.push_back(std::make_unique<Event>(d));
  for (int i = 0; i < iters; ++i) {
    ev[2 * i]->record(s);
    op();
    ev[2 * i + 1]->record(s);
  }
  if (while_running) while_running();
  ev.back()->synchronize();
  std::vector<double> secs;
  for (int i = 0; i < iters; ++i) secs.push_back(ev[2 * i + 1]->seconds_since(*ev[2 * i]));
  return secs;
}

struct NumaHostBuffer::Impl {
  const CudaDriver& d;
  hwloc_topology_t topo = nullptr;
  std::size_t bytes = 0;
  bool registered = false;
  explicit Impl(const CudaDriver& drv) : d(drv) {}
  ~Impl() {
    if (topo) hwloc_topology_destroy(topo);
  }
};

NumaHostBuffer::NumaHostBuffer(const CudaDriver& d, std::size_t bytes, int numa) : impl_(std::make_unique<Impl>(d)) {
  impl_->bytes = bytes;
  if (hwloc_topology_init(&impl_->topo) != 0 || hwloc_topology_load(impl_->topo) != 0)
    throw std::runtime_error("hwloc cannot load this host's topology");
  hwloc_obj_t node = nullptr;
  while ((node = hwloc_get_next_obj_by_type(impl_->topo, HWLOC_OBJ_NUMANODE, node)))
    if (static_cast<int>(node->os_index) == numa) break;
  if (node) p_ = hwloc_alloc_membind(impl_->topo, bytes, node->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET);
  bound_ = p_ != nullptr;
  if (!p_) p_ = hwloc_alloc(impl_->topo, bytes);
  if (!p_) throw std::bad_alloc();
  // Touch every page so it exists on the bound node before the driver pins it.
  std::fill_n(static_cast<unsigned char*>(p_), bytes, static_cast<unsigned char>(0x5a));
  try {
    d.mem_host_register(p_, bytes);
    impl_->registered = true;
  } catch (...) {
    hwloc_free(impl_->topo, p_, bytes);
    throw;
  }
}

NumaHostBuffer::~NumaHostBuffer() {
  if (impl_->registered) impl_->d.mem_host_unregister(p_);
  if (p_) hwloc_free(impl_->topo, p_, impl_->bytes);
}

std::vector<int> host_numa_nodes() {
  std::vector<int> out;
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0) return out;
  if (hwloc_topology_load(t) == 0) {
    hwloc_obj_t node = nullptr;
    while ((node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, node))) out.push_back(static_cast<int>(node->os_index));
  }
  hwloc_topology_destroy(t);
  return out;
}

}  // namespace ga::gpu
