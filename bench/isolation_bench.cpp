// isolation_bench: how long the adaptive schedule (probes/harness/isolation.hpp) takes to plan
// a whole run, every round and the verdict, on a simulated cluster: 512 and 4096 hosts in
// leaves of 32, one rail, noise only and with two bad hosts. The target (issue 11): the
// schedule for 4096 hosts in under a second. The simulated measurements cost almost nothing,
// so the time is the planner's.
//   build-*/bench/isolation_bench [--benchmark_repetitions=3]
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "probes/harness/isolation.hpp"

namespace {

using namespace ga::isolation;

std::vector<Endpoint> cluster(int n, int leaf) {
  std::vector<Endpoint> ep;
  for (int i = 0; i < n; ++i) {
    char h[16], g[16];
    std::snprintf(h, sizeof h, "n%04d", i + 1);
    std::snprintf(g, sizeof g, "leaf%03d", i / leaf + 1);
    ep.push_back({h, g, 0});
  }
  return ep;
}

// Plans and "measures" every round to done, then the verdict; returns the rounds.
int run_once(const Planner& planner, int leaf, int bad_a, int bad_b, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.05);
  std::vector<PairResult> res;
  int rounds = 0;
  for (;;) {
    const Step s = planner.next(res);
    if (s.phase == Phase::done) break;
    ++rounds;
    for (auto [a, b] : s.pairs)
      for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
        const double slow = (x == bad_a || y == bad_a || x == bad_b || y == bad_b) ? 4 : 1;
        const double hop = x / leaf != y / leaf ? 1.3 : 1.0;
        res.push_back({x, y, s.round, true, {2e-6 * hop * slow * std::exp(noise(rng)), 25e9 / slow * std::exp(noise(rng))}});
      }
  }
  benchmark::DoNotOptimize(planner.verdict(res));
  return rounds;
}

void BM_Schedule(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const bool faults = state.range(1) != 0;
  Options o;
  o.bases = {{"latency", true}, {"bw", false}};
  const Planner planner(cluster(n, 32), o);
  int rounds = 0;
  std::uint64_t seed = 1;
  for (auto _ : state) rounds = run_once(planner, 32, faults ? 5 : -1, faults ? n - 7 : -1, seed++);
  state.counters["rounds"] = rounds;
  state.counters["all_pairs_rounds"] = n - 1;
}
BENCHMARK(BM_Schedule)->Args({512, 0})->Args({512, 1})->Args({4096, 0})->Args({4096, 1})->Unit(benchmark::kMillisecond);

// The cover phase alone: what rank 0 computes per round while nothing is suspect.
void BM_CoverRounds4096(benchmark::State& state) {
  const Planner planner(cluster(4096, 32));
  for (auto _ : state) {
    std::vector<PairResult> res;
    for (;;) {
      const Step s = planner.next(res);
      if (s.phase != Phase::cover) break;
      for (auto [a, b] : s.pairs) res.push_back({a, b, s.round, true, {1e-6}}), res.push_back({b, a, s.round, true, {1e-6}});
    }
    benchmark::DoNotOptimize(res.size());
  }
}
BENCHMARK(BM_CoverRounds4096)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
