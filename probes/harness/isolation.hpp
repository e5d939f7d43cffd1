// Adaptive isolation: covering a large fabric in far fewer rounds than all pairs, then
// re-testing every suspect against known-good partners before anyone is blamed (issue 11).
//
// All pairs of N endpoints take N-1 rounds (4095 at 4096 hosts), so past a few dozen hosts
// each measurement must shrink to fit the deadline. A leaf-spine fabric does not need them:
// two hosts under one leaf share no link but their own cables, so each endpoint meets a few
// partners within its leaf group, a few in other groups chosen so that every two groups are
// sampled, and then only the suspects are measured again. NVIDIA's Cluster Readiness Engine
// works the same way (diagnose mode: 22 to 57 tests where pairwise needed 26,796).
//
// Pure and deterministic: endpoints, options and the pair results measured so far in, the
// next round (or done) and the verdict out. No MPI, no clock, no environment, so a probe
// calls it on rank 0 between collective rounds (p2p over MPI, NCCL per rail with another
// "measure these pairs" loop) and a unit test drives it with a simulated cluster.
//
// Phases, by round index (the caller reports each pair of round k with round = k):
//   infer      (2 rounds, only for endpoints without a leaf group): name-order neighbours
//              meet ((0,1), (2,3), ... then (1,2), (3,4), ...); the logs of their latencies
//              split into a low and a high cluster (Otsu's rule), kept when the two are at
//              least infer_gap apart and 4 pooled standard deviations, and a high neighbour
//              pair is a group boundary (both pairs of one endpoint over `ratio` x the median:
//              that endpoint is slow, not a boundary; left out of the clustering). Assumes hosts of a leaf have consecutive
//              names, as racks are usually named; without a gap the rail is one flat group.
//   cover      within each group, the first `group_partners` rounds of a round robin over a
//              seeded shuffle of its members; then cross rounds in which position i of group g
//              meets position i of the group g faces in group-round (t*S + i) mod R (the
//              group tournament's R rounds spread over the S positions), so every two groups
//              of equal size S meet in at least `group_pair_samples` pairs, each endpoint
//              meets at least `cross_partners` other groups, and members rotate every round
//              (a seeded shuffle, then t (1 + g) slots on) so a pair seldom comes twice. Rail by rail: endpoints meet only their own rail, all rails busy
//              in the same rounds.
//   follow_up  from the cover results: suspects are endpoints whose best pair (sending or
//              receiving) is worse than `ratio` x the reference, and pairs that their ends
//              do not explain, whatever the ends (cross-group pairs against the
//              cross-group reference, so the extra hop is not a fault). Each suspect endpoint
//              is re-paired with `confirm_partners` known-good endpoints (its own group first);
//              a suspect pair within a group is measured again; suspect pairs between groups
//              g and h are bisected: measured again, and, unless another g~h pair already
//              passed, `fresh_group_pairs` new pairs of known-good endpoints of g and h are
//              measured. At most `max_suspects` (worst first) and `max_followup_rounds`.
//   done
// Verdict: a suspect whose re-tests are slow too is blamed; one with a re-test that passes is
// cleared (with the evidence); one that was never re-tested (budget, time) is inconclusive.
// Groups g and h that pass alone (their endpoints are fine) and fail together (every pair
// between them slow, re-tests and fresh pairs too, or two different pairs slow again when no
// endpoint of either group is fresh) blame the inter-group link g~h, whose
// individual pairs are then not blamed; a mixed picture is inconclusive.
#pragma once
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ga::isolation {

struct Endpoint {
  std::string name;   // host, or host/rail:K
  std::string group;  // leaf switch group; "" = not known (inferred)
  int rail = 0;       // endpoints meet only endpoints of their own rail
};

// One measured quantity per directed pair (p2p: latency p50 and bandwidth; NCCL: busbw).
struct Basis {
  std::string name;
  bool lower_is_better = true;
  // Its own suspect ratio (0: Options::ratio): its factors are scaled by ratio / this, so one
  // threshold holds them all (p2p's p99 tail is noisier than its median: 3x).
  double ratio = 0;
  bool links = true;                // false: a property of endpoints only, never blamed on a pair
};

struct Options {
  std::vector<Basis> bases = {{"latency", true}};
  int infer_basis = 0;              // the basis whose clusters infer groups; -1: never infer (one group per rail)
  double infer_gap = 1.1;           // the two neighbour-latency clusters must be this ratio apart
  std::uint64_t seed = 1;
  int group_partners = 8;           // rounds within each group (all of its round robin when smaller)
  int cross_partners = 4;           // cross-group rounds at least
  int max_cross_rounds = 32;        // cross-group rounds at most (many small groups: fewer samples per group pair)
  int group_pair_samples = 2;       // pairs at least between every two groups of equal size
  double ratio = 1.5;               // worse than this x the reference is a suspect
  int confirm_partners = 2;         // known-good partners each suspect endpoint is re-tested against
  int fresh_group_pairs = 2;        // new pairs between two suspect groups
  int max_suspects = 16;            // endpoints, pairs and group pairs re-tested at most (worst first)
  int max_followup_rounds = 6;
};

// One direction of one pair in one round. Report every pair of a round, completed or not.
struct PairResult {
  int src = -1, dst = -1;           // endpoint indices: src initiates / sends
  int round = 0;                    // the Step's round
  bool completed = true;            // false: nothing of this direction completed
  std::vector<double> values;       // one per basis; NaN: that basis did not complete
};

enum class Phase { infer, cover, follow_up, done };
const char* to_string(Phase);

struct Step {
  Phase phase = Phase::done;
  int round = 0;
  std::vector<std::pair<int, int>> pairs;  // {a, b}, a < b; no endpoint twice; measure a->b and b->a
};

// How one measurement looked to the verdict: its factor against what was expected of it
// (the reference for an endpoint, what its ends explain for a pair); +inf: did not complete.
struct Evidence {
  int src = -1, dst = -1, round = 0;
  bool follow_up = false;
  double factor = 1;
};

enum class Kind { endpoint, link, group_link };
enum class Status { blamed, cleared, inconclusive };
const char* to_string(Kind);
const char* to_string(Status);

struct Finding {
  Kind kind = Kind::endpoint;
  Status status = Status::inconclusive;
  std::string place;                // endpoint name; "A~B" (endpoints); "g~h" (groups)
  int endpoint = -1;                // endpoint
  std::pair<int, int> link{-1, -1}; // link: its ends, a < b
  std::pair<std::string, std::string> groups;  // group_link, in name order
  int rail = 0;
  double factor = 1;                // how much worse it looked in the cover phase
  std::string why;                  // one line: why this status
  std::vector<Evidence> evidence;   // cover phase first, then the re-tests
};

struct Verdict {
  std::vector<Finding> findings;    // suspects of the cover phase, worst first
  int rounds = 0;                   // rounds measured
  std::vector<std::string> places(Kind, Status) const;
};

// One rail's groups as used: given, or inferred from the infer rounds.
struct Grouping {
  std::vector<std::string> group;   // per endpoint ("" never: inferred ones are "auto:FIRST")
  std::vector<bool> inferred;       // per endpoint
};

class Planner {
 public:
  // Throws std::invalid_argument on an empty endpoint name, a duplicate, or a bad option.
  Planner(std::vector<Endpoint> endpoints, Options opt = {});

  const std::vector<Endpoint>& endpoints() const { return ep_; }
  const Options& options() const { return opt_; }

  // The next round given everything measured so far (rounds 0..k-1 reported: round k).
  Step next(const std::vector<PairResult>& results) const;
  // Who is to blame given everything measured (any time; findings of suspects whose
  // re-tests have not run yet are inconclusive).
  Verdict verdict(const std::vector<PairResult>& results) const;
  // The groups used (inferred ones need the two infer rounds' results).
  Grouping groups(const std::vector<PairResult>& results) const;
  // At most this many rounds will be asked for in all, given what was measured so far (before
  // the infer rounds the cover phase's length is bounded by its options): for a time budget.
  int max_rounds(const std::vector<PairResult>& results = {}) const;
  // Rounds before the cover phase: 2 when some endpoint's group is unknown, else 0.
  int infer_rounds() const { return need_infer_ ? 2 : 0; }

  struct Impl;    // the analysis, in isolation.cpp
  struct Layout;  // the groups and the cover schedule's shape

 private:
  std::vector<Endpoint> ep_;
  Options opt_;
  bool need_infer_ = false;
  std::vector<std::vector<int>> by_rail_;  // rail slot -> endpoints in natural name order
  std::shared_ptr<const Layout> fixed_layout_;  // when no group is inferred
};

}  // namespace ga::isolation
