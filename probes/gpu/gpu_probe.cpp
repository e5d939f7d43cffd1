// gpu: per GPU health and bandwidths. HBM (device copy), host<->device from the GPU's own NUMA
// node and a remote one, the peer-to-peer matrix, bf16/fp16 GEMM through cuBLAS, memory, and
// the NVML readings (ECC, row remapping, NVLink, PCIe link under load, clocks, temperature,
// power, throttle reasons), plus XID errors from the kernel log.
//
// Everything vendor is loaded at run time (gpu_libraries.hpp). The decision table is
// gpu_presence.hpp's. The GPU's place is HOST/gpu:N with N the topology's logical index,
// matched by PCI bus id; the CUDA ordinal is only recorded.
//
// Parts that are switched on and cannot be measured fail the probe on that host, naming the
// library or call: NVML and cuBLAS missing included (NVML ships with every driver; a GPU
// host whose NVML does not load is broken, and a GEMM figure asked for and absent is a gap,
// not a pass). The other measurements are still emitted.
#include <limits>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>

#include "probes/vendor/cublas_api.hpp"
#include "probes/vendor/cuda_driver.hpp"
#include "probes/devices/gpu_assign.hpp"
#include "probes/gpu/gpu_measure.hpp"
#include "probes/devices/gpu_models.hpp"
#include "probes/devices/gpu_presence.hpp"
#include "probes/vendor/nvml_api.hpp"
#include "probes/devices/memory_share.hpp"
#include "probes/gpu/xid_catalogue.hpp"
#include "probes/devices/xid_log.hpp"
#include "probes/probe.hpp"
#include "topology/place.hpp"
#include "base/units.hpp"

