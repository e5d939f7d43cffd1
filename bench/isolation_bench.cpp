// isolation_bench: the adaptive isolation schedule (probes/harness/isolation.hpp) on simulated
// leaf-spine clusters (bench/isolation_sim.hpp): 64 hosts in leaves of 16, 512 and 4096 in
// leaves of 32; one, two and three simultaneous faults of mixed kinds (a slow host; and a slow
// path between two leaves; and a leaf whose uplinks are slow), each 4x, under 5% noise. One line per
// (probe, hosts, faults):
//   probe=p2p hosts=4096 faults=3 seeds=100 right=0 inconclusive=100 wrong=0 rounds=22 plan_ms=168
// right: the faulty places blamed and nothing else named; inconclusive: some faulty place left
// inconclusive, nothing healthy named; wrong: a healthy place named or a faulty one passed
// (must be 0 on every line). rounds and plan_ms (the planner's own time, next() and verdict())
// are the maxima over the seeds. A plain program: exit 1 when any line has wrong > 0.
//   build/bench/isolation_bench [--seeds N]     (default 100; ~45 s on 2 cores)
// Only p2p's schedule so far: rdma's and the NCCL split are issue 37's items 1 and 2.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/isolation_sim.hpp"

int main(int argc, char** argv) {
  int seeds = 100;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--seeds") && i + 1 < argc) {
      seeds = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--seeds N]\n", argv[0]);
      return 2;
    }
  }
  if (seeds < 1) {
    std::fprintf(stderr, "isolation_bench: --seeds must be a whole number >= 1\n");
    return 2;
  }
  bool any_wrong = false;
  for (auto [hosts, leaf] : {std::pair{64, 16}, std::pair{512, 32}, std::pair{4096, 32}})
    for (int faults = 1; faults <= 3; ++faults) {
      const auto l = ga::isolation_sim::run_line(hosts, leaf, faults, seeds);
      std::printf("probe=p2p hosts=%d faults=%d seeds=%d right=%d inconclusive=%d wrong=%d rounds=%d plan_ms=%.0f\n",
                  hosts, faults, seeds, l.right, l.inconclusive, l.wrong, l.rounds, l.plan_ms);
      for (const auto& w : l.wrong_why) std::printf("  wrong: %s\n", w.c_str());
      std::fflush(stdout);
      any_wrong = any_wrong || l.wrong > 0;
    }
  return any_wrong ? 1 : 0;
}
