// Binding a process's CPUs and memory to one NUMA node, and which node a rank belongs on.
//
// A rank that drives a GPU belongs on the GPU's NUMA node: its host copies, its NCCL proxy
// threads and its NIC traffic then stay on the socket the GPU hangs off. Launchers bind in rank
// order (mpirun --bind-to numa, srun --cpu-bind=ldoms), which on an 8-GPU node with two
// sockets puts rank 1 on socket 1 whatever GPU it later drives. So the run binds each rank
// itself, after discovery, to the node of the GPU its local rank takes (GPU k for local rank
// k, logical order), and the probes' GPU assignment, which follows the binding, then gives it
// that GPU. The rdma probe binds its traffic next to its NIC the same way, and puts the old
// binding back after.
#pragma once
#include <optional>
#include <string>

#include "topology/model.hpp"

namespace ga::gpu {

// RAII: binds this process (CPUs and memory, through hwloc) to NUMA node `node` of this
// machine; the destructor restores the binding it found. No node, or a node this machine
// does not have (a recorded tree's), binds nothing: bound() false and why() says so.
class NumaBinding {
 public:
  explicit NumaBinding(std::optional<int> node);
  ~NumaBinding();
  NumaBinding(const NumaBinding&) = delete;
  NumaBinding& operator=(const NumaBinding&) = delete;
  bool bound() const { return bound_; }
  const std::string& why() const { return why_; }

 private:
  struct Handles;
  Handles* h_ = nullptr;  // hwloc's handles; opaque so hwloc.h stays out of this header
  bool bound_ = false;
  std::string why_;
};

// The NUMA node local rank `local_rank` belongs on: that of the GPU it takes (GPU
// local_rank mod count, logical order). nullopt, with `why`, when there is nothing to choose:
// no GPU, the GPU's node unknown, or a host with fewer than two NUMA nodes.
std::optional<int> gpu_numa_node(const topo::HostTopology& host, int local_rank, std::string* why = nullptr);

}  // namespace ga::gpu
