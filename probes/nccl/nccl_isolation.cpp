// The nccl probe's isolation pass; see nccl_isolation.hpp for what it measures and why.
#include "probes/nccl/nccl_isolation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>

#include "base/sysfs_read.hpp"
#include "base/units.hpp"
#include "probes/harness/isolation.hpp"
#include "probes/harness/sweep.hpp"
#include "probes/harness/comm_split.hpp"
#include "probes/nccl/nccl_backend.hpp"
#include "topology/place.hpp"

namespace ga::gpu {

namespace {

// One pair's measurement, as the pair's first rank reports it to rank 0.
struct PairLine {
  int a = -1, b = -1;        // world ranks
  double busbw = NAN;        // B/s; NaN when it did not complete
  std::string why;
};

std::string encode(const PairLine& p) {
  std::ostringstream o;
  o.precision(17);
  o << p.a << ' ' << p.b << ' ' << p.busbw << ' ' << p.why;
  return o.str();
}

PairLine decode(const std::string& s) {
  PairLine p;
  std::istringstream in(s);
  std::string bw;
  in >> p.a >> p.b >> bw;
  p.busbw = bw == "nan" ? NAN : std::strtod(bw.c_str(), nullptr);
  std::getline(in >> std::ws, p.why);
  return p;
}

// The all_reduce of one pair, on the pair's 2-rank communicator `sub`. busbw or why not.
PairLine measure_pair(Comm& sub, const IsolationRank& me, const IsolationConfig& cfg,
                      std::chrono::steady_clock::time_point abort_at) {
  PairLine r;
  std::string err;
  std::unique_ptr<Nccl::Comm> comm;
  std::string id;
  if (sub.rank() == 0) {
    try {
      const auto u = me.nccl->unique_id();
      id = "ok" + std::string(u.begin(), u.end());
    } catch (const std::exception& e) {
      id = "er" + std::string(e.what());
    }
  }
  id = sub.broadcast(id, 0);
  if (id.rfind("ok", 0) == 0) {
    NcclUniqueId u{};
    std::copy(id.begin() + 2, id.begin() + 2 + std::min<std::size_t>(u.size(), id.size() - 2), u.begin());
    try {
      comm = std::make_unique<Nccl::Comm>(*me.nccl, 2, u, sub.rank());
    } catch (const std::exception& e) {
      err = e.what();
    }
  } else {
    err = "ncclGetUniqueId: " + id.substr(2);
  }
  // Both ranks learn whether both have a communicator: one alone would wait in the all_reduce.
  if (sub.allreduce_max(comm ? 0 : 1) > 0) {
    r.why = err.empty() ? "the communicator init failed on the other GPU" : "communicator init: " + err;
    if (comm) comm->abort();
    return r;
  }
  sweep::SweepConfig sc;
  sc.probe = "nccl";
  sc.collectives = {sweep::Collective::all_reduce};
  sc.sizes = {cfg.bytes, cfg.bytes, 2.0};
  sc.in_place = false;
  sc.warmup_iters = cfg.warmup_iters;
  sc.min_iters = sc.max_iters = cfg.iters;
  auto backend = make_nccl_backend(*me.driver, *comm, std::nullopt, abort_at);
  // The best of `repeats` timed runs: a moment the GPU, the NIC or (fake hosts) the shared cores
  // were busy elsewhere lowers one run, a slow NIC or cable lowers every one.
  double best = 0;
  for (int k = 0; k < cfg.repeats; ++k) {
    const auto res = sweep::run_sweep(sub, *backend, sc, nullptr);
    if (!res.error.empty() || res.lines.empty()) {
      const bool hung = nccl_backend_aborted(*backend);
      r.why = hung ? "aborted: still running at the round's time limit (" + res.error + ")"
                   : res.error.empty() ? "no line ran" : res.error;
      backend.reset();
      comm->abort();
      return r;
    }
    const auto& l = res.lines.front();
    if (l.wrong > 0) {
      r.why = std::to_string(l.wrong) + " wrong element(s) in the all_reduce";
      return r;
    }
    best = std::max(best, l.busbw);
  }
  r.busbw = best;
  return r;
}

// Whether two hosts of this job run on one kernel (the same boot_id: fake hosts, containers of
// one machine). Collective over comm.
bool hosts_share_a_kernel(const ProbeContext& ctx, Comm& comm) {
  const auto id = sysfs::boot_id();
  const auto all = comm.allgather((id ? *id : std::string("?")) + " " + ctx.hostname);
  std::map<std::string, std::string> host_of_kernel;
  for (const auto& s : all) {
    const auto sp = s.find(' ');
    const std::string kernel = s.substr(0, sp), host = s.substr(sp + 1);
    if (kernel == "?") continue;
    auto [it, fresh] = host_of_kernel.try_emplace(kernel, host);
    if (!fresh && it->second != host) return true;
  }
  return false;
}

std::string list_text(const std::vector<std::string>& v, std::size_t most = 4) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < most; ++i) s += (s.empty() ? "" : ", ") + v[i];
  if (v.size() > most) s += " and " + std::to_string(v.size() - most) + " more";
  return s.empty() ? "none" : s;
}

}  // namespace

