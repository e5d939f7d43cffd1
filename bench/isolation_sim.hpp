// A simulated leaf-spine cluster for the adaptive isolation schedule (probes/harness/
// isolation.hpp): hosts in leaves, 5% lognormal noise on every measurement, and up to three
// simultaneous faults of mixed kinds (a slow host; a slow path between two leaves, as a spine
// link that static InfiniBand routing gives to one leaf pair; a leaf whose uplinks are slow,
// so all its traffic to other leaves is). There is no host-to-host cable in a leaf-spine
// fabric: a host's cable to its leaf is the host, as the schedule sees it. One run drives a Planner to done and scores its verdict against the
// faults it was given. Shared by bench/isolation_bench (100 seeds, printed) and the unit test
// that runs a smaller set in CI (tests/unit/probes_isolation_sim_test.cpp).
//
// Scoring (issue 37): right when the faulty places are blamed and nothing else is named;
// inconclusive when, besides that, some faulty place is inconclusive rather than blamed;
// wrong when a healthy place is blamed or left inconclusive, or a faulty place is cleared or
// not named at all. The schedule has no place for a leaf's uplinks: it names them as the links
// between that leaf and the others it found slow ("leaf003~leaf007"), so a finding on a group
// link with an end at that leaf is at that fault (docs/fabric.md says the same).
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "probes/harness/isolation.hpp"

namespace ga::isolation_sim {

using namespace ga::isolation;

enum class FaultKind { host, leaf_path, leaf_uplink };
inline const char* to_string(FaultKind k) {
  return k == FaultKind::host ? "host" : k == FaultKind::leaf_path ? "leaf_path" : "leaf_uplink";
}

struct Fault {
  FaultKind kind;
  std::string place;  // as the verdict names it: host, "leafG~leafH"; leaf_uplink: "leafG"
};

inline std::string host_name(int i) {
  char b[16];
  std::snprintf(b, sizeof b, "n%04d", i + 1);
  return b;
}
inline std::string leaf_name(int g) {
  char b[16];
  std::snprintf(b, sizeof b, "leaf%03d", g + 1);
  return b;
}

struct Cluster {
  int hosts = 0, leaf = 32;
  double noise = 0.05;
  std::vector<double> host_slow;               // per host: 1 healthy
  std::map<std::pair<int, int>, double> path;   // leaf pair (g < h)
  std::map<int, double> uplink;                 // leaf: all its traffic to other leaves
  std::vector<Fault> faults;

