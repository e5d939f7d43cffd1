// soak: a training-shaped load on every GPU for minutes to hours (issue 15). Each rank drives
// one GPU with steps shaped like a training step: bf16 GEMMs through cuBLAS, an all_reduce of a
// gradient-sized buffer over one NCCL communicator of the whole job, and a host-to-device copy
// of a "batch". GPU events split each step into compute (the GEMMs), wait (the all_reduce:
// waiting for the slowest peer to arrive, then moving data) and the copy, so the rank the
// others wait for is the one whose compute is long and whose wait is short: the straggler.
//
// The journal keeps one summary per interval (interval_s), not every step: at each interval's
// end every rank's summary goes to rank 0, which makes the samples (soak_stats.hpp) and
// journals them at once (ProbeContext::journal_now), so an interrupted soak (SIGINT, a lost
// rank) leaves every finished interval on disk for the judge. The straggler's name, with its
// evidence, is emitted at the end.
//
// The soak stops at duration_s, or earlier at the probe's deadline less a margin (said in the
// outcome): the ranks agree on stopping and on each interval's end with one MPI allreduce a
// step, a few microseconds against a step of milliseconds.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>

#include "base/units.hpp"
#include "probes/devices/gpu_assign.hpp"
#include "probes/devices/gpu_models.hpp"
#include "probes/devices/gpu_presence.hpp"
#include "probes/devices/memory_share.hpp"
#include "probes/devices/xid_log.hpp"
#include "probes/harness/comm_split.hpp"
#include "probes/probe.hpp"
#include "probes/soak/soak_stats.hpp"
#include "probes/vendor/cublas_api.hpp"
#include "probes/vendor/cuda_driver.hpp"
#include "probes/vendor/nccl_api.hpp"
#include "probes/vendor/nvml_api.hpp"
#include "topology/place.hpp"

