// mpi-coll: the collective sweep harness over MPI collectives on host memory (float32, sum).
// It runs without GPUs, so it exercises the same harness the nccl probe uses, and it is a
// fabric signal of its own: what MPI reaches between the job's ranks.
#include <memory>
#include <string>

#include "base/units.hpp"
#include "probes/harness/sweep.hpp"
#include "probes/devices/transport_maps.hpp"
#include "probes/mpicoll/mpi_coll_backend.hpp"
#include "probes/probe.hpp"
#include "topology/place.hpp"

namespace ga {
namespace {

// Host buffers: 16 MiB keeps a sweep of 7 collectives x 2 placements inside a default probe
// timeout on a 2-core machine running 4 ranks (docs/collectives.md).
constexpr std::uint64_t kDefaultMaxBytes = 16ull << 20;
// The sweep stops starting lines at this share of the time left, so gathering and the
// barrier that ends the probe still fit before the watchdog's deadline.
constexpr double kDefaultTimeShare = 0.7;

sweep::SweepConfig default_sweep() {
  sweep::SweepConfig d;
  d.probe = "mpi-coll";
  d.place = place::cluster();
  d.sizes.max_bytes = kDefaultMaxBytes;
  return d;
}

std::vector<ParamDecl> param_decls() {
  auto p = sweep::sweep_param_decls(default_sweep());
  p.push_back({"time_share", ParamType::number, kDefaultTimeShare, 0, 1, {},
               "share of the probe's time left that the sweep may use, in (0, 1]"});
  p.push_back({"corrupt", ParamType::mapping, nullptr, {}, {}, {},
               "test hook {collective, size, rank[, in_place]}: flip one output element of that line, which must then "
               "show mpi-coll.wrong = 1"});
  return p;
}

class MpiCollProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "mpi-coll";
    i.summary =
        "MPI collectives on host memory swept over sizes (nccl-tests style): time, algbw, busbw and a data "
        "check per line";
    // One set per line of the sweep (probes/harness/sweep.cpp line_samples), place cluster.
    using K = place::Kind;
    // line_samples' params (root: rooted collectives only); the probe adds no extra_params.
    const std::vector<std::string> line_keys = {"collective", "size", "count", "dtype", "in_place", "ranks", "root"};
    i.metrics = {
        MetricDecl{"mpi-coll.time", unit::seconds, Better::lower, "time of one operation of a line, the slowest rank's"}
            .at({K::cluster}).carries(line_keys),
        MetricDecl{"mpi-coll.algbw", unit::bytes_per_second, Better::higher, "algorithm bandwidth of a line: size over time"}
            .at({K::cluster}).carries(line_keys),
        MetricDecl{"mpi-coll.busbw", unit::bytes_per_second, Better::higher,
         "bus bandwidth of a line: algbw times the collective's factor (nccl-tests' busbw)"}
            .at({K::cluster}).carries(line_keys),
        MetricDecl{"mpi-coll.wrong", unit::count, Better::lower, "output elements of a line that differ from the expected, all ranks"}
            .at({K::cluster}).carries(line_keys),
    };
    // MPI's own transport on each host (probes/devices/transport_maps.hpp): collectives across
    // hosts over TCP where RDMA ports are up measure TCP.
    for (auto& m : mpi::mpi_transport_metrics(i.name)) i.metrics.push_back(std::move(m));
    i.params = param_decls();
    return i;
  }

  struct Config {
    sweep::SweepConfig sweep;
    std::optional<sweep::Corruption> corrupt;
    double share = kDefaultTimeShare;
  };
  // Everything the probe reads from its params; throws std::invalid_argument naming the key.
  static Config parse_config(const nlohmann::json& params) {
    Config c;
    c.sweep = sweep::sweep_config_from_params(params, default_sweep());
    if (params.contains("time_share")) {
      const auto& v = params.at("time_share");
      if (!v.is_number() || v.get<double>() <= 0 || v.get<double>() > 1)
        throw std::invalid_argument("time_share: " + v.dump() + " is not a number in (0, 1]");
      c.share = v.get<double>();
    }
    if (params.contains("corrupt")) c.corrupt = sweep::corruption_from_json(params.at("corrupt"));
    return c;
  }

  std::optional<ParamProblem> check_config(const nlohmann::json& params) const override {
    return check_params_and_parse(info(), params, [](const nlohmann::json& p) { parse_config(p); }, "mpi-coll: ");
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    // The run refuses undeclared parameters before it starts; a probe run some other way (a
    // unit test) checks them too. The same on every rank (one suite), so every rank returns alike.
    if (const auto bad = check_params(info(), ctx.params)) return Outcome::tool_error(bad->message);
    if (!ctx.comm.native()) return Outcome::skipped("no MPI: mpi-coll needs an MPI launch (mpirun)");
    if (ctx.size < 2) return Outcome::skipped("mpi-coll needs at least 2 ranks, the job has 1");

    Config c;
    try {
      c = parse_config(ctx.params);
    } catch (const std::exception& e) {
      return Outcome::tool_error(std::string("mpi-coll: ") + e.what());  // the user's value, checked before the run too
    }
    sweep::SweepConfig cfg = c.sweep;
    const std::optional<sweep::Corruption> corrupt = c.corrupt;
    const double share = c.share;
    cfg.deadline = std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(std::max(0.0, ctx.seconds_left() * share)));
    cfg.progress = ctx.progress;

#ifdef GA_WITH_MPI
    if (ctx.local_rank == 0 && ctx.host_count > 1) mpi::record_mpi_transport(ctx, out, "mpi-coll");
    auto backend = mpicoll::make_mpi_backend(ctx.comm.native(), corrupt);
    const auto res = sweep::run_sweep(ctx.comm, *backend, cfg, &out);
    if (!res.error.empty()) return Outcome::failed("mpi-coll: " + res.error);
    std::string note;
    if (!res.not_run.empty())
      note = std::to_string(res.not_run.size()) + " line(s) not run for lack of time, from " + res.not_run.front();
    if (res.wrong_total)
      note += (note.empty() ? "" : "; ") + std::to_string(res.wrong_total) + " wrong element(s), see mpi-coll.wrong";
    return Outcome::ok(note);
#else
    return Outcome::skipped("this gpuaccept was built without MPI");
#endif
  }
};

}  // namespace

std::unique_ptr<Probe> make_mpicoll_probe() { return std::make_unique<MpiCollProbe>(); }

}  // namespace ga
