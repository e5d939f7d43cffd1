// Explicit registration: the list of built-in probes is here, in one place, and a duplicate
// name is an error at start-up rather than a silent override.
#include "probes/probe.hpp"

namespace ga {

std::unique_ptr<Probe> make_inventory_probe();
std::unique_ptr<Probe> make_topology_probe();
std::unique_ptr<Probe> make_hostmem_probe();
std::unique_ptr<Probe> make_clock_probe();
std::unique_ptr<Probe> make_storage_probe();
std::unique_ptr<Probe> make_resume_probe();
std::unique_ptr<Probe> make_resume_gpu_probe();
std::unique_ptr<Probe> make_rdma_probe();
std::unique_ptr<Probe> make_mpicoll_probe();
std::unique_ptr<Probe> make_p2p_probe();
std::unique_ptr<Probe> make_gpu_probe();
std::unique_ptr<Probe> make_nccl_probe();
std::unique_ptr<Probe> make_soak_probe();
std::unique_ptr<Probe> make_net_probe();
std::unique_ptr<Probe> make_sdc_probe();

void register_builtin_probes(ProbeRegistry& r) {
  r.add(make_inventory_probe());
  r.add(make_topology_probe());
  r.add(make_hostmem_probe());
  r.add(make_clock_probe());
  r.add(make_storage_probe());
  r.add(make_resume_probe());
  r.add(make_resume_gpu_probe());
  r.add(make_rdma_probe());
  r.add(make_mpicoll_probe());
  r.add(make_p2p_probe());
  r.add(make_gpu_probe());
  r.add(make_nccl_probe());
  r.add(make_soak_probe());
  r.add(make_net_probe());
  r.add(make_sdc_probe());
}

}  // namespace ga