namespace ga {
namespace {

using namespace ga::gpu;

constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::size_t kStateCopyBytes = 64 * kMiB;  // checks: state, per host-to-device copy
constexpr const char* kErrorsPerSecond = "errors/s";
constexpr int kMaxNvLinks = 18;  // NVML_NVLINK_MAX_LINKS in the 525-550 drivers

struct GpuParams {
  std::size_t hbm_bytes = 1024 * kMiB;  // per buffer; capped by the memory share
  double memory_share = 0.25;
  std::size_t h2d_bytes = 256 * kMiB;
  std::size_t p2p_bytes = 256 * kMiB;
  int gemm_n = 8192;
  bool gemm = true, p2p = true, remote_numa = true, xid = true;
  // checks: state. Only the GPU's state (what `gpuaccept health` needs within Slurm's 60 s):
  // NVML readings, XIDs, and the PCIe link read while a short host-to-device copy loads it
  // (an idle link trains down, so it cannot be read idle). No HBM, GEMM, remote-NUMA or P2P
  // measurement and no bandwidth figure: the copies are load, not a measurement.
  bool state_only = false;
  int iterations = 5, warmup = 2;
  int min_driver = kMinCudaDriverVersion;
  std::string kmsg = "/dev/kmsg";
  std::string xid_severity;  // buckets moved from the catalogue's severity ("RESTART_APP=node,...")
};

int mib(std::size_t bytes) { return static_cast<int>(bytes / kMiB); }

// The defaults are GpuParams' own (param_decls() declares the same).
GpuParams params_of(const nlohmann::json& p) {
  GpuParams g;
  g.hbm_bytes = p.value("hbm_mib", mib(g.hbm_bytes)) * kMiB;
  g.h2d_bytes = p.value("h2d_mib", mib(g.h2d_bytes)) * kMiB;
  g.p2p_bytes = p.value("p2p_mib", mib(g.p2p_bytes)) * kMiB;
  g.gemm_n = p.value("gemm_n", g.gemm_n);
  g.memory_share = p.value("memory_share", g.memory_share);
  if (!(g.memory_share > 0 && g.memory_share < 1)) throw std::invalid_argument("gpu params: memory_share must be in (0, 1)");
  g.gemm = p.value("gemm", g.gemm);
  g.p2p = p.value("p2p", g.p2p);
  g.remote_numa = p.value("remote_numa", g.remote_numa);
  g.xid = p.value("xid", g.xid);
  g.iterations = p.value("iterations", g.iterations);
  g.warmup = p.value("warmup", g.warmup);
  g.min_driver = p.value("min_cuda_driver", g.min_driver);
  g.kmsg = p.value("kernel_log", g.kmsg);
  g.xid_severity = p.value("xid_severity", g.xid_severity);
  XidCatalogue::builtin().with_severity(g.xid_severity);  // a bucket or severity that is not one: say so now
  g.state_only = p.value("checks", std::string("all")) == "state";
  if (g.state_only) g.gemm = g.p2p = g.remote_numa = false;
  if (g.hbm_bytes == 0 || g.h2d_bytes == 0 || g.p2p_bytes == 0 || g.gemm_n < 64 || g.iterations < 1 || g.warmup < 0)
    throw std::invalid_argument("gpu params: hbm_mib, h2d_mib, p2p_mib, iterations must be >= 1, gemm_n >= 64, warmup >= 0");
  return g;
}

std::vector<ParamDecl> param_decls() {
  const GpuParams d;
  return {
      {"hbm_mib", ParamType::integer, mib(d.hbm_bytes), 1, {}, {},
       "MiB per buffer of the device copy (capped: the two buffers within memory_share)"},
      {"memory_share", ParamType::number, d.memory_share, 0, 1, {},
       "share, in (0, 1), of the GPU's free memory that each test's device buffers may take, and of the host's "
       "MemAvailable divided among its ranks that its host buffers may take (h2d_mib, p2p_mib, gemm_n, hbm_mib are "
       "lowered to fit; the samples' params say what was used)"},
      {"h2d_mib", ParamType::integer, mib(d.h2d_bytes), 1, {}, {}, "MiB per host<->device copy"},
      {"p2p_mib", ParamType::integer, mib(d.p2p_bytes), 1, {}, {}, "MiB per peer-to-peer copy"},
      {"gemm_n", ParamType::integer, d.gemm_n, 64, {}, {}, "n of the n x n x n bf16/fp16 GEMM"},
      {"gemm", ParamType::boolean, d.gemm, {}, {}, {}, "measure the GEMM rate through cuBLAS"},
      {"p2p", ParamType::boolean, d.p2p, {}, {}, {}, "measure the peer-to-peer matrix of each host's GPUs"},
      {"remote_numa", ParamType::boolean, d.remote_numa, {}, {}, {},
       "also measure host<->device copies from a NUMA node other than the GPU's"},
      {"xid", ParamType::boolean, d.xid, {}, {}, {}, "count XID errors in the kernel log"},
      {"iterations", ParamType::integer, d.iterations, 1, {}, {}, "timed copies or GEMMs per measurement"},
      {"warmup", ParamType::integer, d.warmup, 0, {}, {}, "untimed copies or GEMMs before each measurement"},
      {"min_cuda_driver", ParamType::integer, d.min_driver, 0, {}, {},
       "oldest CUDA driver API version accepted (12000 = 12.0)"},
      {"kernel_log", ParamType::string, d.kmsg, {}, {}, {}, "where the XID errors are read from"},
      {"xid_severity", ParamType::string, d.xid_severity, {}, {}, {},
       "Xid catalogue buckets moved between node (gpu.xid_errors, an error: drain) and application "
       "(gpu.xid_app_errors, a warning), e.g. RESTART_APP=node,IGNORE=application; default: the catalogue's "
       "severity (docs/gpu.md)"},
      {"checks", ParamType::string, "all", {}, {}, {"all", "state"},
       "all: every measurement; state: the GPU's state only (NVML readings, XIDs, the PCIe link read during a "
       "short host-to-device copy that loads it), no HBM, GEMM, remote-NUMA, P2P or bandwidth figure (gpuaccept "
       "health)"},
      {"cuda_library", ParamType::string, nullptr, {}, {}, {},
       "path of libcuda; default $GPUACCEPT_CUDA_LIBRARY, then libcuda.so.1"},
      {"nvml_library", ParamType::string, nullptr, {}, {}, {},
       "path of libnvidia-ml; default $GPUACCEPT_NVML_LIBRARY, then libnvidia-ml.so.1"},
      {"cublas_library", ParamType::string, nullptr, {}, {}, {},
       "path of libcublas; default $GPUACCEPT_CUBLAS_LIBRARY, then libcublas.so.12, .13, .11 (also in /usr/local/cuda)"},
  };
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string join(const std::vector<std::string>& v, const char* sep = "; ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// Expected active NVLinks of a GPU from the topology: through NVSwitch every pair states the
// GPU's whole link count (NV18); in a direct mesh (DGX-1) the links to each peer add up.
std::optional<int> expected_nvlinks(const topo::HostTopology& h, int index) {
  int sum = 0, most = 0;
  bool any = false, switched = false;
  for (const auto& l : h.gpu_links) {
    if (l.a != index && l.b != index) continue;
    if (l.type != "nvlink" && l.type != "nvswitch") continue;
    any = true;
    switched = switched || l.type == "nvswitch";
    sum += l.count;
    most = std::max(most, l.count);
  }
  if (!any) return std::nullopt;
  return switched ? most : sum;
}

// One sample per timed repetition, iter numbering them, so the judge sees the spread.
void emit_series(SampleSink& out, const std::string& place, const std::string& metric, const std::vector<double>& vals,
                 const std::string& unit, const nlohmann::json& params) {
                 for (std::size_t i = 0; i < vals.size(); ++i) out.value(place, metric, vals[i], unit, params, static_cast<int>(i));
}

class GpuProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "gpu";
    i.summary =
        "per GPU: HBM copy, pinned host<->device from local and remote NUMA, P2P matrix, bf16/fp16 GEMM, "
        "memory, ECC, row remapping, XID, NVLink, PCIe link under load, clocks, temperature, power, throttling";
    i.needs = {true, false, false};
    i.caveat = "not yet validated on a GPU host: every path runs here only against fake libraries";
    // Per GPU at HOST/gpu:N; the P2P matrix at the pair of GPUs; the drivers at HOST.
    using K = place::Kind;
    const std::vector<std::string> copy_keys = {"bytes", "mem_numa", "gpu_numa", "numa_bound"};  // host<->device
    i.metrics = {
        MetricDecl{"gpu.model", unit::text, Better::none, "the GPU's name as CUDA reports it (params: PCI bus id, CUDA ordinal)"}
            .at({K::gpu}).carries({"pci_bus_id", "cuda_ordinal", "compute_capability", "sm_count"}),
        MetricDecl{"gpu.memory_total", unit::bytes, Better::none, "the GPU's memory"}.at({K::gpu}).carries({}),
        MetricDecl{"gpu.memory_free", unit::bytes, Better::higher, "the GPU's free memory before the probe's buffers"}
            .at({K::gpu}).carries({"device_free", "host_available", "local_ranks", "memory_share"}),
        MetricDecl{"gpu.hbm_bw", unit::bytes_per_second, Better::higher,
         "device-to-device copy bandwidth, read and write counted, one sample per repetition"}
            .at({K::gpu}).carries({"bytes", "counted"}),
        MetricDecl{"gpu.hbm_theoretical_bw", unit::bytes_per_second, Better::none, "the GPU model's memory bandwidth on paper"}
            .at({K::gpu}).carries({"model", "source"}),
        MetricDecl{"gpu.hbm_bw_of_theory", unit::percent, Better::higher, "median gpu.hbm_bw in percent of the paper figure"}
            .at({K::gpu}).carries({"model"}),
        MetricDecl{"gpu.h2d_bw", unit::bytes_per_second, Better::higher, "pinned host-to-device copy bandwidth from the GPU's NUMA node"}
            .at({K::gpu}).carries(copy_keys),
        MetricDecl{"gpu.d2h_bw", unit::bytes_per_second, Better::higher, "pinned device-to-host copy bandwidth to the GPU's NUMA node"}
            .at({K::gpu}).carries(copy_keys),
        MetricDecl{"gpu.h2d_bw_remote", unit::bytes_per_second, Better::higher,
         "pinned host-to-device copy bandwidth from another NUMA node"}
            .at({K::gpu}).carries(copy_keys),
        MetricDecl{"gpu.d2h_bw_remote", unit::bytes_per_second, Better::higher,
         "pinned device-to-host copy bandwidth to another NUMA node"}
            .at({K::gpu}).carries(copy_keys),
        MetricDecl{"gpu.h2d_bw_of_theory", unit::percent, Better::higher,
         "median local gpu.h2d_bw in percent of the PCIe link's paper figure"}
            .at({K::gpu}).carries({"gen", "width"}),
        MetricDecl{"gpu.d2h_bw_of_theory", unit::percent, Better::higher,
         "median local gpu.d2h_bw in percent of the PCIe link's paper figure"}
            .at({K::gpu}).carries({"gen", "width"}),
        MetricDecl{"gpu.pcie_link_gen", unit::count, Better::none, "PCIe generation of the link, read during a host-to-device copy"}
            .at({K::gpu}).carries({"read"}),
        MetricDecl{"gpu.pcie_link_width", unit::count, Better::none, "PCIe lanes of the link, read during a host-to-device copy"}
            .at({K::gpu}).carries({"read"}),
        MetricDecl{"gpu.pcie_link_gen_max", unit::count, Better::none, "the highest PCIe generation the link can train to"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.pcie_link_width_max", unit::count, Better::none, "the most PCIe lanes the link can train to"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.pcie_gen_below_max", unit::count, Better::lower, "PCIe generations the loaded link runs below its maximum"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.pcie_width_below_max", unit::count, Better::lower, "PCIe lanes the loaded link runs below its maximum"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.pcie_theoretical_bw", unit::bytes_per_second, Better::none,
         "paper bandwidth of the link at its maximum generation and width"}
            .at({K::gpu}).carries({"gen", "width"}),
        MetricDecl{"gpu.gemm_flops", unit::flops, Better::higher,
         "cuBLAS n x n x n GEMM rate (params: dtype bf16 or fp16), one sample per repetition"}
            .at({K::gpu}).carries({"dtype", "n", "cublas_version"}),
        MetricDecl{"gpu.gemm_theoretical_flops", unit::flops, Better::none, "the GPU model's dense GEMM rate on paper, per dtype"}
            .at({K::gpu}).carries({"dtype", "model"}),
        MetricDecl{"gpu.gemm_of_theory", unit::percent, Better::higher, "median gpu.gemm_flops in percent of the paper figure"}
            .at({K::gpu}).carries({"dtype"}),
        MetricDecl{"gpu.p2p_access", unit::boolean, Better::higher, "the driver reports peer access from one GPU to another"}
            .at({K::pair}).carries({}),
        MetricDecl{"gpu.p2p_bw", unit::bytes_per_second, Better::higher, "peer-to-peer copy bandwidth from one GPU to another"}
            .at({K::pair}).carries({"bytes", "peer_access"}),
        MetricDecl{"gpu.temperature", "degC", Better::lower, "GPU temperature (NVML)"}.at({K::gpu}).carries({}),
        MetricDecl{"gpu.power", "W", Better::none, "GPU power draw (NVML)"}.at({K::gpu}).carries({}),
        MetricDecl{"gpu.clock_sm", "MHz", Better::none, "current SM clock (NVML)"}.at({K::gpu}).carries({}),
        MetricDecl{"gpu.clock_mem", "MHz", Better::none, "current memory clock (NVML)"}.at({K::gpu}).carries({}),
        MetricDecl{"gpu.clock_sm_max", "MHz", Better::none, "the highest SM clock (NVML)"}.at({K::gpu}).carries({}),
        MetricDecl{"gpu.throttle_reasons", unit::text, Better::none, "active clock throttle reasons by name (params: mask)"}
            .at({K::gpu}).carries({"mask"}),
        MetricDecl{"gpu.throttle_hw", unit::boolean, Better::lower,
         "a hardware throttle reason (slowdown, thermal, power brake) is active"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.ecc_enabled", unit::boolean, Better::higher, "ECC is enabled"}.at({K::gpu}).carries({}),
        MetricDecl{"gpu.ecc_corrected_volatile", unit::count, Better::lower, "corrected ECC errors since the driver loaded"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.ecc_uncorrected_volatile", unit::count, Better::lower, "uncorrected ECC errors since the driver loaded"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.ecc_corrected_aggregate", unit::count, Better::lower, "corrected ECC errors over the GPU's life"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.ecc_uncorrected_aggregate", unit::count, Better::lower, "uncorrected ECC errors over the GPU's life"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.remapped_rows_corrected", unit::count, Better::lower, "memory rows remapped for correctable errors"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.remapped_rows_uncorrected", unit::count, Better::lower, "memory rows remapped for uncorrectable errors"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.remapped_rows_pending", unit::boolean, Better::lower, "a row remapping waits for a GPU reset"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.remapped_rows_failure", unit::boolean, Better::lower, "a row remapping failed"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.nvlink_active", unit::count, Better::none, "NVLinks of the GPU that are active"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.nvlink_expected", unit::count, Better::none, "NVLinks the topology gives the GPU"}
            .at({K::gpu}).carries({"source"}),
        MetricDecl{"gpu.nvlink_inactive", unit::count, Better::lower, "NVLinks the topology expects that are not active"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.xid_errors", unit::count, Better::lower,
         "XID errors of the GPU in the kernel log whose catalogue bucket points at the hardware or the node (params: "
         "codes, actions)"}
            .at({K::gpu}).carries({"source", "codes", "reason", "actions", "catalogue"}),
        MetricDecl{"gpu.xid_app_errors", unit::count, Better::lower,
         "XID errors of the GPU in the kernel log whose catalogue bucket points at the application (params: codes, "
         "actions)"}
            .at({K::gpu}).carries({"source", "codes", "reason", "actions", "catalogue"}),
        // Identity: the card an operator returns (also in the topology, so every GPU row shows it).
        MetricDecl{"gpu.pci_bus_id", unit::text, Better::none, "the GPU's PCI bus id as NVML reports it"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.uuid", unit::text, Better::none, "the GPU's UUID (NVML), the id nvidia-smi and the driver's logs use"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.serial", unit::text, Better::none, "the board's serial number (NVML), the one on the card's label"}
            .at({K::gpu}).carries({}),
        // NVLink error counters: read at the run's start and end (read_run_bound); the judge
        // derives the rise and rates (suites/rdma_rates.hpp), declared here as the samples' owner.
        MetricDecl{"gpu.nvlink_counter.*", unit::count, Better::none,
         "one NVLink data-link error counter of the GPU, summed over its links, as read (params read: start or end "
         "of the run, links: how many were read); suffix: replay, recovery, crc_flit, crc_data"}
            .at({K::gpu}).carries({"read", "links"}),
        MetricDecl{"gpu.nvlink_counters_read_at", unit::seconds, Better::none,
         "when the host read its GPUs' NVLink counters, on its monotonic clock (params read: start or end of the run)"}
            .at({K::host}).carries({"read"}),
        // Derived by the judge (suites/rdma_rates.cpp) at the counters' place, without params.
        MetricDecl{"gpu.nvlink_counter_rise.*", unit::count, Better::lower,
         "how much one NVLink error counter of the GPU rose between the run's first and last reading (derived by the "
         "judge; a counter that went down was reset and counts its new value)"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.nvlink_counter_rate.*", kErrorsPerSecond, Better::lower,
         "crc_flit and crc_data: the GPU's NVLink CRC errors over the run per second of it (derived by the judge)"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.nvlink_counter_interval", unit::seconds, Better::none,
         "seconds between the run's first and last reading of the GPU's NVLink counters (derived by the judge)"}
            .at({K::gpu}).carries({}),
        MetricDecl{"gpu.cuda_driver", unit::text, Better::none, "the CUDA driver API version (params: library)"}
            .at({K::host}).carries({"library"}),
        MetricDecl{"gpu.nvidia_driver", unit::text, Better::none, "the NVIDIA driver version (NVML)"}
            .at({K::host}).carries({}),
    };
    i.params = param_decls();
    return i;
  }

  std::optional<ParamProblem> check_config(const nlohmann::json& params) const override {
    return check_params_and_parse(info(), params, [](const nlohmann::json& p) {
      params_of(p);
      library_paths(p);
    });
  }

  bool reads_run_bounds() const override { return true; }

  // The NVLink error counters of every GPU of the host at the start and the end of the whole
  // run, as the rdma probe reads its ports' (a link that replays or fails CRC while any probe
  // runs shows): raw sums over each GPU's links and the host's clock, nothing derived (the
  // judge derives rises and rates, so `gpuaccept judge DIR` computes the same offline). The
  // host's first rank reads; a host without NVIDIA GPUs or NVML, or GPUs without NVLink, adds
  // nothing (the run's probe says why).
  void read_run_bound(RunBound at, ProbeContext& ctx, SampleSink& out) override {
    if (ctx.local_rank != 0) return;
    LibraryPaths paths;
    try {
      paths = library_paths(ctx.params);
    } catch (const std::exception&) {
      return;  // the run's probe fails on the same params, naming them
    }
    const auto gpus = nvidia_gpus_on_bus(ctx.host, ctx.sysfs_root);
    if (gpus.empty()) return;
    const Nvml nvml(paths.nvml);
    if (!nvml.ok()) return;
    const nlohmann::json read = {{"read", at == RunBound::start ? "start" : "end"}};
    bool clock = false;
    for (const auto& g : gpus) {
      const auto d = nvml.device_by_pci(g.pci_bus_id, nullptr);
      if (!d) continue;
      const auto e = d->nvlink_errors(kMaxNvLinks);
      if (!e) continue;
      if (!clock) {
        const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
        out.value(place::host(ctx.hostname), "gpu.nvlink_counters_read_at", now, unit::seconds, read);
        clock = true;
      }
      nlohmann::json p = read;
      p["links"] = e.value->links;
      const std::string where = place::gpu(ctx.hostname, g.index);
      out.value(where, "gpu.nvlink_counter.replay", double(e.value->replay), unit::count, p);
      out.value(where, "gpu.nvlink_counter.recovery", double(e.value->recovery), unit::count, p);
      out.value(where, "gpu.nvlink_counter.crc_flit", double(e.value->crc_flit), unit::count, p);
      out.value(where, "gpu.nvlink_counter.crc_data", double(e.value->crc_data), unit::count, p);
    }
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    // Every rank makes the same collective calls (one allgather, one barrier) whatever it
    // finds, so a host without GPUs never leaves the others waiting.
    const auto rank_numa = local_rank_numa(ctx.comm, ctx.rank_hosts, ctx.hostname);
    Outcome result = run_local(ctx, out, rank_numa);
    ctx.comm.barrier();  // phase 2: the host's first rank alone uses every GPU
    if (result.status != ProbeStatus::skipped && access_ && !access_->stop && ctx.local_rank == 0 && params_.p2p) {
      std::vector<std::string> problems;
      try {
        measure_p2p(ctx, out, problems);
      } catch (const std::exception& e) {
        problems.push_back(std::string("p2p: ") + e.what());
      }
      if (!problems.empty()) {
        const std::string why = join(problems);
        result = Outcome::failed(result.status == ProbeStatus::failed ? result.reason + "; " + why : why);
      }
    }
    access_.reset();
    return result;
  }

 private:
  Outcome run_local(ProbeContext& ctx, SampleSink& out, const std::vector<std::optional<int>>& rank_numa) {
    access_.reset();
    try {
      params_ = params_of(ctx.params);
      paths_ = library_paths(ctx.params);
    } catch (const std::exception& e) {
      return Outcome::tool_error(e.what());  // the user's value, checked before the run too
    }
    std::string source;
    const auto on_bus = nvidia_gpus_on_bus(ctx.host, ctx.sysfs_root, &source);
    AccessOptions opt;
    opt.min_driver_version = params_.min_driver;
    opt.cuda_visible_devices_set = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
    access_ = std::make_unique<GpuAccess>(open_gpus(on_bus, paths_, opt));
    if (access_->stop) return *access_->stop;

    std::vector<std::string> problems, notes = access_->notes;
    if (!access_->failure.empty()) problems.push_back(access_->failure);
    Nvml nvml(paths_.nvml);
    if (!nvml.ok()) problems.push_back("NVML unusable, so ECC, row remapping, NVLink, PCIe link, clocks, temperature, "
                                       "power and throttle readings are absent: " + nvml.error());
    if (ctx.local_rank == 0) {
      out.text(place::host(ctx.hostname), "gpu.cuda_driver", cuda_version_text(access_->driver_version),
               {{"library", access_->driver->path()}});
      if (nvml.ok()) out.text(place::host(ctx.hostname), "gpu.nvidia_driver", nvml.driver_version());
    }
    std::unique_ptr<Cublas> cublas;
    bool cublas_missing = false;  // cuBLAS did not load: alone, whose fault it is is settled across hosts
    if (params_.gemm) {
      cublas = std::make_unique<Cublas>(paths_.cublas);
      if (!cublas->loaded()) {
        problems.push_back("cuBLAS unusable, so no GEMM rate: " + cublas->error());
        cublas_missing = true;
      }
    }
    std::optional<std::map<std::string, XidEvents>> xids;
    if (params_.xid) {
      std::string why;
      if (auto lines = read_kernel_log(params_.kmsg, &why)) xids = count_xids(*lines);
      else notes.push_back("XID errors not read (NVML keeps no history; the kernel log is the only source): " + why);
    }

    // My GPUs: this host's matched GPUs shared among its ranks.
    std::vector<PciGpu> pci;
    for (const auto& g : access_->gpus) pci.push_back(g.pci);
    const auto assignment = assign_gpus(pci, rank_numa);
    const std::size_t me = static_cast<std::size_t>(ctx.local_rank);
    if (me >= assignment.size() || assignment[me].empty()) {
      notes.push_back("no GPU left for local rank " + std::to_string(ctx.local_rank));
      return problems.empty() ? Outcome::ok(join(notes)) : Outcome::failed(join(problems));
    }
    for (std::size_t pos : assignment[me]) {
      const auto& g = access_->gpus[pos];
      try {
        measure_one(ctx, out, g, nvml, cublas.get(), xids, problems, notes);
      } catch (const std::exception& e) {
        problems.push_back(place::gpu(ctx.hostname, g.pci.index) + ": " + e.what());
      }
    }
    if (problems.size() == 1 && cublas_missing) return Outcome::missing_library(problems.front());
    if (!problems.empty()) return Outcome::failed(join(problems));
    return Outcome::ok(join(notes));
  }

  void measure_one(ProbeContext& ctx, SampleSink& out, const MatchedGpu& g, const Nvml& nvml, const Cublas* cublas,
                   const std::optional<std::map<std::string, XidEvents>>& xids, std::vector<std::string>& problems,
                   std::vector<std::string>& notes) {
    const CudaDriver& d = *access_->driver;
    const std::string where = place::gpu(ctx.hostname, g.pci.index);
    const double share = std::max(1.0, ctx.seconds_left() * 0.5);  // budget of this GPU's timed parts
    auto budget = [&](double fraction) { return std::max(0.05, std::min(share * fraction, ctx.seconds_left() * 0.2)); };
    out.text(where, "gpu.model", g.cuda.name,
             {{"pci_bus_id", g.pci.pci_bus_id}, {"cuda_ordinal", g.cuda.ordinal},
              {"compute_capability", std::to_string(g.cuda.cc_major) + "." + std::to_string(g.cuda.cc_minor)},
              {"sm_count", g.cuda.sm_count}});
    DeviceContext dev(d, g.cuda.ordinal);
    Stream stream(d);
    std::size_t free_b = 0, total_b = 0;
    d.mem_get_info(&free_b, &total_b);
    out.value(where, "gpu.memory_total", double(total_b), unit::bytes);
    const MemoryShare mem{free_b, host_mem_available(), ctx.local_size, params_.memory_share};
    out.value(where, "gpu.memory_free", double(free_b), unit::bytes, mem.params());
    // Every buffer fits the share: device buffers of one test together within the device
    // share, host buffers within the host share (a "device" may be host memory, as on the fakes).
    auto fit = [](std::size_t want, std::size_t limit) {
      return std::max<std::size_t>(kMiB, std::min(want, limit) / kMiB * kMiB);
    };
    const auto spec = model_spec(g.cuda.name);
    if (!spec) notes.push_back(where + ": model \"" + g.cuda.name + "\" has no theoretical HBM/GEMM figures in gpu_models.cpp");

    std::optional<Nvml::Device> nd;
    if (nvml.ok()) {
      std::string why;
      nd = nvml.device_by_pci(g.pci.pci_bus_id, &why);
      if (!nd) problems.push_back(where + ": " + why);
    }

    // HBM: a device-to-device copy reads and writes every byte; both are counted, as STREAM
    // copy and nvbandwidth's device-local copy do.
    if (!params_.state_only) {
      const std::size_t bytes = fit(params_.hbm_bytes, mem.device_bytes() / 2);
      DeviceBuffer a(d, bytes), b(d, bytes);
      d.memset_d8(a.ptr(), 0x5a, bytes, stream.handle());
      const auto secs = time_ops(d, stream, {params_.warmup, params_.iterations, budget(0.15)},
                                 [&] { d.memcpy_dtod(b.ptr(), a.ptr(), bytes, stream.handle()); });
      std::vector<double> bw;
      for (double s : secs) bw.push_back(2.0 * double(bytes) / s);
      emit_series(out, where, "gpu.hbm_bw", bw, unit::bytes_per_second, {{"bytes", bytes}, {"counted", "read+write"}});
      if (spec) {
        out.value(where, "gpu.hbm_theoretical_bw", spec->hbm_bytes_per_s, unit::bytes_per_second,
                  {{"model", spec->family}, {"source", spec->source}});
        out.value(where, "gpu.hbm_bw_of_theory", 100.0 * median(bw) / spec->hbm_bytes_per_s, unit::percent,
                  {{"model", spec->family}});
      }
    }

    // Host <-> device from the GPU's own NUMA node and from one other; the link state is read
    // while the local host-to-device copies run (an idle link trains down to Gen1).
    {
      const auto nodes = host_numa_nodes();
      const int local = g.pci.numa_node.value_or(nodes.empty() ? 0 : nodes.front());
      std::optional<int> remote;
      for (int n : nodes)
        if (n != local && !remote) remote = n;
      std::optional<unsigned> gen_live, width_live;
      double h2d_local = 0, d2h_local = 0;
      for (int pass = 0; pass < 2; ++pass) {
        const bool is_local = pass == 0;
        if (!is_local && (!remote || !params_.remote_numa)) break;
        const int mem_numa = is_local ? local : *remote;
        // State only: enough traffic to train the link up (tens of milliseconds on Gen4), no more.
        const std::size_t want = params_.state_only ? std::min(params_.h2d_bytes, kStateCopyBytes) : params_.h2d_bytes;
        const std::size_t bytes = fit(want, std::min(mem.device_bytes(), mem.host_bytes()));
        NumaHostBuffer host(d, bytes, mem_numa);
        DeviceBuffer dbuf(d, bytes);
        nlohmann::json p = {{"bytes", bytes}, {"mem_numa", mem_numa}, {"gpu_numa", local}, {"numa_bound", host.bound()}};
        const auto h2d = time_ops(d, stream, {params_.warmup, params_.iterations, budget(0.08)},
                                  [&] { d.memcpy_htod(dbuf.ptr(), host.data(), bytes, stream.handle()); },
                                  [&] {
                                    if (is_local && nd) {
                                      if (auto r = nd->pcie_gen()) gen_live = *r.value;
                                      if (auto r = nd->pcie_width()) width_live = *r.value;
                                    }
                                  });
        if (params_.state_only) break;  // the link was read under load; no figure to emit
        const auto d2h = time_ops(d, stream, {params_.warmup, params_.iterations, budget(0.08)},
                                  [&] { d.memcpy_dtoh(host.data(), dbuf.ptr(), bytes, stream.handle()); });
        std::vector<double> up, down;
        for (double s : h2d) up.push_back(double(bytes) / s);
        for (double s : d2h) down.push_back(double(bytes) / s);
        emit_series(out, where, is_local ? "gpu.h2d_bw" : "gpu.h2d_bw_remote", up, unit::bytes_per_second, p);
        emit_series(out, where, is_local ? "gpu.d2h_bw" : "gpu.d2h_bw_remote", down, unit::bytes_per_second, p);
        if (is_local) {
          h2d_local = median(up);
          d2h_local = median(down);
        }
      }
      if (nd) pcie_readings(where, out, *nd, gen_live, width_live, h2d_local, d2h_local, problems);
    }

    // GEMM through cuBLAS, n x n x n, on non-zero data (zeros draw less power and would flatter
    // a power-capped GPU).
    if (params_.gemm && cublas && cublas->loaded()) {
      // Three n x n 2-byte matrices within the device share; n a multiple of 64.
      int n = params_.gemm_n;
      while (n > 64 && 3 * std::size_t(n) * std::size_t(n) * 2 > mem.device_bytes()) n -= 64;
      const std::size_t bytes = std::size_t(n) * std::size_t(n) * 2;
      DeviceBuffer a(d, bytes), b(d, bytes), c(d, bytes);
      d.memset_d8(a.ptr(), 0x3c, bytes, stream.handle());
      d.memset_d8(b.ptr(), 0x3c, bytes, stream.handle());
      Cublas::Handle h(*cublas, stream.handle());
      for (GemmType t : {GemmType::bf16, GemmType::fp16}) {
        const auto secs = time_ops(d, stream, {params_.warmup, params_.iterations, budget(0.1)},
                                   [&] { h.gemm(t, n, a.as_void(), b.as_void(), c.as_void()); });
        std::vector<double> rate;
        for (double s : secs) rate.push_back(2.0 * double(n) * n * n / s);
        emit_series(out, where, "gpu.gemm_flops", rate, unit::flops,
                    {{"dtype", to_string(t)}, {"n", n}, {"cublas_version", h.version()}});
        const double peak = spec ? (t == GemmType::bf16 ? spec->bf16_flops : spec->fp16_flops) : 0;
        if (peak > 0) {
          out.value(where, "gpu.gemm_theoretical_flops", peak, unit::flops, {{"dtype", to_string(t)}, {"model", spec->family}});
          out.value(where, "gpu.gemm_of_theory", 100.0 * median(rate) / peak, unit::percent, {{"dtype", to_string(t)}});
        }
      }
    }

    if (nd) nvml_readings(ctx, where, g, out, *nd, problems, notes);
    if (xids) {
      // Split by what the catalogue's bucket says about the node: an application's Xid (13, a
      // user's illegal instruction) is recorded as a warning, never a drain.
      const XidCatalogue cat = XidCatalogue::builtin().with_severity(params_.xid_severity);
      auto it = xids->find(xid_key(g.pci.pci_bus_id));
      std::vector<int> node_codes, app_codes;
      if (it != xids->end())
        for (int c : it->second.codes) (cat.node_fault(c) ? node_codes : app_codes).push_back(c);
      // The count is that of the codes read (count_xids counts every line it keeps a code of).
      auto emit = [&](const char* metric, const std::vector<int>& codes) {
        // What each Xid asks of the operator (NVIDIA's catalogue): the judge appends params.reason
        // to the failing verdict, so the report says what to do, not only how many.
        nlohmann::json p = {{"source", params_.kmsg}, {"codes", codes}};
        if (!codes.empty()) {
          p["reason"] = cat.reason(codes);
          nlohmann::json actions = nlohmann::json::array();
          for (int c : codes) {
            const XidEntry* e = cat.find(c);
            nlohmann::json a = {{"xid", c}, {"action", e ? e->bucket : "UNKNOWN"}};
            if (std::find(actions.begin(), actions.end(), a) == actions.end()) actions.push_back(a);
          }
          p["actions"] = actions;
          p["catalogue"] = cat.source();
        }
        out.value(where, metric, static_cast<double>(codes.size()), unit::count, p);
      };
      emit("gpu.xid_errors", node_codes);
      emit("gpu.xid_app_errors", app_codes);
    }
  }

  void pcie_readings(const std::string& where, SampleSink& out, const Nvml::Device& nd, std::optional<unsigned> gen,
                     std::optional<unsigned> width, double h2d, double d2h, std::vector<std::string>& problems) {
    const auto gmax = nd.pcie_gen_max(), wmax = nd.pcie_width_max();
    if (!gen || !width || !gmax || !wmax) {
      problems.push_back(where + ": PCIe link not readable: " + (gmax ? wmax.why : gmax.why));
      return;
    }
    out.value(where, "gpu.pcie_link_gen", *gen, unit::count, {{"read", "during host-to-device copy"}});
    out.value(where, "gpu.pcie_link_width", *width, unit::count, {{"read", "during host-to-device copy"}});
    out.value(where, "gpu.pcie_link_gen_max", *gmax.value, unit::count);
    out.value(where, "gpu.pcie_link_width_max", *wmax.value, unit::count);
    out.value(where, "gpu.pcie_gen_below_max", double(*gmax.value) - double(*gen), unit::count);
    out.value(where, "gpu.pcie_width_below_max", double(*wmax.value) - double(*width), unit::count);
    if (auto theory = pcie_bytes_per_second(int(*gmax.value), int(*wmax.value))) {
      const nlohmann::json p = {{"gen", *gmax.value}, {"width", *wmax.value}};
      out.value(where, "gpu.pcie_theoretical_bw", *theory, unit::bytes_per_second, p);
      if (h2d > 0) out.value(where, "gpu.h2d_bw_of_theory", 100.0 * h2d / *theory, unit::percent, p);
      if (d2h > 0) out.value(where, "gpu.d2h_bw_of_theory", 100.0 * d2h / *theory, unit::percent, p);
    }
  }

  void nvml_readings(const ProbeContext& ctx, const std::string& where, const MatchedGpu& g, SampleSink& out,
                     const Nvml::Device& nd, std::vector<std::string>& problems, std::vector<std::string>& notes) {
    // Unsupported readings (ECC on a board without it, NVLink on PCIe cards) are facts, not faults.
    auto unsupported = [&](const std::string& why) { notes.push_back(where + ": " + why); };
    if (auto r = nd.pci_bus_id()) out.text(where, "gpu.pci_bus_id", *r.value); else unsupported(r.why);
    if (auto r = nd.uuid()) out.text(where, "gpu.uuid", *r.value); else unsupported(r.why);
    if (auto r = nd.serial()) out.text(where, "gpu.serial", *r.value); else unsupported(r.why);
    if (auto r = nd.temperature_c()) out.value(where, "gpu.temperature", *r.value, "degC"); else unsupported(r.why);
    if (auto r = nd.power_w()) out.value(where, "gpu.power", *r.value, "W"); else unsupported(r.why);
    if (auto r = nd.clock_mhz(1)) out.value(where, "gpu.clock_sm", *r.value, "MHz"); else unsupported(r.why);
    if (auto r = nd.clock_mhz(2)) out.value(where, "gpu.clock_mem", *r.value, "MHz"); else unsupported(r.why);
    if (auto r = nd.max_clock_mhz(1)) out.value(where, "gpu.clock_sm_max", *r.value, "MHz"); else unsupported(r.why);
    if (auto r = nd.throttle_reasons()) {
      out.text(where, "gpu.throttle_reasons", throttle_reason_names(*r.value), {{"mask", *r.value}});
      out.value(where, "gpu.throttle_hw", throttle_is_hardware(*r.value) ? 1 : 0, unit::boolean);
    } else {
      unsupported(r.why);
    }
    if (auto r = nd.ecc_enabled()) out.value(where, "gpu.ecc_enabled", *r.value ? 1 : 0, unit::boolean); else unsupported(r.why);
    if (auto r = nd.ecc_volatile()) {
      out.value(where, "gpu.ecc_corrected_volatile", double(r.value->corrected), unit::count);
      out.value(where, "gpu.ecc_uncorrected_volatile", double(r.value->uncorrected), unit::count);
    } else {
      unsupported(r.why);
    }
    if (auto r = nd.ecc_aggregate()) {
      out.value(where, "gpu.ecc_corrected_aggregate", double(r.value->corrected), unit::count);
      out.value(where, "gpu.ecc_uncorrected_aggregate", double(r.value->uncorrected), unit::count);
    } else {
      unsupported(r.why);
    }
    if (auto r = nd.remapped_rows()) {
      out.value(where, "gpu.remapped_rows_corrected", r.value->corrected, unit::count);
      out.value(where, "gpu.remapped_rows_uncorrected", r.value->uncorrected, unit::count);
      out.value(where, "gpu.remapped_rows_pending", r.value->pending ? 1 : 0, unit::boolean);
      out.value(where, "gpu.remapped_rows_failure", r.value->failure ? 1 : 0, unit::boolean);
    } else {
      unsupported(r.why);
    }
    const auto expected = expected_nvlinks(ctx.host, g.pci.index);
    const auto active = nd.nvlinks_active(kMaxNvLinks);
    if (active) out.value(where, "gpu.nvlink_active", *active.value, unit::count);
    if (expected) {
      out.value(where, "gpu.nvlink_expected", *expected, unit::count, {{"source", "topology"}});
      if (active) out.value(where, "gpu.nvlink_inactive", std::max(0, *expected - *active.value), unit::count);
      else problems.push_back(where + ": the topology gives it " + std::to_string(*expected) +
                              " NVLinks but their state is not readable: " + active.why);
    } else if (!active) {
      unsupported(active.why);
    }
  }

  // The peer-to-peer matrix of this host: access as the driver reports it, and the copy rate
  // with peer access enabled (staged through the host by the driver where it cannot be).
  void measure_p2p(ProbeContext& ctx, SampleSink& out, std::vector<std::string>& problems) {
    const auto& gpus = access_->gpus;
    if (gpus.size() < 2) return;
    const CudaDriver& d = *access_->driver;
    std::vector<std::unique_ptr<DeviceContext>> ctxs;
    for (const auto& g : gpus) ctxs.push_back(std::make_unique<DeviceContext>(d, g.cuda.ordinal));
    // One buffer on each GPU of a pair: within the device share of the GPU with least free memory.
    std::size_t least_free = std::numeric_limits<std::size_t>::max();
    for (const auto& c : ctxs) {
      c->make_current();
      std::size_t f = 0, t = 0;
      d.mem_get_info(&f, &t);
      least_free = std::min(least_free, f);
    }
    const MemoryShare mem{least_free, host_mem_available(), ctx.local_size, params_.memory_share};
    const std::size_t bytes =
        std::max<std::size_t>(kMiB, std::min(params_.p2p_bytes, mem.device_bytes()) / kMiB * kMiB);
    const double per_pair = std::max(0.02, ctx.seconds_left() * 0.3 / double(gpus.size() * (gpus.size() - 1)));
    for (std::size_t i = 0; i < gpus.size(); ++i)
      for (std::size_t j = 0; j < gpus.size(); ++j) {
        if (i == j) continue;
        const std::string pair = place::pair(place::gpu(ctx.hostname, gpus[i].pci.index), place::gpu(ctx.hostname, gpus[j].pci.index));
        try {
          const bool access = d.can_access_peer(gpus[i].cuda.ordinal, gpus[j].cuda.ordinal);
          out.value(pair, "gpu.p2p_access", access ? 1 : 0, unit::boolean);
          ctxs[i]->make_current();
          if (access) d.ctx_enable_peer_access(ctxs[j]->handle());
          Stream s(d);
          DeviceBuffer src(d, bytes);
          ctxs[j]->make_current();
          DeviceBuffer dst(d, bytes);
          ctxs[i]->make_current();
          const auto secs = time_ops(d, s, {params_.warmup, params_.iterations, per_pair}, [&] {
            d.memcpy_peer(dst.ptr(), ctxs[j]->handle(), src.ptr(), ctxs[i]->handle(), bytes, s.handle());
          });
          std::vector<double> bw;
          for (double t : secs) bw.push_back(double(bytes) / t);
          emit_series(out, pair, "gpu.p2p_bw", bw, unit::bytes_per_second, {{"bytes", bytes}, {"peer_access", access}});
        } catch (const std::exception& e) {
          problems.push_back(pair + ": " + e.what());
        }
      }
  }

  GpuParams params_;
  LibraryPaths paths_;
  std::unique_ptr<GpuAccess> access_;
};

}  // namespace

std::unique_ptr<Probe> make_gpu_probe() { return std::make_unique<GpuProbe>(); }

}  // namespace ga
