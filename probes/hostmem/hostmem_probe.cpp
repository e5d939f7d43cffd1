// hostmem: host memory bandwidth (STREAM triad) per NUMA node, with threads and memory
// bound there through hwloc, and across NUMA nodes (threads on one, memory on another).
// One rank per host measures; the others on that host wait politely so they do not steal
// its cores.
#include <hwloc.h>

#include <memory>
#include <sstream>

#include "base/units.hpp"
#include "probes/hostmem/triad_kernel.hpp"
#include "probes/probe.hpp"
#include "topology/place.hpp"

namespace ga {
namespace {

struct HwlocTopo {
  hwloc_topology_t t = nullptr;
  HwlocTopo() {
    if (hwloc_topology_init(&t) != 0 || hwloc_topology_load(t) != 0) throw std::runtime_error("hwloc cannot load this host's topology");
  }
  ~HwlocTopo() { if (t) hwloc_topology_destroy(t); }
  HwlocTopo(const HwlocTopo&) = delete;
  HwlocTopo& operator=(const HwlocTopo&) = delete;
};

// Memory bound to one NUMA node, freed by RAII.
struct BoundArray {
  hwloc_topology_t topo;
  void* p = nullptr;
  std::size_t bytes;
  BoundArray(hwloc_topology_t t, std::size_t n, hwloc_obj_t node) : topo(t), bytes(n) {
    p = hwloc_alloc_membind(t, bytes, node->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET);
    if (!p) p = hwloc_alloc(t, bytes);  // binding unsupported (containers): still measure, say so in params
    if (!p) throw std::bad_alloc();
  }
  ~BoundArray() { if (p) hwloc_free(topo, p, bytes); }
  BoundArray(const BoundArray&) = delete;
  BoundArray& operator=(const BoundArray&) = delete;
  double* data() const { return static_cast<double*>(p); }
};

constexpr std::size_t kArrayMib = 64;
constexpr int kIterations = 5;

class HostmemProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "hostmem";
    i.summary = "STREAM triad bandwidth per NUMA node (threads and memory bound there) and across NUMA nodes";
    using K = place::Kind;
    i.metrics = {
        MetricDecl{"hostmem.triad_bw", unit::bytes_per_second, Better::higher,
                   "STREAM triad bandwidth with threads and memory on one NUMA node (place HOST/numa:N), one sample per iteration"}
            .at({K::numa})
            .carries({"threads", "array_bytes", "cpu_numa", "mem_numa"}),
        MetricDecl{"hostmem.triad_bw_cross", unit::bytes_per_second, Better::higher,
                   "STREAM triad bandwidth with threads on one NUMA node and memory on another (params cpu_numa, mem_numa)"}
            .at({K::host})
            .carries({"threads", "array_bytes", "cpu_numa", "mem_numa"}),
    };
    i.params = {
        {"array_mib", ParamType::integer, kArrayMib, 1, {}, {}, "MiB per array; three arrays per NUMA node pair"},
        {"iterations", ParamType::integer, kIterations, 1, {}, {}, "timed triad passes per NUMA node pair"},
    };
    return i;
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    if (ctx.local_rank != 0) return Outcome::ok();
    const std::size_t mib = ctx.params.value("array_mib", kArrayMib);
    const int iterations = ctx.params.value("iterations", kIterations);
    HwlocTopo topo;
    const int nnodes = hwloc_get_nbobjs_by_type(topo.t, HWLOC_OBJ_NUMANODE);
    if (nnodes < 1) return Outcome::failed("hwloc reports no NUMA node");
    const std::size_t n = mib * 1024 * 1024 / sizeof(double);
    // Leave a quarter of the deadline for gathering and the rest of the run.
    const double budget = ctx.seconds_left() * 0.6 / (nnodes * nnodes);

    std::size_t wrong_total = 0;
    for (int ci = 0; ci < nnodes; ++ci) {
      hwloc_obj_t cpu_node = hwloc_get_obj_by_type(topo.t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(ci));
      const int threads = std::max(1, hwloc_get_nbobjs_inside_cpuset_by_type(topo.t, cpu_node->cpuset, HWLOC_OBJ_CORE));
      std::vector<hwloc_cpuset_t> sets(static_cast<std::size_t>(threads));
      hwloc_distrib(topo.t, &cpu_node, 1, sets.data(), static_cast<unsigned>(threads), INT_MAX, 0);
      for (int mi = 0; mi < nnodes; ++mi) {
        hwloc_obj_t mem_node = hwloc_get_obj_by_type(topo.t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(mi));
        BoundArray a(topo.t, n * sizeof(double), mem_node), b(topo.t, n * sizeof(double), mem_node),
            c(topo.t, n * sizeof(double), mem_node);
        hostmem::TriadConfig cfg;
        cfg.n = n;
        cfg.threads = threads;
        cfg.iterations = iterations;
        cfg.max_seconds = budget;
        cfg.bind = [&](int t) {
          hwloc_set_cpubind(topo.t, sets[static_cast<std::size_t>(t)], HWLOC_CPUBIND_THREAD);
        };
        auto res = hostmem::run_triad(a.data(), b.data(), c.data(), cfg);
        wrong_total += res.wrong;
        for (std::size_t it = 0; it < res.seconds.size(); ++it) {
          out.value(ci == mi ? place::numa(ctx.hostname, static_cast<int>(cpu_node->os_index)) : place::host(ctx.hostname),
                    ci == mi ? "hostmem.triad_bw" : "hostmem.triad_bw_cross", res.bytes_per_iteration / res.seconds[it],
                    unit::bytes_per_second,
                    {{"threads", threads}, {"array_bytes", n * sizeof(double)},
                     {"cpu_numa", cpu_node->os_index}, {"mem_numa", mem_node->os_index}},
                    static_cast<int>(it));
        }
      }
      for (auto s : sets) hwloc_bitmap_free(s);
    }
    if (wrong_total) return Outcome::failed("triad data check: " + std::to_string(wrong_total) + " wrong elements");
    return Outcome::ok();
  }
};

}  // namespace

std::unique_ptr<Probe> make_hostmem_probe() { return std::make_unique<HostmemProbe>(); }

}  // namespace ga