  int group_of(int h) const { return h / leaf; }
  int groups() const { return (hosts + leaf - 1) / leaf; }
  std::vector<Endpoint> endpoints() const {
    std::vector<Endpoint> ep;
    for (int i = 0; i < hosts; ++i) ep.push_back({host_name(i), leaf_name(group_of(i)), 0});
    return ep;
  }
  // One direction: latency (s) and bandwidth (B/s), slowed by what it crosses.
  std::vector<double> measure(int a, int b, std::mt19937_64& rng) const {
    std::normal_distribution<double> n(0, noise);
    const int ga = group_of(a), gb = group_of(b);
    double slow = std::max(host_slow[std::size_t(a)], host_slow[std::size_t(b)]);
    if (ga != gb) {
      if (auto it = path.find(std::minmax(ga, gb)); it != path.end()) slow = std::max(slow, it->second);
      for (int g : {ga, gb})
        if (auto it = uplink.find(g); it != uplink.end()) slow = std::max(slow, it->second);
    }
    const double hop = ga != gb ? 1.3 : 1.0;
    const double lat = 2e-6 * hop * slow * std::exp(n(rng));
    return {lat, 25e9 / slow * std::exp(n(rng)), lat * 1.5 * std::exp(n(rng))};
  }
};

// `faults` of mixed kinds, distinct places, drawn from `rng`, each 4x slow: one fault is a
// host; two, a host and a leaf pair's path; three, those and a leaf's uplinks. The leaves of
// the path and the uplink are distinct, and the host is in none of them.
inline Cluster make_cluster(int hosts, int leaf, int faults, std::mt19937_64& rng) {
  Cluster c;
  c.hosts = hosts, c.leaf = leaf;
  c.host_slow.assign(std::size_t(hosts), 1.0);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::set<int> used_groups;
  auto fresh_group = [&] {
    for (;;) {
      const int g = pick(c.groups());
      if (!used_groups.count(g)) return used_groups.insert(g), g;
    }
  };
  const int host_group = fresh_group();
  const int h = host_group * leaf + pick(leaf);
  c.host_slow[std::size_t(h)] = 4.0;
  c.faults.push_back({FaultKind::host, host_name(h)});
  if (faults >= 2) {
    const int g = fresh_group(), k = fresh_group();
    c.path[std::minmax(g, k)] = 4.0;
    c.faults.push_back({FaultKind::leaf_path, leaf_name(std::min(g, k)) + "~" + leaf_name(std::max(g, k))});
  }
  if (faults >= 3) {
    const int g = fresh_group();
    c.uplink[g] = 4.0;
    c.faults.push_back({FaultKind::leaf_uplink, leaf_name(g)});
  }
  return c;
}

enum class Score { right, inconclusive, wrong };

struct RunResult {
  Score score = Score::right;
  int rounds = 0;
  double plan_ms = 0;  // the planner's time (next() and verdict()), not the simulated measuring
  std::string why;     // for a wrong one: what was named or missed
};

inline RunResult run(const Cluster& c, const Options& opt, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  RunResult r;
  const Planner planner(c.endpoints(), opt);
  std::vector<PairResult> res;
  double plan_s = 0;
  auto timed = [&](auto&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    auto v = f();
    plan_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return v;
  };
  for (;;) {
    const Step s = timed([&] { return planner.next(res); });
    if (s.phase == Phase::done) break;
    ++r.rounds;
    for (auto [a, b] : s.pairs) {
      res.push_back({a, b, s.round, true, c.measure(a, b, rng)});
      res.push_back({b, a, s.round, true, c.measure(b, a, rng)});
    }
  }
  const Verdict v = timed([&] { return planner.verdict(res); });
  r.plan_ms = plan_s * 1e3;
  // What each finding is at: a fault's place, or "" (a healthy place).
  std::vector<std::string> uplinks;
  std::set<std::string> faulty;
  for (const auto& f : c.faults) {
    faulty.insert(f.place);
    if (f.kind == FaultKind::leaf_uplink) uplinks.push_back(f.place);
  }
  // A link between two hosts is at a fault it crosses: an end that is the slow host, the slow
  // path between its ends' leaves, or an end's leaf whose uplinks are slow.
  auto fault_of = [&](const Finding& f) -> std::string {
    if (faulty.count(f.place)) return f.place;
    std::string ga, gb;
    if (f.kind == Kind::group_link) ga = f.groups.first, gb = f.groups.second;
    if (f.kind == Kind::link) {
      for (int e : {f.link.first, f.link.second})
        if (faulty.count(host_name(e))) return host_name(e);
      ga = leaf_name(c.group_of(f.link.first)), gb = leaf_name(c.group_of(f.link.second));
      if (ga == gb) return "";
      if (faulty.count(std::min(ga, gb) + "~" + std::max(ga, gb))) return std::min(ga, gb) + "~" + std::max(ga, gb);
    }
    for (const auto& u : uplinks)
      if (ga == u || gb == u) return u;
    return "";
  };
  std::set<std::string> blamed, unsure, cleared;
  for (const auto& f : v.findings) {
    const std::string at = fault_of(f);
    if (at.empty() && f.status != Status::cleared) {
      r.score = Score::wrong;
      r.why += std::string(" ") + (f.status == Status::blamed ? "blamed" : "inconclusive at") + " healthy " + f.place + ";";
    }
    if (!at.empty()) (f.status == Status::blamed ? blamed : f.status == Status::inconclusive ? unsure : cleared).insert(at);
  }
  for (const auto& p : faulty)
    if (!blamed.count(p) && !unsure.count(p))
      r.score = Score::wrong, r.why += " missed " + p + (cleared.count(p) ? " (cleared)" : "") + ";";
  if (r.score != Score::wrong)
    for (const auto& p : faulty)
      if (!blamed.count(p)) r.score = Score::inconclusive;
  return r;
}

// p2p's options (probes/p2p/p2p_probe.cpp): latency, bandwidth and the p99 tail (endpoints only).
inline Options p2p_options(std::uint64_t seed) {
  Options o;
  o.bases = {{"latency", true, 0, true}, {"bw", false, 0, true}, {"latency_p99", true, 3.0, false}};
  o.seed = seed;
  return o;
}

struct Line {
  int right = 0, inconclusive = 0, wrong = 0, rounds = 0;
  double plan_ms = 0;
  std::vector<std::string> wrong_why;  // seed: why, for the first few
};

inline Line run_line(int hosts, int leaf, int faults, int seeds, std::uint64_t base_seed = 1) {
  Line l;
  for (int s = 0; s < seeds; ++s) {
    const std::uint64_t seed = base_seed + std::uint64_t(s) * 7919 + std::uint64_t(hosts) * 31 + std::uint64_t(faults);
    std::mt19937_64 rng(seed);
    const Cluster c = make_cluster(hosts, leaf, faults, rng);
    const RunResult r = run(c, p2p_options(seed), seed ^ 0x5bd1e995);
    (r.score == Score::right ? l.right : r.score == Score::inconclusive ? l.inconclusive : l.wrong)++;
    l.rounds = std::max(l.rounds, r.rounds);
    l.plan_ms = std::max(l.plan_ms, r.plan_ms);
    if (r.score == Score::wrong && l.wrong_why.size() < 3) l.wrong_why.push_back("seed " + std::to_string(seed) + ":" + r.why);
  }
  return l;
}

}  // namespace ga::isolation_sim