namespace ga {
namespace {

using namespace ga::gpu;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kMiB = 1024 * 1024;
constexpr int kMaxNvLinks = 18;
// Seconds the soak's deadline allows for what comes before the load: loading the libraries,
// the whole job's NCCL communicator (nccl_init_s, ~10-60 s at a few thousand ranks) and the
// warm-up steps.
constexpr double kSetupAllowanceS = 120;

struct SoakParams {
  double duration_s = 60;
  double interval_s = 30;
  double memory_share = 0.5;
  int gemm_n = 8192;            // the largest; lowered to fit the GEMM's part of the share
  int gemms_per_step = 16;     // ~25 ms of compute on an H100 at n = 8192: the load is mostly compute, as a training step
  std::size_t allreduce_bytes = 256 * kMiB;
  std::size_t h2d_bytes = 64 * kMiB;
  int warmup_steps = 3;
  double sample_s = 1;          // NVML readings at most this often
  double straggler_ratio = 1.2;
  double stop_margin_s = 15;
  double peak_tflops = 0;       // 0: the model's figure from gpu_models.cpp
  std::string kmsg = "/dev/kmsg";
  int min_driver = kMinCudaDriverVersion;
};

int mib(std::size_t b) { return static_cast<int>(b / kMiB); }

SoakParams params_of(const nlohmann::json& p) {
  SoakParams s;
  s.duration_s = p.value("duration_s", s.duration_s);
  s.interval_s = p.value("interval_s", s.interval_s);
  s.memory_share = p.value("memory_share", s.memory_share);
  s.gemm_n = p.value("gemm_n", s.gemm_n);
  s.gemms_per_step = p.value("gemms_per_step", s.gemms_per_step);
  s.allreduce_bytes = std::size_t(p.value("allreduce_mib", mib(s.allreduce_bytes))) * kMiB;
  s.h2d_bytes = std::size_t(p.value("h2d_mib", mib(s.h2d_bytes))) * kMiB;
  s.warmup_steps = p.value("warmup_steps", s.warmup_steps);
  s.sample_s = p.value("sample_s", s.sample_s);
  s.straggler_ratio = p.value("straggler_ratio", s.straggler_ratio);
  s.stop_margin_s = p.value("stop_margin_s", s.stop_margin_s);
  s.peak_tflops = p.value("peak_tflops", s.peak_tflops);
  s.kmsg = p.value("kernel_log", s.kmsg);
  s.min_driver = p.value("min_cuda_driver", s.min_driver);
  if (!(s.memory_share > 0 && s.memory_share < 1)) throw std::invalid_argument("soak: memory_share must be in (0, 1)");
  if (s.duration_s <= 0 || s.interval_s <= 0 || s.gemm_n < 64 || s.gemms_per_step < 1 || s.allreduce_bytes == 0 ||
      s.h2d_bytes == 0)
    throw std::invalid_argument("soak: duration_s, interval_s > 0, gemm_n >= 64, gemms_per_step, allreduce_mib, h2d_mib >= 1");
  return s;
}

std::vector<ParamDecl> param_decls() {
  const SoakParams d;
  return {
      {"duration_s", ParamType::number, d.duration_s, 1, {}, {},
       "seconds of load (the burn-in suite: 1800); cut to the probe's deadline less stop_margin_s, and the outcome says so"},
      {"interval_s", ParamType::number, d.interval_s, 0.1, {}, {},
       "seconds per journaled summary: one set of samples per GPU per interval, not per step"},
      {"memory_share", ParamType::number, d.memory_share, 0, 1, {},
       "share, in (0, 1), of the GPU's free memory that the soak's buffers take together: half for the GEMM "
       "matrices, a quarter each at most for the gradient and the batch; the batch's pinned host copy within the "
       "same share of the host's MemAvailable divided among its ranks"},
      {"gemm_n", ParamType::integer, d.gemm_n, 64, {}, {}, "the largest n of the n x n x n bf16 GEMMs (lowered to fit)"},
      {"gemms_per_step", ParamType::integer, d.gemms_per_step, 1, {}, {}, "GEMMs per step (the step's compute)"},
      {"allreduce_mib", ParamType::integer, mib(d.allreduce_bytes), 1, {}, {},
       "MiB of the gradient all_reduced each step over the whole job (lowered to fit)"},
      {"h2d_mib", ParamType::integer, mib(d.h2d_bytes), 1, {}, {}, "MiB of the batch copied host to device each step (lowered to fit)"},
      {"warmup_steps", ParamType::integer, d.warmup_steps, 0, {}, {},
       "untimed steps first (NCCL connects its peers in its first collectives)"},
      {"sample_s", ParamType::number, d.sample_s, 0, {}, {}, "NVML readings (temperature, power, clocks, throttle) at most this often"},
      {"straggler_ratio", ParamType::number, d.straggler_ratio, 1, {}, {},
       "an interval's slowest GPU counts as its straggler when its compute is this many times the median GPU's"},
      {"stop_margin_s", ParamType::number, d.stop_margin_s, 0, {}, {},
       "the soak ends this many seconds before the probe's deadline at the latest (its summaries must reach rank 0)"},
      {"peak_tflops", ParamType::number, nullptr, 0, {}, {},
       "the GPU's dense bf16 peak in TFLOP/s, for soak.gemm_of_theory; default the model's figure (probes/devices/gpu_models.cpp); "
       "a model not there and no figure given: the 70% gate is inconclusive"},
      {"kernel_log", ParamType::string, d.kmsg, {}, {}, {}, "where XID errors are read from (their rise over the soak)"},
      {"min_cuda_driver", ParamType::integer, d.min_driver, 0, {}, {}, "oldest CUDA driver API version accepted"},
      {"cuda_library", ParamType::string, nullptr, {}, {}, {}, "path of libcuda; default $GPUACCEPT_CUDA_LIBRARY, then libcuda.so.1"},
      {"nvml_library", ParamType::string, nullptr, {}, {}, {},
       "path of libnvidia-ml; default $GPUACCEPT_NVML_LIBRARY, then libnvidia-ml.so.1"},
      {"cublas_library", ParamType::string, nullptr, {}, {}, {},
       "path of libcublas; default $GPUACCEPT_CUBLAS_LIBRARY, then libcublas.so.12, .13, .11"},
      {"nccl_library", ParamType::string, nullptr, {}, {}, {}, "path of libnccl; default $GPUACCEPT_NCCL_LIBRARY, then libnccl.so.2"},
  };
}

std::vector<MetricDecl> metric_decls() {
  const char* pg = "per GPU and interval: ";
  auto s = [](const char* a, const char* b) { return std::string(a) + b; };
  // Places and params as soak_stats.cpp (interval_samples, final_samples) and soak() emit them.
  using K = place::Kind;
  return {
      MetricDecl{"soak.step_time", unit::seconds, Better::lower, s(pg, "median wall time of a whole step (GEMMs, all_reduce, batch copy)")}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.compute_time", unit::seconds, Better::lower, s(pg, "median time of a step's GEMMs (GPU events)")}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.wait_time", unit::seconds, Better::lower,
       s(pg, "median time inside the step's all_reduce: waiting for the slowest peer, then moving the data")}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.gemm_flops", unit::flops, Better::higher, s(pg, "median bf16 GEMM rate of its steps")}
          .at({K::gpu}).carries({"dtype"}),
      MetricDecl{"soak.gemm_of_theory", unit::percent, Better::higher,
       s(pg, "soak.gemm_flops in percent of the model's dense bf16 peak (probes/devices/gpu_models.cpp, or peak_tflops)")}
          .at({K::gpu}).carries({"dtype"}).unjudged_when_absent(),
      MetricDecl{"soak.allreduce_busbw", unit::bytes_per_second, Better::higher,
       s(pg, "median busbw of the gradient all_reduce over the whole job (nccl-tests' 2(n-1)/n), wait included")}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.h2d_bw", unit::bytes_per_second, Better::higher, s(pg, "median host-to-device rate of the batch copy")}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.memory_used", unit::bytes, Better::none, s(pg, "the most device memory in use (total - free, cuMemGetInfo)"),
       Combine::max}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.memory_vs_median", unit::percent, Better::lower,
       s(pg, "how far its memory in use is from the median GPU's, in percent of that median"), Combine::max}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.memory_fluctuation", unit::percent, Better::lower,
       s(pg, "(most - least) memory in use over the intervals so far, in percent of the least"), Combine::max}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.compute_vs_median", "x", Better::lower, s(pg, "its compute time over the median GPU's (1 = as fast as the median)")}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.straggler_intervals", unit::count, Better::lower,
       s(pg, "intervals so far in which it was the slowest GPU by straggler_ratio or more"), Combine::max}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.temperature", "degC", Better::lower, s(pg, "the highest GPU temperature read (NVML)"), Combine::max}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.power", "W", Better::none, s(pg, "the highest power draw read (NVML)"), Combine::max}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.clock_sm", "MHz", Better::none, s(pg, "the lowest SM clock read (NVML)"), Combine::min}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.throttle_hw", unit::boolean, Better::lower,
       s(pg, "a hardware throttle reason (slowdown, thermal, power brake) was active at a reading (params: mask)"),
       Combine::max}
          .at({K::gpu}).carries({"mask"}),
      MetricDecl{"soak.ecc_uncorrected_rise", unit::count, Better::lower, s(pg, "uncorrected volatile ECC errors since the soak began"),
       Combine::max}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.ecc_corrected_rise", unit::count, Better::lower, s(pg, "corrected volatile ECC errors since the soak began"),
       Combine::max}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.nvlink_errors_rise", unit::count, Better::lower,
       s(pg, "NVLink replay, recovery and CRC errors (all links) since the soak began"), Combine::max}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.xid_rise", unit::count, Better::lower, s(pg, "XID errors of the GPU in the kernel log since the soak began"),
       Combine::max}
          .at({K::gpu}).carries({}),
      MetricDecl{"soak.intervals", unit::count, Better::none, "intervals journaled (place cluster)", Combine::max}
          .at({K::cluster}).carries({}),
      MetricDecl{"soak.step_p99_over_p50", "x", Better::lower,
       "per interval, the job's step time p99 over its p50 (median over the ranks; place cluster)", Combine::max}
          .at({K::cluster}).carries({}),
      MetricDecl{"soak.step_drift", unit::percent, Better::lower,
       "the fitted change of the job's step time from the first interval to the last, in percent of its median "
       "(place cluster; the figure after the last interval counts)",
       Combine::last}
          .at({K::cluster}).carries({}),
      MetricDecl{"soak.duration_reached", unit::percent, Better::higher,
                 "how much of the asked duration_s the load ran, in percent (place cluster; params: asked_s)"}
          .at({K::cluster})
          .carries({"asked_s"}),
      MetricDecl{"soak.config", unit::text, Better::none,
       "what the soak ran (place cluster; params: gemm_n, gemms_per_step, allreduce_bytes, h2d_bytes, ranks, "
       "duration_s, interval_s, nccl_init_s and the memory share they were sized from)"}
          .at({K::cluster})
          .carries({"device_free", "host_available", "local_ranks", "memory_share", "gemm_n", "gemms_per_step",
                    "allreduce_bytes", "h2d_bytes", "ranks", "duration_s", "interval_s", "nccl_init_s"}),
      MetricDecl{"soak.straggler", unit::text, Better::none,
       "the GPU the other ranks waited for, or none (place cluster; params: place, rank, slowest_in, reason)"}
          .at({K::cluster}).carries({"intervals", "ratio", "place", "rank", "slowest_in", "reason"}),
      MetricDecl{"soak.straggler_named", unit::boolean, Better::lower,
       "1 at the GPU named the straggler (slowest in at least half of the intervals; params.reason: the evidence)"}
          .at({K::gpu}).carries({"intervals", "reason"}),
  };
}

