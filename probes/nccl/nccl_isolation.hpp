// The nccl probe's isolation pass (issue 12): when a scope across hosts falls short, find the
// GPU/NIC rail endpoint or the link to blame instead of failing `cluster`.
//
// The endpoints are HOST/rail:K, one per GPU that takes part (K: its position among its host's
// GPUs, the GPU's rail: on a rail-optimised node the GPU's NIC is rail K's). Rounds of disjoint
// pairs come from the same planner the fabric uses (probes/harness/isolation.hpp): cover
// rounds pair every endpoint with several others of its rail, then each suspect is re-tested
// against known-good partners and each suspect pair measured again. One pair measurement is a
// 2-rank NCCL communicator and an all_reduce of `bytes` (2 ranks: busbw = algbw), data-checked,
// the best of a few timed runs, all pairs of a round at once (one after another where hosts
// share one kernel, and so its cores). Each measurement is a sample (nccl.pair_busbw, or
// nccl.pair_completed = 0 with why) at the pair, params {direction, size, pass (1 cover,
// 2 re-test), rail, path: inter, round}; the judge's culprit analysis
// (suites/fabric_analysis.hpp) turns them into nccl.host_slowdown per endpoint and
// nccl.link_slowdown per pair, and fails only what a re-test confirmed.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "probes/probe.hpp"
#include "probes/vendor/cuda_driver.hpp"
#include "probes/vendor/nccl_api.hpp"

namespace ga::gpu {

struct IsolationConfig {
  std::uint64_t bytes = 1u << 20;   // each pair's all_reduce
  int warmup_iters = 1, iters = 5;
  int repeats = 3;                  // timed runs of `iters` each; the best counts
  double ratio = 1.5;               // a pair this much worse than the reference makes a suspect
  int partners = 2;                 // known-good partners each suspect is re-tested against
  int max_suspects = 16;
  int max_followup_rounds = 6;
  double round_s = 20;              // a pair still running this long into its round is aborted
  std::chrono::steady_clock::time_point stop_at;   // no round starts after this
  std::chrono::steady_clock::time_point abort_at;  // the probe's own abort point
};

// What this rank brings: whether it takes part, its rail, and its GPU as the report names it.
struct IsolationRank {
  bool usable = false;
  int rail = 0;
  std::string gpu_place;             // HOST/gpu:N
  std::vector<std::string> nics;     // the GPU's nearest NICs (topology)
  const CudaDriver* driver = nullptr;
  const Nccl* nccl = nullptr;
};

// Collective over `comm` (the probe's own copy of ctx.comm, same ranks): every rank calls it. Emits the pair samples (rank 0) and each
// endpoint's devices (nccl.rail_devices). Returns rank 0's note (rounds, suspects, what the
// planner made of them); "" elsewhere.
std::string run_isolation(ProbeContext& ctx, Comm& comm, SampleSink& out, const IsolationRank& me,
                          const IsolationConfig& cfg);

}  // namespace ga::gpu
