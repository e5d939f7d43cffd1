// rdma: the RDMA ports of every host (from sysfs) and RC RDMA-write latency and bandwidth
// between hosts on the pair schedule (through libibverbs, or the loopback fake in tests).
// Places: HOST/nic:mlx5_0 is port 1 of mlx5_0; other ports are HOST/nic:mlx5_0:2 (docs/rdma.md).
// Measures only: the judging rules are suites/data/criteria-default-rdma.yaml.

#include <filesystem>
#include <thread>

#include "base/units.hpp"
#include "probes/devices/numa_binding.hpp"
#include "probes/harness/pair_schedule.hpp"
#include "probes/probe.hpp"
#include "probes/rdma/pair_traffic.hpp"
#include "probes/devices/port_inventory.hpp"
#include "probes/rdma/rdma_probe.hpp"
#include "probes/rdma/transport.hpp"
#include "topology/place.hpp"

namespace ga {
namespace {

constexpr const char* kDefaultTransport = "verbs";
constexpr double kDefaultBudgetS = 20;
constexpr const char* kErrorsPerBit = "errors/bit";

constexpr const char* kCaveat =
    "the verbs data path (RC RDMA write latency/bandwidth, GPUDirect) has not been validated on RDMA hardware; "
    "the port inventory is tested against recorded sysfs trees";

// Rails: local rank k takes the k-th active port, InfiniBand ports first (the compute
// fabric), then Ethernet (RoCE) ports, each in natural order; or the suite's `ports` list.
std::optional<rdma::PortInfo> choose_port(const std::vector<rdma::PortInfo>& ports, const nlohmann::json& params,
                                          int local_rank) {
  std::vector<rdma::PortInfo> rails;
  if (params.contains("ports")) {
    for (const auto& want : params.at("ports"))
      for (const auto& p : ports)
        if (p.place_name() == want.get<std::string>() && p.active()) rails.push_back(p);
  } else {
    for (int eth = 0; eth < 2; ++eth)
      for (const auto& p : ports)
        if (p.active() && p.ethernet() == (eth == 1)) rails.push_back(p);
  }
  if (local_rank < static_cast<int>(rails.size())) return rails[static_cast<std::size_t>(local_rank)];
  return std::nullopt;
}

bool peer_memory_present(const std::string& root) {
  namespace fs = std::filesystem;
  const fs::path r = root.empty() ? fs::path("/") : fs::path(root);
  std::error_code ec;
  return fs::exists(r / "sys/kernel/mm/memory_peers/nv_mem/version", ec) || fs::exists(r / "sys/module/nvidia_peermem", ec);
}

class RdmaProbe final : public Probe {
 public:
  // before_end_read: a test hook, run at the run's end just before the last reading of the
  // error counters (tests rewrite counter files there).
  explicit RdmaProbe(std::function<void()> before_end_read = {}) : before_end_read_(std::move(before_end_read)) {}

  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "rdma";
    i.summary =
        "RDMA ports per host (state, rate, width, link layer, MTU, RoCE v2 GID, VF, firmware, NUMA, error "
        "counters) and RC RDMA-write latency and bandwidth between hosts";
    i.needs = {false, true, false};
    i.caveat = kCaveat;
    // Port facts at HOST/nic:DEV (port 1) or HOST/nic:DEV:PORT; traffic at the pair of ports.
    using K = place::Kind;
    // The traffic's samples (pair_traffic.cpp): every one carries these; pair_ok adds error, the figures bytes.
    const std::vector<std::string> traffic_keys = {"direction", "transport", "memory", "bytes"};
    i.metrics = {
        MetricDecl{"rdma.port_active", unit::boolean, Better::higher, "the port's state is ACTIVE"}.at({K::nic}).carries({}),
        MetricDecl{"rdma.state", unit::text, Better::none, "the port's logical state (ACTIVE, DOWN, INIT ...)"}
            .at({K::nic}).carries({}),
        MetricDecl{"rdma.phys_state", unit::text, Better::none, "the port's physical state (LinkUp, Disabled, Polling ...)"}
            .at({K::nic}).carries({}),
        MetricDecl{"rdma.rate_gbps", "Gb/s", Better::higher, "the port's link rate (params: link_layer)"}
            .at({K::nic}).carries({"link_layer"}),
        MetricDecl{"rdma.width", unit::count, Better::none, "the port's link width in lanes"}.at({K::nic}).carries({}),
        MetricDecl{"rdma.link_layer", unit::text, Better::none, "InfiniBand or Ethernet"}.at({K::nic}).carries({}),
        MetricDecl{"rdma.mtu", unit::bytes, Better::none, "the port's active MTU"}.at({K::nic}).carries({}),
        MetricDecl{"rdma.is_vf", unit::boolean, Better::lower, "the device is an SR-IOV virtual function"}
            .at({K::nic}).carries({}),
        MetricDecl{"rdma.roce_v2_gid", unit::boolean, Better::higher, "an Ethernet port has a RoCE v2 GID"}
            .at({K::nic}).carries({}),
        MetricDecl{"rdma.roce_v2_gid_index", unit::count, Better::none, "the GID index of the port's RoCE v2 GID"}
            .at({K::nic}).carries({}),
        MetricDecl{"rdma.fw", unit::text, Better::none, "the device's firmware version"}.at({K::nic}).carries({}),
        MetricDecl{"rdma.node_guid", unit::text, Better::none,
         "the device's node GUID: with the firmware, what a signed report's manifest names as accepted hardware"}
            .at({K::nic}).carries({}),
        MetricDecl{"rdma.numa_node", unit::count, Better::none, "the device's NUMA node"}.at({K::nic}).carries({}),
        // Error counters: read at the run's start and end (read_run_bound); the judge derives
        // the rise and rates (suites/rdma_rates.hpp), declared here as the samples' owner.
        MetricDecl{"rdma.counter.*", unit::count, Better::none,
         "one port error counter as read (params read: start or end of the run); suffix: the counter "
         "(symbol_error, link_downed, port_rcv_errors, out_of_sequence ... in probes/devices/port_inventory.cpp)"}
            .at({K::nic}).carries({"read"}),
        MetricDecl{"rdma.counters_read_at", unit::seconds, Better::none,
         "when the host read its port counters, on its monotonic clock (params read: start or end of the run)"}
            .at({K::host}).carries({"read"}),
        // Derived by the judge (suites/rdma_rates.cpp) at the counters' place, without params.
        MetricDecl{"rdma.counter_rise.*", unit::count, Better::lower,
         "how much one port error counter rose between the run's first and last reading (derived by the judge; "
         "a counter that went down was reset and counts its new value)"}
            .at({K::nic}).carries({}),
        MetricDecl{"rdma.counter_per_bit.*", kErrorsPerBit, Better::lower,
         "a port's errors over the run per bit its link carried at its rate (symbol_error, port_rcv_errors): "
         "a lower bound on the bit error rate (derived by the judge)"}
            .at({K::nic}).carries({}),
        MetricDecl{"rdma.counter_interval", unit::seconds, Better::none,
         "seconds between the run's first and last reading of a port's counters (derived by the judge)"}
            .at({K::nic}).carries({}),
        MetricDecl{"rdma.port_qp_ok", unit::boolean, Better::higher,
         "the port's own queue pairs connected (reached RTS) with at least one partner (params: reason)"}
            .at({K::nic}).carries({"reason"}),
        MetricDecl{"rdma.data_path", unit::text, Better::none, "which data path measured the host's traffic, and its caveat"}
            .at({K::host}).carries({}),
        MetricDecl{"rdma.pair_ok", unit::boolean, Better::higher, "one direction of a port pair completed its traffic (params: error)"}
            .at({K::pair}).carries({"direction", "transport", "memory", "error"}),
        MetricDecl{"rdma.write_lat", unit::seconds, Better::lower, "RC RDMA write one-way latency, median (half the round trip)"}
            .at({K::pair}).carries(traffic_keys),
        MetricDecl{"rdma.write_lat_p99", unit::seconds, Better::lower, "RC RDMA write one-way latency, 99th percentile"}
            .at({K::pair}).carries(traffic_keys),
        MetricDecl{"rdma.write_bw", unit::bytes_per_second, Better::higher, "RC RDMA write bandwidth of one direction of a port pair"}
            .at({K::pair}).carries(traffic_keys),
    };
    const rdma::TrafficConfig t;
    const pairs::ScheduleOptions so;
    i.params = {
        {"transport", ParamType::string, kDefaultTransport, {}, {}, {"verbs", "loopback", "none"},
         "verbs (libibverbs), loopback (a fake through MPI, for tests) or none (port inventory only)"},
        {"ports", ParamType::list, nullptr, {}, {}, {},
         "the rails, as port names (\"mlx5_0\", \"mlx5_9:2\"), in order; default every active port, InfiniBand first"},
        {"intra_host", ParamType::boolean, so.intra_host, {}, {}, {}, "also pairs of rails inside each host"},
        {"max_rails", ParamType::integer, so.max_rails, 0, {}, {}, "at most this many rails per host (0 = all)"},
        {"bw_bytes", ParamType::integer, t.bw_bytes, 1, {}, {}, "bytes per RDMA write of the bandwidth test"},
        {"lat_bytes", ParamType::integer, t.lat_bytes, 1, {}, {}, "bytes per RDMA write of the latency ping-pong"},
        {"max_bw_iters", ParamType::integer, t.max_bw_iters, 4, {}, {}, "bandwidth writes per direction at most"},
        {"max_lat_iters", ParamType::integer, t.max_lat_iters, 20, {}, {}, "latency round trips per direction at most"},
        {"budget_s", ParamType::number, kDefaultBudgetS, 0, {}, {},
         "seconds for the whole pair schedule (at most half the probe's time left), split over pair directions"},
        {"gpudirect", ParamType::any, "auto", {}, {}, {},
         "true, false or \"auto\" (GPU memory when the peer-memory module is loaded): GPUDirect RDMA buffers"},
        {"settle_s", ParamType::number, 0.0, 0, {}, {},
         "seconds to wait at the run's end before the last reading of the error counters (counters that lag)"},
    };
    return i;
  }