double since(Clock::time_point a, Clock::time_point b = Clock::now()) { return std::chrono::duration<double>(b - a).count(); }

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
  return s;
}

// One rank's running record of the current interval, and its baselines for the counters.
struct RankRecord {
  std::vector<double> step, compute, wait, h2d, flops, busbw, h2d_bw;
  double memory_used = 0;
  std::optional<double> temperature, power, clock_sm;
  std::optional<std::uint64_t> throttle;
  void clear() { *this = RankRecord{}; }
};

class SoakProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "soak";
    i.summary =
        "training-shaped load for minutes to hours: bf16 GEMMs, a whole-job NCCL all_reduce and a batch copy per "
        "step on every GPU; step time, throughput, memory, clocks, temperature, throttling and error counters per "
        "interval; the straggler named";
    i.needs = {true, false, false};
    i.caveat = "not yet validated on a GPU host: every path runs here only against fake libraries";
    i.metrics = metric_decls();
    i.params = param_decls();
    return i;
  }

  std::optional<ParamProblem> check_config(const nlohmann::json& params) const override {
    return check_params_and_parse(info(), params, [](const nlohmann::json& p) {
      params_of(p);
      library_paths(p);
    });
  }

  // The stated length, its stop margin and the set-up before the load starts (libraries,
  // the NCCL communicator, warm-up steps): a burn-in of 30 minutes runs 30 minutes whatever
  // --probe-timeout says, and a longer --probe-timeout still holds.
  double deadline_s(const nlohmann::json& params, double probe_timeout_s) const override {
    const SoakParams p = params_of(params);
    return std::max(probe_timeout_s, p.duration_s + p.stop_margin_s + kSetupAllowanceS);
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    if (const auto bad = check_params(info(), ctx.params)) return Outcome::tool_error(bad->message);
    SoakParams p;
    LibraryPaths paths;
    try {
      p = params_of(ctx.params);
      paths = library_paths(ctx.params);
    } catch (const std::exception& e) {
      return Outcome::tool_error(e.what());  // the user's value, checked before the run too
    }
    // Every rank makes the same collective calls whatever it finds.
    const auto numa = local_rank_numa(ctx.comm, ctx.rank_hosts, ctx.hostname);
    std::vector<std::string> notes, problems;
    AccessOptions opt;
    opt.min_driver_version = p.min_driver;
    opt.cuda_visible_devices_set = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
    auto access = std::make_unique<GpuAccess>(open_gpus(nvidia_gpus_on_bus(ctx.host, ctx.sysfs_root), paths, opt));
    std::optional<Outcome> stop = access->stop;
    std::unique_ptr<Nccl> nccl;
    std::unique_ptr<Cublas> cublas;
    const MatchedGpu* gpu = nullptr;
    if (!stop) {
      if (!access->failure.empty()) problems.push_back(access->failure);
      nccl = std::make_unique<Nccl>(paths.nccl);
      cublas = std::make_unique<Cublas>(paths.cublas);
      if (!nccl->loaded()) stop = Outcome::missing_library("NVIDIA GPUs present but NCCL cannot be loaded: " + nccl->error());
      else if (!cublas->loaded()) stop = Outcome::missing_library("NVIDIA GPUs present but cuBLAS cannot be loaded: " + cublas->error());
    }
    if (!stop) {
      std::vector<PciGpu> pci;
      for (const auto& g : access->gpus) pci.push_back(g.pci);
      const auto a = assign_gpus(pci, numa);
      const auto me = static_cast<std::size_t>(ctx.local_rank);
      if (me < a.size() && !a[me].empty()) {
        gpu = &access->gpus[a[me].front()];
        if (a[me].size() > 1)
          notes.push_back(std::to_string(a[me].size() - 1) + " GPU(s) of this host not soaked: one rank per GPU (mpirun -np <GPUs>)");
      } else {
        stop = Outcome::ok("local rank " + std::to_string(ctx.local_rank) + " has no GPU of its own; it sits out");
      }
    }
    // The job's communicator: every rank with a GPU. The others sit out in MPI alone.
    auto sub = split_comm(ctx.comm, gpu ? 0 : -1, ctx.rank);
    if (!gpu || !sub) {
      if (!problems.empty()) return Outcome::failed(join(problems));
      return stop.value_or(Outcome::ok("no GPU"));
    }
    Outcome result = Outcome::ok();
    try {
      result = soak(ctx, *sub, out, p, paths, *access, *gpu, *nccl, *cublas, notes, problems);
    } catch (const std::exception& e) {
      problems.push_back(place::gpu(ctx.hostname, gpu->pci.index) + ": " + e.what());
    }
    if (!problems.empty()) return Outcome::failed(join(problems));
    if (result.status != ProbeStatus::ok) return result;
    return Outcome::ok(join(notes));
  }

 private:
  Outcome soak(ProbeContext& ctx, Comm& c, SampleSink& out, const SoakParams& p, const LibraryPaths& paths,
               const GpuAccess& access, const MatchedGpu& g, const Nccl& nccl, const Cublas& cublas,
               std::vector<std::string>& notes, std::vector<std::string>& problems) {
    const CudaDriver& d = *access.driver;
    const std::string where = place::gpu(ctx.hostname, g.pci.index);
    DeviceContext dev(d, g.cuda.ordinal);
    Stream stream(d);
    std::size_t free_b = 0, total_b = 0;
    d.mem_get_info(&free_b, &total_b);
    const MemoryShare mem{free_b, host_mem_available(), ctx.local_size, p.memory_share};
    // Sizes: the GEMM's three matrices within half the share, gradient and batch a quarter at most each.
    int n = p.gemm_n / 64 * 64;
    while (n > 64 && 3 * std::size_t(n) * std::size_t(n) * 2 > mem.device_bytes() / 2) n -= 64;
    auto fit = [](std::size_t want, std::size_t limit) { return std::max<std::size_t>(kMiB, std::min(want, limit) / kMiB * kMiB); };
    const std::size_t grad = fit(p.allreduce_bytes, mem.device_bytes() / 4);
    const std::size_t batch = fit(p.h2d_bytes, std::min(mem.device_bytes() / 4, mem.host_bytes()));
    // The job's gradient: the smallest of the ranks' (an all_reduce has one count).
    const std::size_t grad_all = static_cast<std::size_t>(c.allreduce_min(double(grad)));
    const std::size_t count = grad_all / 4;
    const std::size_t mat = std::size_t(n) * std::size_t(n) * 2;
    DeviceBuffer a(d, mat), b(d, mat), cm(d, mat), gbuf(d, count * 4), dbatch(d, batch);
    PinnedBuffer hbatch(d, batch);
    d.memset_d8(a.ptr(), 0x3c, mat, stream.handle());  // non-zero: zeros draw less power
    d.memset_d8(b.ptr(), 0x3c, mat, stream.handle());
    d.memset_d8(gbuf.ptr(), 0, count * 4, stream.handle());
    std::fill_n(static_cast<unsigned char*>(hbatch.data()), batch, 0x5a);
    Cublas::Handle h(cublas, stream.handle());
    Event e0(d), e1(d), e2(d), e3(d);

    // The job's communicator, from one unique id made by rank 0 (shared over MPI).
    std::string id = c.rank() == 0 ? [&] {
      const auto u = nccl.unique_id();
      return std::string(u.begin(), u.end());
    }() : std::string();
    id = c.broadcast(id, 0);
    NcclUniqueId uid{};
    std::copy_n(id.begin(), std::min(id.size(), uid.size()), uid.begin());
    const auto t_init = Clock::now();
    Nccl::Comm comm(nccl, c.size(), uid, c.rank());
    const double init_s = since(t_init);

    const Nvml nvml(paths.nvml);
    std::optional<Nvml::Device> nd;
    if (nvml.ok()) {
      std::string why;
      nd = nvml.device_by_pci(g.pci.pci_bus_id, &why);
      if (!nd) problems.push_back(where + ": " + why);
    } else {
      problems.push_back("NVML unusable, so no temperature, clock, throttle or ECC reading during the soak: " + nvml.error());
    }
    // The dense bf16 peak the 70% gate holds the GEMMs against: the user's figure, else the
    // model's from the table. Without one the gate cannot be judged, and says so (the metric
    // is declared unjudged_when_absent: inconclusive, never a skipped gate).
    const auto spec = model_spec(g.cuda.name);
    const double bf16_peak = p.peak_tflops > 0 ? p.peak_tflops * 1e12 : spec ? spec->bf16_flops : 0.0;
    if (bf16_peak <= 0)
      notes.push_back(where + ": no peak for model \"" + g.cuda.name +
                      "\" (not in gpu_models.cpp): give soak.peak_tflops, the model's dense bf16 TFLOP/s, for soak.gemm_of_theory");
    // Baselines of the counters whose rise is judged.
    auto ecc = [&]() -> std::optional<EccCounts> {
      if (!nd) return std::nullopt;
      auto r = nd->ecc_volatile();
      return r ? r.value : std::nullopt;
    };
    auto nvlink = [&]() -> std::optional<double> {
      if (!nd) return std::nullopt;
      auto r = nd->nvlink_errors(kMaxNvLinks);
      if (!r) return std::nullopt;
      return double(r.value->replay + r.value->recovery + r.value->crc_flit + r.value->crc_data);
    };
    auto xids = [&]() -> std::optional<double> {
      std::string why;
      auto lines = read_kernel_log(p.kmsg, &why);
      if (!lines) return std::nullopt;
      const auto m = count_xids(*lines);
      auto it = m.find(xid_key(g.pci.pci_bus_id));
      return it == m.end() ? 0.0 : double(it->second.count);
    };
    const auto ecc0 = ecc();
    const auto nvlink0 = nvlink();
    const auto xid0 = xids();
    if (!xid0) notes.push_back(where + ": XIDs not read from " + p.kmsg + " (no soak.xid_rise)");

    auto read_nvml = [&](RankRecord& rec) {
      if (!nd) return;
      if (auto r = nd->temperature_c()) rec.temperature = std::max(rec.temperature.value_or(0), double(*r.value));
      if (auto r = nd->power_w()) rec.power = std::max(rec.power.value_or(0), *r.value);
      if (auto r = nd->clock_mhz(1)) rec.clock_sm = std::min(rec.clock_sm.value_or(1e12), double(*r.value));
      if (auto r = nd->throttle_reasons()) rec.throttle = rec.throttle.value_or(0) | *r.value;
    };

    const double flop = 2.0 * double(n) * n * n * p.gemms_per_step;
    const double bus_factor = c.size() > 1 ? 2.0 * (c.size() - 1) / c.size() : 1.0;
    auto step = [&](RankRecord* rec) {
      const auto w0 = Clock::now();
      e0.record(stream);
      for (int k = 0; k < p.gemms_per_step; ++k) h.gemm(GemmType::bf16, n, a.as_void(), b.as_void(), cm.as_void());
      e1.record(stream);
      comm.all_reduce(gbuf.as_void(), gbuf.as_void(), count, stream.handle());
      e2.record(stream);
      d.memcpy_htod(dbatch.ptr(), hbatch.data(), batch, stream.handle());
      e3.record(stream);
      e3.synchronize();
      if (!rec) return;
      const double compute = e1.seconds_since(e0), wait = e2.seconds_since(e1), copy = e3.seconds_since(e2);
      rec->step.push_back(since(w0));
      rec->compute.push_back(compute);
      rec->wait.push_back(wait);
      rec->h2d.push_back(copy);
      if (compute > 0) rec->flops.push_back(flop / compute);
      if (wait > 0) rec->busbw.push_back(double(count * 4) / wait * bus_factor);
      if (copy > 0) rec->h2d_bw.push_back(double(batch) / copy);
      std::size_t f = 0, t = 0;
      d.mem_get_info(&f, &t);
      rec->memory_used = std::max(rec->memory_used, double(t - f));
    };
    for (int k = 0; k < p.warmup_steps; ++k) step(nullptr);

    // The length: duration_s, cut to the deadline less the margin (the summaries must reach
    // rank 0 and the judge before the watchdog's deadline).
    const double room = c.allreduce_min(ctx.seconds_left() - p.stop_margin_s);
    double duration = p.duration_s;
    if (room < duration) {
      duration = std::max(0.0, room);
      if (c.rank() == 0)
        notes.push_back("soaked " + base_seconds(duration) + " of the " + base_seconds(p.duration_s) +
                        " asked: the probe's deadline (--probe-timeout) less stop_margin_s");
    }
    if (c.rank() == 0) {
      nlohmann::json sizes = mem.params();
      sizes["gemm_n"] = n;
      sizes["gemms_per_step"] = p.gemms_per_step;
      sizes["allreduce_bytes"] = count * 4;
      sizes["h2d_bytes"] = batch;
      sizes["ranks"] = c.size();
      sizes["duration_s"] = duration;
      sizes["interval_s"] = p.interval_s;
      sizes["nccl_init_s"] = init_s;
      out.text(place::cluster(), "soak.config", "sizes", sizes);
    }
    c.barrier();
    const auto start = Clock::now();
    auto interval_start = start;
    auto last_nvml = Clock::time_point{};
    RankRecord rec;
    soak::History hist;
    const soak::AnalysisConfig cfg{p.straggler_ratio};
    std::map<std::string, double> peak;
    // Every GPU's model peak reaches rank 0 once.
    {
      const auto peaks = c.gather(where + "\n" + std::to_string(bf16_peak), 0);
      for (const auto& s : peaks) {
        const auto nl = s.find('\n');
        const double v = std::stod(s.substr(nl + 1));
        if (v > 0) peak[s.substr(0, nl)] = v;
      }
    }
    for (bool done = false; !done;) {
      step(&rec);
      const auto now = Clock::now();
      if (since(last_nvml, now) >= p.sample_s) {
        read_nvml(rec);
        last_nvml = now;
      }
      // 0 go on, 1 the interval ends, 2 the soak ends (with its last interval).
      double code = since(start, now) >= duration ? 2 : since(interval_start, now) >= p.interval_s ? 1 : 0;
      code = c.allreduce_max(code);
      if (code == 0) continue;
      done = code >= 2;
      read_nvml(rec);
      soak::RankInterval ri;
      ri.rank = ctx.rank;  // the run's rank, as every sample carries it (not the job communicator's)
      ri.place = where;
      ri.steps = static_cast<int>(rec.step.size());
      ri.step_p50 = soak::percentile(rec.step, 50);
      ri.step_p99 = soak::percentile(rec.step, 99);
      ri.compute_p50 = soak::percentile(rec.compute, 50);
      ri.wait_p50 = soak::percentile(rec.wait, 50);
      ri.h2d_p50 = soak::percentile(rec.h2d, 50);
      ri.gemm_flops = soak::percentile(rec.flops, 50);
      ri.busbw = soak::percentile(rec.busbw, 50);
      ri.h2d_bw = soak::percentile(rec.h2d_bw, 50);
      ri.memory_used = rec.memory_used;
      ri.temperature = rec.temperature;
      ri.power = rec.power;
      ri.clock_sm = rec.clock_sm;
      ri.throttle_mask = rec.throttle;
      if (ecc0) {
        if (const auto e = ecc()) {
          ri.ecc_uncorrected_rise = double(e->uncorrected - std::min(e->uncorrected, ecc0->uncorrected));
          ri.ecc_corrected_rise = double(e->corrected - std::min(e->corrected, ecc0->corrected));
        }
      }
      if (nvlink0)
        if (const auto v = nvlink()) ri.nvlink_errors_rise = std::max(0.0, *v - *nvlink0);
      if (xid0)
        if (const auto v = xids()) ri.xid_rise = std::max(0.0, *v - *xid0);
      const auto parts = c.gather(ri.to_json().dump(), 0);
      const double t_mid = (since(start, interval_start) + since(start, now)) / 2;
      if (c.rank() == 0) {
        std::vector<soak::RankInterval> all;
        for (const auto& s : parts) all.push_back(soak::RankInterval::from_json(nlohmann::json::parse(s)));
        auto samples = soak::interval_samples(all, hist, t_mid, peak, cfg);
        journal(ctx, out, std::move(samples));
        ctx.report_step(soak::live_line(all, hist), std::max(1, static_cast<int>(since(start, now))),
                        std::max(1, static_cast<int>(duration)), "s");
      }
      rec.clear();
      interval_start = Clock::now();
    }
    if (c.rank() == 0) {
      // How much of the asked length the load ran: a soak cut short is not the burn-in the
      // suite stated, and a criterion says so (criteria-default-soak.yaml, soak.duration).
      out.value(place::cluster(), "soak.duration_reached", 100.0 * since(start) / p.duration_s, unit::percent,
                {{"asked_s", p.duration_s}});
      for (auto& s : soak::final_samples(hist, cfg)) out.emit(std::move(s));
    }
    return Outcome::ok();
  }

  static std::string base_seconds(double s) { return std::to_string(static_cast<long>(std::lround(s))) + " s"; }

  // Rank 0: the interval's samples straight into the journal when the harness offers it (a
  // soak cut short keeps them), else through the sink with the probe's other samples.
  static void journal(ProbeContext& ctx, SampleSink& out, std::vector<Sample> samples) {
    if (ctx.journal_now) {
      ctx.journal_now(std::move(samples));
      return;
    }
    for (auto& s : samples) out.emit(std::move(s));
  }
};

}  // namespace

std::unique_ptr<Probe> make_soak_probe() { return std::make_unique<SoakProbe>(); }

}  // namespace ga
