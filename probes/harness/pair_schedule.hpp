// Who measures against whom, and when: every pair of hosts in N-1 rounds of a round-robin
// tournament (circle method), every host busy in every round (N odd: one bye per round).
// Shared by every pair probe (p2p over MPI, RDMA write): a probe asks for the schedule once,
// then walks the rounds; in each round a pair measures A->B, then B->A.
//
// Two layers: `round_robin` / `opponent` work on abstract participants 0..n-1 and are O(1)
// per lookup, so a rank at 4096 hosts can find its own partner without materialising the
// 8 M pairs; `PairPlan` turns the ranks of a run into concrete rank pairs, round by round,
// and `build_pair_schedule` writes every round out (fine up to a few hundred hosts).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ga::pairs {

// Rounds of the tournament among n participants: n-1 when n is even, n when n is odd
// (each participant sits out exactly one round), 0 when n < 2.
int round_count(int n);

// The partner of participant p in round r, or -1 for a bye. Symmetric:
// opponent(n, r, opponent(n, r, p)) == p. Throws std::out_of_range on a bad n, r or p.
int opponent(int n, int r, int p);

// The pairs of round r, each as {lower, higher} participant index, sorted by the lower one.
std::vector<std::pair<int, int>> round_pairs(int n, int r);

// One measurement slot: rank a and rank b measure a->b, then b->a.
struct RankPair {
  int a = -1, b = -1;                 // world ranks; a's host sorts before b's
  int host_a = -1, host_b = -1;       // host indices (order of first appearance in rank_hosts)
  int rail = 0;                       // NIC rail (the local rank used on both hosts)
  bool intra_host = false;            // both ranks on one host
};

struct Round {
  std::vector<RankPair> pairs;        // disjoint: no rank twice in a round
};

enum class PairUnit { host, rail };

struct ScheduleOptions {
  // host: the first rank of each host stands for it. rail: local rank k of every host is
  // rail k, and rail k of host A measures rail k of host B in the same round (all rails busy).
  PairUnit unit = PairUnit::host;
  int max_rails = 0;                  // rail mode: at most this many rails (0 = all)
  // Pairs inside a host: host mode measures local ranks 0<->1 of every host with 2+ ranks;
  // rail mode runs a round robin among the rails of each host. All hosts at once.
  bool intra_host = true;
};

// The schedule is computed, not stored: a round (or one rank's partner in it) is derived on
// demand in O(pairs of the round) (or O(1)), so 4096 hosts cost O(N) memory, not 8 M pairs.
class PairPlan {
 public:
  // rank_hosts: the host of every world rank (ProbeContext::rank_hosts). Ranks of one host
  // need not be contiguous. Throws std::invalid_argument on an empty host name.
  explicit PairPlan(const std::vector<std::string>& rank_hosts, ScheduleOptions opt = {});

  const std::vector<std::string>& hosts() const { return hosts_; }  // index -> name, first appearance
  int inter_rounds() const;           // rounds between hosts (N-1 or N)
  int intra_rounds() const;           // rounds inside hosts, run after the inter-host rounds
  Round inter_round(int r) const;     // throws std::out_of_range
  Round intra_round(int r) const;
  // The pair `rank` belongs to in that round, if any (a bye or an idle rank: nullopt).
  std::optional<RankPair> inter_pair_of(int rank, int r) const;
  std::optional<RankPair> intra_pair_of(int rank, int r) const;
  std::size_t pair_count() const;     // unordered pairs, inter + intra

 private:
  int rails_of(int host) const;       // ranks of the host that take part between hosts
  int locals_of(int host) const;      // ranks of the host that take part inside it
  ScheduleOptions opt_;
  std::vector<std::string> hosts_;
  std::vector<std::vector<int>> ranks_of_;  // host -> its ranks in rank order
  std::vector<int> host_of_rank_, local_of_rank_;
  int max_rails_ = 0, max_locals_ = 0;
};

// Every round written out: the plan's rounds in order.
struct PairSchedule {
  std::vector<std::string> hosts;     // host index -> name, in order of first appearance
  std::vector<Round> inter;           // rounds between hosts
  std::vector<Round> intra;           // rounds inside hosts, after the inter-host rounds
  std::size_t pair_count() const;     // unordered pairs, inter + intra
};

PairSchedule build_pair_schedule(const std::vector<std::string>& rank_hosts, const ScheduleOptions& opt = {});

}  // namespace ga::pairs
