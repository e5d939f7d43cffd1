// Which transport Open MPI chose, read inside the process: Open MPI opens its PML/BTL/MTL
// components as shared objects (mca_pml_ob1.so, mca_btl_tcp.so ...) and closes the ones it did
// not select during MPI_Init, so after it the objects mapped in /proc/self/maps are the ones in
// use. No ompi_info, no MPI_T (whose "pml"/"btl" variables hold what was asked, not what was
// chosen). An MPI built with its components inside libmpi (or not Open MPI) maps none: unknown.
#pragma once
#include <string>
#include <vector>

#include "probes/probe.hpp"

namespace ga::mpi {

struct MpiTransport {
  std::string pml;                  // "ob1", "ucx", "cm"; "" unknown
  std::vector<std::string> btls;    // ob1's byte transfer layers: "self", "tcp", "vader", "openib", "uct" ...
  std::vector<std::string> mtls;    // cm's: "ofi", "psm2"
  bool ucx_loaded = false;          // libucp mapped (the UCX PML or BTL)
  bool known() const { return !pml.empty(); }
  // "UCX", "OFI" / "PSM2" (cm), "RDMA (openib)" and the like for ob1 with an RDMA BTL, "TCP" for
  // ob1 whose only network BTL is tcp, "shared memory" when there is no network BTL, or
  // "unknown".
  std::string summary() const;
  // ob1 and, for inter-host traffic, only tcp: MPI between the hosts runs over TCP.
  bool tcp_only() const;
};

MpiTransport mpi_transport_from_maps(const std::string& proc_maps_text);
// /proc/self/maps of this process ("" when unreadable).
std::string read_self_maps();

// What the probes that measure over MPI (p2p, mpi-coll) say of MPI's own transport on a host,
// each under its own name: PROBE.mpi_transport (text: the summary, params pml, btls, mtls) and
// PROBE.mpi_tcp_with_rdma (1 where MPI between the hosts ran over TCP only although the host
// has ACTIVE RDMA ports: the fabric's numbers are TCP's, a node fault there; params.configured_by
// names the run's own OMPI_MCA_btl/pml/mtl that chose it, and the judge makes that a warning,
// as it does TCP on every host judged: MetricDecl::NotTheNode::warning). One rank per host
// calls record_mpi_transport, after MPI_Init; only a run across hosts has anything to say.
std::vector<MetricDecl> mpi_transport_metrics(const std::string& probe);
void record_mpi_transport(const ProbeContext& ctx, SampleSink& out, const std::string& probe);

}  // namespace ga::mpi
