// sdc: silent data corruption found by comparison. Every GPU computes the same exact integer
// workload (sdc_kernels.ptx: mix64 rounds over a buffer of seeded words) again and again for
// duration_s, and each repetition's output is held against
//   - the host's reference of the same inputs (computed once per rank: elements x rounds
//     mix64 steps, a second or two of a host core at the default size),
//   - the GPU's own other repetitions (its digests: at least min_repetitions of them), and
//   - the other GPUs of the run (rank 0 gathers each GPU's most common digest; a GPU unlike
//     the majority of all GPUs, when there is one, is named).
// A GPU that computes a wrong bit now and then passes every rate and every ECC counter; here
// it shows as a repetition that differs, with the element, the value it gave and the value it
// must give as evidence. A repetition that cannot run (a CUDA error, the deadline before
// min_repetitions) is a tool error, never a pass.
//
// What it exercises: the integer ALUs (64-bit multiply, shift, xor, add), loads and stores of
// the whole buffer from every SM (one thread per element, 256 per block), and the copy back.
// Not the tensor cores or floating point: a GEMM whose every partial sum is exact is the next
// workload to add (docs/gpu.md).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "base/units.hpp"
#include "probes/devices/gpu_assign.hpp"
#include "probes/devices/gpu_presence.hpp"
#include "probes/probe.hpp"
#include "probes/sdc/sdc_check.hpp"
#include "probes/vendor/cuda_driver.hpp"
#include "probes/vendor/gpu_libraries.hpp"
#include "topology/place.hpp"

namespace ga {
namespace {

using namespace ga::gpu;

constexpr std::size_t kMiB = 1024 * 1024;
constexpr unsigned kBlock = 256;
constexpr double kSetupAllowanceS = 120;  // opening the GPUs, the reference, the gathers

struct SdcParams {
  double duration_s = 60;
  int min_repetitions = 3;
  std::size_t mib = 1024;
  std::uint64_t rounds = 8;
  std::uint64_t seed = 1;
};

SdcParams params_of(const nlohmann::json& p) {
  SdcParams s;
  s.duration_s = p.value("duration_s", s.duration_s);
  s.min_repetitions = p.value("min_repetitions", s.min_repetitions);
  s.mib = p.value("mib", static_cast<int>(s.mib));
  s.rounds = p.value("rounds", static_cast<int>(s.rounds));
  s.seed = p.value("seed", static_cast<int>(s.seed));
  if (!(s.duration_s >= 0) || s.min_repetitions < 3 || s.mib < 1 || s.rounds < 1)
    throw std::invalid_argument("sdc params: duration_s >= 0, min_repetitions >= 3, mib >= 1, rounds >= 1");
  return s;
}

// One GPU's repetitions, as compared on its rank.
struct GpuRun {
  std::string place;
  int repetitions = 0;
  int mismatched = 0;                       // repetitions unlike the host's reference
  std::optional<sdc::Difference> first;     // of the first mismatched repetition
  int first_repetition = 0;                 // 1-based
  std::vector<std::string> digests;         // per repetition
  std::vector<double> seconds;              // kernel and copy back, per repetition
  std::string error;                        // a repetition that could not run
};

GpuRun run_gpu(const CudaDriver& d, const MatchedGpu& g, const std::string& where, const SdcParams& p,
               const std::vector<std::uint64_t>& in, const std::vector<std::uint64_t>& want,
               const ProbeContext& ctx) {
  GpuRun r;
  r.place = where;
  const std::uint64_t n = in.size();
  const std::size_t bytes = n * sizeof(std::uint64_t);
  try {
    DeviceContext dev(d, g.cuda.ordinal);
    Stream stream(d);
    Module module(d, sdc::sdc_kernels_ptx());
    void* fn = module.function("ga_sdc_mix");
    DeviceBuffer din(d, bytes), dout(d, bytes);
    d.memcpy_htod(din.ptr(), in.data(), bytes, stream.handle());
    std::vector<std::uint64_t> got(n);
    const auto start = std::chrono::steady_clock::now();
    const unsigned blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
    for (;;) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (r.repetitions >= p.min_repetitions && elapsed >= p.duration_s) break;
      // The deadline's last tenth is the gathering's: stopping there short of the least
      // repetitions is a tool error below, never a pass on fewer.
      if (r.repetitions >= 1 && ctx.seconds_left() < std::max(5.0, 3 * r.seconds.back())) break;
      const auto t0 = std::chrono::steady_clock::now();
      // A kernel that wrote nothing must not pass on the last repetition's output.
      d.memset_d8(dout.ptr(), 0, bytes, stream.handle());
      std::uint64_t pin = din.ptr(), pout = dout.ptr(), pn = n, prounds = p.rounds;
      void* args[] = {&pin, &pout, &pn, &prounds};
      d.launch(fn, blocks, kBlock, stream.handle(), args);
      d.memcpy_dtoh(got.data(), dout.ptr(), bytes, stream.handle());
      stream.synchronize();
      r.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      ++r.repetitions;
      r.digests.push_back(sdc::digest(got));
      if (auto diff = sdc::compare(got, want)) {
        ++r.mismatched;
        if (!r.first) r.first = diff, r.first_repetition = r.repetitions;
      }
    }
    if (r.repetitions < p.min_repetitions)
      r.error = where + ": " + std::to_string(r.repetitions) + " of the least " + std::to_string(p.min_repetitions) +
                " repetitions before the deadline (raise --probe-timeout or lower sdc.mib)";
  } catch (const std::exception& e) {
    r.error = where + ": repetition " + std::to_string(r.repetitions + 1) + " could not run: " + e.what();
  }
  return r;
}

std::string hex(std::uint64_t v) {
  char b[19];
  std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(v));
  return b;
}

class SdcProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "sdc";
    i.summary = "silent data corruption: every GPU repeats one exact integer workload; each repetition is compared "
                "with the host's reference, with the GPU's other repetitions and with the other GPUs";
    i.needs = {true, false, false};
    i.caveat = "not yet validated on a GPU host: runs here only against the fake CUDA's PTX interpreter";
    using K = place::Kind;
    i.metrics = {
        MetricDecl{"sdc.mismatched_repetitions", unit::count, Better::lower,
                   "repetitions whose output differs from the host's reference of the same inputs (params: the first "
                   "one's repetition, element, got, expected, and how many elements differed in it)"}
            .at({K::gpu})
            .carries({"repetitions", "elements", "rounds", "first_repetition", "first_element", "got", "expected",
                      "elements_differing"}),
        MetricDecl{"sdc.unlike_own_repetitions", unit::count, Better::lower,
                   "repetitions whose output digest differs from the digest most of the GPU's repetitions gave"}
            .at({K::gpu})
            .carries({"repetitions"}),
        MetricDecl{"sdc.unlike_majority", unit::boolean, Better::lower,
                   "the GPU's most common digest differs from the one most GPUs of the run gave (emitted only where "
                   "more than half of the run's GPUs agree)"}
            .at({K::gpu})
            .carries({"gpus", "agreeing"}),
        MetricDecl{"sdc.repetitions", unit::count, Better::none, "repetitions the GPU ran"}.at({K::gpu}).carries(
            {"duration_s", "elements", "rounds"}),
        MetricDecl{"sdc.repetition_time", unit::seconds, Better::none,
                   "one repetition: the kernel and the copy of its output back to the host, one sample per repetition"}
            .at({K::gpu})
            .carries({"bytes", "rounds"}),
        MetricDecl{"sdc.rate", "op/s", Better::none,
                   "mix64 steps per second of the whole repetition (elements x rounds / repetition time, median)"}
            .at({K::gpu})
            .carries({"bytes", "rounds"}),
    };
    const SdcParams d;
    i.params = {
        {"duration_s", ParamType::number, d.duration_s, 0, {}, {},
         "seconds each GPU repeats the workload (at least min_repetitions times); the probe's deadline follows it"},
        {"min_repetitions", ParamType::integer, d.min_repetitions, 3, {}, {},
         "the least repetitions per GPU (3: a majority of its own)"},
        {"mib", ParamType::integer, static_cast<int>(d.mib), 1, {}, {},
         "MiB of input and as much of output per GPU (the share of HBM it exercises)"},
        {"rounds", ParamType::integer, static_cast<int>(d.rounds), 1, 4096, {}, "mix64 rounds per element"},
        {"seed", ParamType::integer, static_cast<int>(d.seed), 0, {}, {}, "the inputs' seed (the same on every GPU)"},
        {"cuda_library", ParamType::string, nullptr, {}, {}, {},
         "path of libcuda; default $GPUACCEPT_CUDA_LIBRARY, then libcuda.so.1"},
    };
    return i;
  }

  std::optional<ParamProblem> check_config(const nlohmann::json& params) const override {
    return check_params_and_parse(info(), params, [](const nlohmann::json& p) {
      params_of(p);
      library_paths(p);
    });
  }

  double deadline_s(const nlohmann::json& params, double probe_timeout_s) const override {
    return std::max(probe_timeout_s, params_of(params).duration_s + kSetupAllowanceS);
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    // Every rank makes the same collective calls (one allgather, one gather) whatever it finds.
    const auto rank_numa = local_rank_numa(ctx.comm, ctx.rank_hosts, ctx.hostname);
    std::vector<GpuRun> runs;
    Outcome result = run_local(ctx, out, rank_numa, runs);
    // Each GPU's most common digest to rank 0, as "place digest" lines.
    std::string mine;
    for (const auto& r : runs)
      if (r.error.empty() && !r.digests.empty()) {
        std::vector<std::string> d = r.digests;
        std::sort(d.begin(), d.end());
        std::string best;
        std::size_t best_n = 0;
        for (std::size_t i = 0, j; i < d.size(); i = j) {
          for (j = i; j < d.size() && d[j] == d[i]; ++j) {}
          if (j - i > best_n) best_n = j - i, best = d[i];
        }
        mine += r.place + " " + best + "\n";
      }
    const auto all = ctx.comm.gather(mine, 0);
    if (ctx.rank == 0) judge_against_majority(all, out);
    return result;
  }

 private:
  static void judge_against_majority(const std::vector<std::string>& all, SampleSink& out) {
    std::vector<std::pair<std::string, std::string>> gpus;  // place, digest
    for (const auto& text : all) {
      std::size_t at = 0;
      while (at < text.size()) {
        const std::size_t nl = text.find('\n', at), sp = text.find(' ', at);
        if (nl == std::string::npos || sp == std::string::npos || sp > nl) break;
        gpus.emplace_back(text.substr(at, sp - at), text.substr(sp + 1, nl - sp - 1));
        at = nl + 1;
      }
    }
    std::vector<std::string> digests;
    for (const auto& g : gpus) digests.push_back(g.second);
    const auto most = sdc::majority(digests);
    if (!most) return;  // two GPUs, or no digest more than half share: the reference and repetitions decide
    const auto agreeing = std::count(digests.begin(), digests.end(), *most);
    for (const auto& [where, dg] : gpus)
      out.value(where, "sdc.unlike_majority", dg == *most ? 0 : 1, unit::boolean,
                {{"gpus", gpus.size()}, {"agreeing", agreeing}});
  }

  Outcome run_local(ProbeContext& ctx, SampleSink& out, const std::vector<std::optional<int>>& rank_numa,
                    std::vector<GpuRun>& runs) {
    SdcParams p;
    LibraryPaths paths;
    try {
      p = params_of(ctx.params);
      paths = library_paths(ctx.params);
    } catch (const std::exception& e) {
      return Outcome::tool_error(e.what());  // the user's value, checked before the run too
    }
    const auto on_bus = nvidia_gpus_on_bus(ctx.host, ctx.sysfs_root);
    AccessOptions opt;
    opt.cuda_visible_devices_set = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
    GpuAccess access = open_gpus(on_bus, paths, opt);
    if (access.stop) return *access.stop;
    std::vector<PciGpu> pci;
    for (const auto& g : access.gpus) pci.push_back(g.pci);
    const auto assignment = assign_gpus(pci, rank_numa);
    const std::size_t me = static_cast<std::size_t>(ctx.local_rank);
    if (me >= assignment.size() || assignment[me].empty())
      return access.failure.empty() ? Outcome::ok("no GPU left for local rank " + std::to_string(ctx.local_rank))
                                    : Outcome::failed(access.failure);

    sdc::Workload w;
    w.elements = p.mib * kMiB / sizeof(std::uint64_t);
    w.rounds = p.rounds;
    w.seed = p.seed;
    std::vector<std::uint64_t> in, want;
    try {
      in = sdc::inputs(w);
      // The reference on this host's cores shared among its ranks (they compute it at once).
      const unsigned cores =
          std::max(1u, std::thread::hardware_concurrency() / static_cast<unsigned>(std::max(1, ctx.local_size)));
      want = sdc::expected(in, w.rounds, cores);
    } catch (const std::exception& e) {  // host memory for the inputs and the reference
      return Outcome::tool_error("sdc: the inputs and the reference of " + std::to_string(p.mib) +
                                 " MiB in host memory: " + e.what() + " (lower sdc.mib)");
    }

    std::vector<std::string> errors;
    for (std::size_t pos : assignment[me]) {
      const auto& g = access.gpus[pos];
      const std::string where = place::gpu(ctx.hostname, g.pci.index);
      GpuRun r = run_gpu(*access.driver, g, where, p, in, want, ctx);
      emit(r, p, w, out);
      if (!r.error.empty()) errors.push_back(r.error);
      runs.push_back(std::move(r));
    }
    if (!errors.empty()) {
      std::string why;
      for (const auto& e : errors) why += (why.empty() ? "" : "; ") + e;
      return Outcome::tool_error(why);
    }
    if (!access.failure.empty()) return Outcome::failed(access.failure);
    return Outcome::ok();
  }

  // A GPU whose repetitions did not all run emits nothing to judge: its outcome is the tool
  // error, and a criterion there is missing, never passed on what did run.
  static void emit(const GpuRun& r, const SdcParams& p, const sdc::Workload& w, SampleSink& out) {
    if (!r.error.empty()) return;
    const std::size_t bytes = w.elements * sizeof(std::uint64_t);
    nlohmann::json mp = {{"repetitions", r.repetitions}, {"elements", w.elements}, {"rounds", w.rounds}};
    if (r.first) {
      mp["first_repetition"] = r.first_repetition;
      mp["first_element"] = r.first->element;
      mp["got"] = hex(r.first->got);
      mp["expected"] = hex(r.first->want);
      mp["elements_differing"] = r.first->count;
    }
    out.value(r.place, "sdc.mismatched_repetitions", r.mismatched, unit::count, mp);
    out.value(r.place, "sdc.unlike_own_repetitions", sdc::unlike_most(r.digests), unit::count,
              {{"repetitions", r.repetitions}});
    out.value(r.place, "sdc.repetitions", r.repetitions, unit::count,
              {{"duration_s", p.duration_s}, {"elements", w.elements}, {"rounds", w.rounds}});
    const nlohmann::json tp = {{"bytes", bytes}, {"rounds", w.rounds}};
    for (std::size_t i = 0; i < r.seconds.size(); ++i) {
      out.value(r.place, "sdc.repetition_time", r.seconds[i], unit::seconds, tp, static_cast<int>(i));
      if (r.seconds[i] > 0)
        out.value(r.place, "sdc.rate", double(w.elements) * double(w.rounds) / r.seconds[i], "op/s", tp,
                  static_cast<int>(i));
    }
  }
};

}  // namespace

std::unique_ptr<Probe> make_sdc_probe() { return std::make_unique<SdcProbe>(); }

}  // namespace ga