  bool reads_run_bounds() const override { return true; }

  // The port error counters at the start and the end of the whole run, so that a link that
  // flaps while any probe runs shows: raw values and the host's clock, nothing derived (the
  // judge derives rises and rates from these samples, so `gpuaccept judge DIR` computes the
  // same offline). One rank per host reads.
  void read_run_bound(RunBound at, ProbeContext& ctx, SampleSink& out) override {
    if (ctx.local_rank != 0) return;
    const char* read = at == RunBound::start ? "start" : "end";
    if (at == RunBound::end) {
      const double settle = ctx.params.value("settle_s", 0.0);
      if (settle > 0) std::this_thread::sleep_for(std::chrono::duration<double>(std::min(settle, 0.5 * ctx.seconds_left())));
      if (before_end_read_) before_end_read_();
    }
    const auto ports = rdma::read_ports(ctx.sysfs_root);
    if (ports.empty()) return;
    const nlohmann::json params = {{"read", read}};
    // One clock reading for all ports: reading a few dozen sysfs files takes microseconds.
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    out.value(place::host(ctx.hostname), "rdma.counters_read_at", now, unit::seconds, params);
    for (const auto& p : ports)
      for (const auto& [name, v] : rdma::read_error_counters(ctx.sysfs_root, p))
        out.value(place::nic(ctx.hostname, p.place_name()), "rdma.counter." + name, static_cast<double>(v), unit::count,
                  params);
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    const auto ports = rdma::read_ports(ctx.sysfs_root);
    const bool inventory_rank = ctx.local_rank == 0;
    if (inventory_rank) emit_inventory(ctx, ports, out);

    // Traffic. Every rank walks the schedule (it is collective), with or without a port.
    std::string traffic_note;
    std::string failure;
    const std::string mode = ctx.params.value("transport", std::string(kDefaultTransport));
    std::unique_ptr<rdma::Transport> transport;
    std::optional<rdma::PortInfo> mine = choose_port(ports, ctx.params, ctx.local_rank);
    if (mode == "none" || ports.empty()) {
      mine.reset();
      traffic_note = mode == "none" ? "no traffic (transport: none)" : "";
    } else if (mode == "loopback") {
      transport = rdma::make_loopback_transport(ctx.comm);
      traffic_note = "traffic through the loopback fake (the communicator's speed, not the ports')";
    } else if (mode == "verbs") {
      const auto devs = rdma::list_verbs_devices();
      if (devs.devices.empty()) {
        mine.reset();
        if (ctx.sysfs_root.empty())
          failure = "sysfs lists " + std::to_string(ports.size()) + " RDMA ports but libibverbs cannot use them: " + devs.error;
        else
          traffic_note = "no traffic: the ports come from the recorded tree " + ctx.sysfs_root + " and libibverbs sees no devices (" + devs.error + ")";
      } else {
        try {
          transport = rdma::make_verbs_transport();
        } catch (const std::exception& e) {
          failure = e.what();
          mine.reset();
        }
        traffic_note = std::string("RC RDMA write through libibverbs: ") + kCaveat;
      }
    } else {
      return Outcome::failed("unknown transport \"" + mode + "\" (verbs, loopback or none)");
    }

    pairs::ScheduleOptions so;
    so.unit = pairs::PairUnit::rail;
    so.intra_host = ctx.params.value("intra_host", true);
    so.max_rails = ctx.params.value("max_rails", 0);
    const auto sched = pairs::build_pair_schedule(ctx.rank_hosts, so);
    rdma::TrafficConfig cfg;
    cfg.bw_bytes = ctx.params.value("bw_bytes", cfg.bw_bytes);
    cfg.lat_bytes = std::max<std::size_t>(1, ctx.params.value("lat_bytes", cfg.lat_bytes));
    cfg.max_bw_iters = ctx.params.value("max_bw_iters", cfg.max_bw_iters);
    cfg.max_lat_iters = ctx.params.value("max_lat_iters", cfg.max_lat_iters);
    // Every rank must agree on the budget; the slowest rank's deadline sets it.
    const double left = ctx.comm.allreduce_min(ctx.seconds_left());
    cfg.budget_s = std::min(ctx.params.value("budget_s", kDefaultBudgetS), 0.5 * left);
    // GPUDirect only when every rank with a port can do it: both ends of a pair must agree on
    // the phases they run (GPU buffers skip the CPU-polled latency ping-pong).
    std::string gpu_bus;
    if (mine && transport && transport->name() == "verbs") {
      const std::string gd = ctx.params.contains("gpudirect") ? ctx.params.at("gpudirect").dump() : "\"auto\"";
      const bool want = gd == "true" || (gd == "\"auto\"" && peer_memory_present(ctx.sysfs_root));
      if (want)
        for (const auto& g : ctx.host.gpus)
          if (g.pci_bus_id && std::find(g.nearest_nics.begin(), g.nearest_nics.end(), mine->device) != g.nearest_nics.end()) {
            gpu_bus = *g.pci_bus_id;
            break;
          }
    }
    const bool gpu_ok = !mine || !transport || !gpu_bus.empty();
    const bool anyone = ctx.comm.allreduce_max(mine && transport ? 1.0 : 0.0) > 0;
    cfg.gpu_memory = anyone && ctx.comm.allreduce_min(gpu_ok ? 1.0 : 0.0) > 0;
    cfg.gpu_pci_bus_id = gpu_bus;
    rdma::TrafficStats st;
    {
      // The pair traffic runs next to its NIC; the next probe gets the old binding back.
      gpu::NumaBinding bind(mine ? mine->numa_node : std::nullopt);
      auto loop = rdma::make_loopback_transport(ctx.comm);  // never used without a port: keeps the walk collective
      st = rdma::run_pair_traffic(ctx, sched, transport ? *transport : *loop, transport ? mine : std::nullopt, cfg, out);
    }

    if (inventory_rank && !ports.empty() && mode != "none") {
      // The report's metrics say which data path measured this host, and whether anyone has
      // validated it (the summary line of an ok probe carries no reason).
      out.text(place::host(ctx.hostname), "rdma.data_path",
               mode == "verbs" ? std::string("libibverbs RC RDMA write: ") + kCaveat
               : "loopback fake over MPI: the communicator's speed, not the ports'");
    }
    if (ports.empty()) return Outcome::skipped(no_devices_reason(ctx));
    if (!failure.empty()) return Outcome::failed(failure);
    std::string why = traffic_note;
    if (st.pairs_measured)
      why += (why.empty() ? "" : "; ") + std::to_string(st.pairs_measured) + " directions measured, " +
             std::to_string(st.pairs_failed) + " failed";
    // Until someone runs it on RDMA hardware, every verbs run says so in the report.
    if (mode == "verbs" && why.find(kCaveat) == std::string::npos) why += (why.empty() ? "" : "; ") + std::string(kCaveat);
    return Outcome::ok(why);
  }