std::string run_isolation(ProbeContext& ctx, Comm& comm, SampleSink& out, const IsolationRank& me,
                          const IsolationConfig& cfg) {
  // Who takes part: "1 RAIL GPU_PLACE NIC,NIC" or "0", gathered on rank 0.
  std::string mine = "0";
  if (me.usable) {
    std::string nics;
    for (const auto& n : me.nics) nics += (nics.empty() ? "" : ",") + n;
    mine = "1 " + std::to_string(me.rail) + " " + me.gpu_place + " " + (nics.empty() ? "-" : nics);
  }
  const auto all = comm.gather(mine, 0);
  // Hosts on one kernel share its cores: pairs measured at once would slow each other down,
  // and a pair's figure would say more about what the others did than about its own GPUs and
  // NICs. There a round's pairs are measured one after another; elsewhere all at once.
  const bool one_by_one = hosts_share_a_kernel(ctx, comm);

  std::unique_ptr<isolation::Planner> planner;
  std::vector<int> rank_of;                 // endpoint -> world rank
  std::map<int, int> endpoint_of;           // world rank -> endpoint
  std::vector<isolation::PairResult> results;
  std::string note;
  if (ctx.rank == 0) {
    std::vector<isolation::Endpoint> eps;
    for (std::size_t r = 0; r < all.size(); ++r) {
      std::istringstream in(all[r]);
      int usable = 0, rail = 0;
      std::string gpu, nics;
      in >> usable >> rail >> gpu >> nics;
      if (!usable) continue;
      const std::string name = place::rail(ctx.rank_hosts[r], rail);
      endpoint_of[static_cast<int>(r)] = static_cast<int>(eps.size());
      rank_of.push_back(static_cast<int>(r));
      eps.push_back({name, "", rail});
      // What the endpoint is, so the verdict can name the card and the NIC to look at.
      out.text(name, "nccl.rail_devices", "GPU " + gpu + (nics == "-" ? "" : ", NIC " + nics),
               {{"gpu", gpu}, {"nics", nics == "-" ? "" : nics}});
    }
    isolation::Options o;
    o.bases = {{"busbw", false, 0, true}};
    o.infer_basis = -1;  // one group per rail: busbw does not show leaf boundaries
    o.ratio = cfg.ratio;
    o.confirm_partners = cfg.partners;
    o.max_suspects = cfg.max_suspects;
    o.max_followup_rounds = cfg.max_followup_rounds;
    try {
      planner = std::make_unique<isolation::Planner>(std::move(eps), o);
    } catch (const std::exception& e) {
      note = std::string("isolation not run: ") + e.what();
    }
  }

  double longest_round = 0;
  int rounds = 0;
  for (;;) {
    // Rank 0 asks the planner and says "ROUND PASS a b a b ..." (world ranks), or "" to stop.
    std::string line;
    if (ctx.rank == 0 && planner) {
      const auto left = std::chrono::duration<double>(cfg.stop_at - std::chrono::steady_clock::now()).count();
      const auto s = planner->next(results);
      if (s.phase != isolation::Phase::done && !s.pairs.empty()) {
        if (left < longest_round * 1.5 + 0.5) {
          note = "isolation stopped for lack of time after " + std::to_string(rounds) + " round(s)";
        } else {
          std::ostringstream o;
          o << s.round << ' ' << (s.phase == isolation::Phase::follow_up ? 2 : 1);
          for (auto [a, b] : s.pairs) o << ' ' << rank_of[static_cast<std::size_t>(a)] << ' ' << rank_of[static_cast<std::size_t>(b)];
          line = o.str();
        }
      }
    }
    line = comm.broadcast(line, 0);
    if (line.empty()) break;
    if (ctx.rank == 0) ctx.report_step("isolation, 2-GPU all_reduce pairs", rounds + 1, planner->max_rounds(results), "rounds", StepCount::at_most);
    const auto t0 = std::chrono::steady_clock::now();
    std::istringstream in(line);
    int round = 0, pass = 1, a, b, color = -1, key = 0, idx = 0;
    in >> round >> pass;
    while (in >> a >> b) {
      if (ctx.rank == a || ctx.rank == b) color = idx, key = ctx.rank == a ? 0 : 1;
      ++idx;
    }
    auto sub = split_comm(comm, color, key);
    std::string result;
    for (int slot = 0; slot < (one_by_one ? idx : 1); ++slot) {
      if (sub && sub->size() == 2 && (!one_by_one || color == slot)) {
        const auto start = std::chrono::steady_clock::now();
        const auto round_abort = std::min(cfg.abort_at, start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                                    std::chrono::duration<double>(cfg.round_s)));
        PairLine p = measure_pair(*sub, me, cfg, round_abort);
        if (sub->rank() == 0) {
          p.a = ctx.rank;
          p.b = static_cast<int>(std::lround(sub->allreduce_max(-1)));
        } else {
          sub->allreduce_max(ctx.rank);
        }
        if (sub->rank() == 0) result = encode(p);
      }
      if (one_by_one) comm.barrier();  // polite: the waiting ranks sleep
    }
    const auto got = comm.gather(result, 0);
    ++rounds;
    longest_round = std::max(longest_round, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (ctx.rank != 0) continue;
    for (const auto& g : got) {
      if (g.empty()) continue;
      const PairLine p = decode(g);
      const auto ia = endpoint_of.find(p.a), ib = endpoint_of.find(p.b);
      if (ia == endpoint_of.end() || ib == endpoint_of.end()) continue;
      const auto& eps = planner->endpoints();
      int ea = ia->second, eb = ib->second;
      if (ea > eb) std::swap(ea, eb);
      const std::string na = eps[static_cast<std::size_t>(ea)].name, nb = eps[static_cast<std::size_t>(eb)].name;
      // An all_reduce of two ranks moves the same bytes both ways at once: one figure, both
      // directions to the planner, one sample (direction: the endpoint named first).
      for (auto [s, d] : {std::pair{ea, eb}, std::pair{eb, ea}}) {
        isolation::PairResult pr;
        pr.src = s, pr.dst = d, pr.round = round;
        pr.completed = std::isfinite(p.busbw);
        pr.values = {p.busbw};
        results.push_back(pr);
      }
      nlohmann::json params = {{"direction", na + "->" + nb}, {"size", cfg.bytes}, {"pass", pass},
                               {"rail", eps[static_cast<std::size_t>(ea)].rail}, {"path", "inter"}, {"round", round}};
      nlohmann::json done = params;
      if (!std::isfinite(p.busbw)) done["why"] = p.why.empty() ? "did not complete" : p.why;
      const std::string at = place::pair(na, nb);
      out.value(at, "nccl.pair_completed", std::isfinite(p.busbw) ? 1 : 0, unit::boolean, done);
      if (std::isfinite(p.busbw)) out.value(at, "nccl.pair_busbw", p.busbw, unit::bytes_per_second, params);
    }
  }
  if (ctx.rank != 0 || !planner) return note;
  const auto v = planner->verdict(results);
  std::ostringstream o;
  o << "isolation: " << rounds << " round(s) of 2-GPU all_reduce (" << cfg.bytes << " B) over "
    << planner->endpoints().size() << " rail endpoint(s)"
    << (one_by_one ? ", the pairs of a round one after another (hosts share one kernel)" : "") << ", "
    << v.findings.size() << " suspect(s)";
  using isolation::Kind;
  using isolation::Status;
  std::vector<std::string> blamed, cleared, open;
  for (const auto& f : v.findings)
    (f.status == Status::blamed ? blamed : f.status == Status::cleared ? cleared : open).push_back(f.place);
  if (!v.findings.empty())
    o << " (the planner's view at " << cfg.ratio << "x, the verdicts are the judge's nccl.rail.busbw and "
      << "nccl.link.busbw: slow again when re-tested: " << list_text(blamed) << "; cleared: " << list_text(cleared)
      << "; not re-tested: " << list_text(open) << ")";
  if (!note.empty()) o << "; " << note;
  return o.str();
}

}  // namespace ga::gpu
