// topology: the comparable facts of each host's topology (NUMA, GPUs, NICs, PCIe paths,
// NVLink islands) as samples, so the judge can hold every host against the majority and
// against --expect-topology. Discovery itself runs in the harness before any probe, since
// every other probe needs the topology.
#include "base/units.hpp"
#include "probes/probe.hpp"
#include "topology/place.hpp"
#include "topology/topology.hpp"

namespace ga {
namespace {

class TopologyProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "topology";
    i.summary =
        "packages, NUMA nodes, cores, PCI tree, GPUs and fabric NICs with their NUMA node, GPU-NIC path "
        "classes, GPU link islands; compared across hosts and with --expect-topology";
    // One per feature of topology/features.cpp, with the unit it gives the feature. Facts to
    // hold against the other hosts and the expected topology, so no direction, but a NIC's rate.
    // Places: HOST, HOST/gpu:N or HOST/nic:NAME, as the feature's subplace says; no params.
    using K = place::Kind;
    i.metrics = {
        MetricDecl{"topology.numa_count", unit::count, Better::none, "NUMA nodes of the host"}.at({K::host}).carries({}),
        MetricDecl{"topology.package_count", unit::count, Better::none, "CPU packages (sockets); absent when the source does not say"}
            .at({K::host}).carries({}),
        MetricDecl{"topology.core_count", unit::count, Better::none, "CPU cores; absent when the source does not say"}
            .at({K::host}).carries({}),
        MetricDecl{"topology.pu_count", unit::count, Better::none, "hardware threads (PUs); absent when the source does not say"}
            .at({K::host}).carries({}),
        MetricDecl{"topology.gpu_count", unit::count, Better::none, "GPUs of the host"}.at({K::host}).carries({}),
        MetricDecl{"topology.nic_count", unit::count, Better::none, "fabric NICs of the host"}.at({K::host}).carries({}),
        MetricDecl{"topology.gpu_link_islands", unit::text, Better::none,
         "GPUs joined by NVLink, as groups of logical indices (\"0-1-2-3|4-5-6-7\"), \"none\" without links"}
            .at({K::host}).carries({}),
        MetricDecl{"topology.gpu_link_all_to_all", unit::boolean, Better::none, "every GPU has a direct link to every other GPU"}
            .at({K::host}).carries({}),
        MetricDecl{"topology.gpu_model", unit::text, Better::none, "model of one GPU (place HOST/gpu:N)"}
            .at({K::gpu}).carries({}),
        MetricDecl{"topology.gpu_numa_node", unit::count, Better::none, "NUMA node of one GPU"}.at({K::gpu}).carries({}),
        MetricDecl{"topology.gpu_nearest_nics", unit::text, Better::none, "the NICs nearest one GPU, comma-separated, or \"none\""}
            .at({K::gpu}).carries({}),
        MetricDecl{"topology.gpu_nic_path", unit::text, Better::none,
         "PCI path class from one GPU to its nearest NIC (PIX, PXB, PHB, NODE, SYS) or \"none\""}
            .at({K::gpu}).carries({}),
        MetricDecl{"topology.nic_numa_node", unit::count, Better::none, "NUMA node of one NIC (place HOST/nic:NAME)"}
            .at({K::nic}).carries({}),
        MetricDecl{"topology.nic_kind", unit::text, Better::none, "kind of one NIC: infiniband, roce, ethernet-rdma, efa, slingshot or unknown"}
            .at({K::nic}).carries({}),
        MetricDecl{"topology.nic_rate_gbps", "Gb/s", Better::higher, "link rate of one NIC as the topology source states it"}
            .at({K::nic}).carries({}),
    };
    return i;  // no parameters
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    if (ctx.local_rank != 0) return Outcome::ok();
    if (ctx.host.source.rfind("error", 0) == 0)
      return Outcome::failed("topology discovery failed on " + ctx.hostname + ": " + ctx.host.source);
    for (const auto& f : topo::features(ctx.host)) {
      Sample s;
      s.place = f.subplace.empty() ? place::host(ctx.hostname) : ctx.hostname + "/" + f.subplace;
      s.metric = f.metric;
      s.value = f.value;
      s.text = f.text;
      s.unit = f.unit;
      s.rank = ctx.rank;
      out.emit(std::move(s));
    }
    return Outcome::ok();
  }
};

}  // namespace

std::unique_ptr<Probe> make_topology_probe() { return std::make_unique<TopologyProbe>(); }

}  // namespace ga