 private:
  static std::string no_devices_reason(const ProbeContext& ctx) {
    if (!ctx.sysfs_root.empty()) return "no RDMA devices: " + ctx.sysfs_root + "/sys/class/infiniband has none";
    const auto devs = rdma::list_verbs_devices();
    std::string why = "no RDMA devices: /sys/class/infiniband has none";
    if (!devs.error.empty()) why += "; " + devs.error;
    return why;
  }

  void emit_inventory(const ProbeContext& ctx, const std::vector<rdma::PortInfo>& ports, SampleSink& out) const {
    for (const auto& p : ports) {
      const std::string where = place::nic(ctx.hostname, p.place_name());
      out.value(where, "rdma.port_active", p.active() ? 1 : 0, unit::boolean);
      out.text(where, "rdma.state", p.state.empty() ? "unknown" : p.state);
      out.text(where, "rdma.phys_state", p.phys_state.empty() ? "unknown" : p.phys_state);
      // The link layer travels with the rate so that criteria can hold InfiniBand ports
      // against each other without mixing in front-end Ethernet.
      if (p.rate_gbps) out.value(where, "rdma.rate_gbps", *p.rate_gbps, "Gb/s", {{"link_layer", p.link_layer}});
      if (p.width) out.value(where, "rdma.width", *p.width, unit::count);
      out.text(where, "rdma.link_layer", p.link_layer.empty() ? "unknown" : p.link_layer);
      if (p.active_mtu) out.value(where, "rdma.mtu", *p.active_mtu, unit::bytes);
      out.value(where, "rdma.is_vf", p.is_vf ? 1 : 0, unit::boolean);
      if (p.ethernet()) {
        out.value(where, "rdma.roce_v2_gid", p.roce_v2_gid_index ? 1 : 0, unit::boolean);
        if (p.roce_v2_gid_index) out.value(where, "rdma.roce_v2_gid_index", *p.roce_v2_gid_index, unit::count);
      }
      if (!p.fw_ver.empty()) out.text(where, "rdma.fw", p.fw_ver);
      if (!p.node_guid.empty()) out.text(where, "rdma.node_guid", p.node_guid);
      if (p.numa_node) out.value(where, "rdma.numa_node", *p.numa_node, unit::count);
    }
  }

  std::function<void()> before_end_read_;
};

}  // namespace

std::unique_ptr<Probe> make_rdma_probe() { return std::make_unique<RdmaProbe>(); }
std::unique_ptr<Probe> make_rdma_probe_with_hook(std::function<void()> before_end_read) {
  return std::make_unique<RdmaProbe>(std::move(before_end_read));
}

}  // namespace ga
