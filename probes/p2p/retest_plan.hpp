// The second pass: which pairs to measure again before anyone is blamed (Google's
// cluster-health-scanner re-pairs a failed node with a good one; imbue repeats random
// pairings). The probe does not judge: it re-tests generously (a lower bar than the
// built-in criteria) so that whatever the judge later calls a suspect has a re-test to lean
// on, including a tail slow enough to be a lossy host and a slow pair inside a host (that
// pair is measured again: nothing else can confirm it). Pure: results in, pairs out, so it is unit tested and deterministic on every rank.
#pragma once
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "probes/harness/retest_length.hpp"

namespace ga::p2p {

// One direction of one pair in the first pass, at the headline sizes. Endpoints are ranks.
struct DirectedResult {
  int src = -1, dst = -1;
  int rail = 0;                    // endpoints are compared only with endpoints of the same rail
  double latency = NAN;            // one-way p50 (s); NaN: did not complete
  double bw = NAN;                 // B/s; NaN: did not complete
  double tail = NAN;               // one-way p99 (s) of the latency measurement; NaN: none
  bool intra = false;              // both ends on one host: compared only with such pairs
  double events = 0;               // tail events of the latency measurement (count_tail_events)
  double exchanges = 0;            // round trips they are among
};

struct RetestOptions {
  double ratio = 1.5;              // worse than this x the reference is worth a second look
  int partners = 2;                // healthy endpoints each suspect endpoint is re-paired with
  int max_suspects = 16;           // endpoints, links and pairs inside hosts together; the worst first
  // The tail (p99) is noisier than the median: a suspect by its tail is one this much worse
  // than the reference tail (the judge fails at 10x; a lossy host is 10-100x).
  double tail_ratio = 3;
  // How long a re-test of a suspect with tail events is (probes/harness/retest_length.hpp).
  isolation::RetestSizing sizing;
};


struct RetestPlan {
  std::vector<int> suspect_endpoints;                    // ranks, worst first
  std::vector<std::pair<int, int>> suspect_links;        // {src, dst} of the slow direction
  std::vector<std::pair<int, int>> suspect_intra;        // {a, b}, a < b: a slow pair inside one host
  std::vector<std::vector<std::pair<int, int>>> rounds;  // {a, b} with a < b; no rank twice in a round
  // {a, b}, a < b -> its length, for a pair re-testing a suspect that showed tail events (the
  // longest its suspects ask for); pairs not here run the ordinary length.
  std::map<std::pair<int, int>, isolation::RetestLength> lengths;
};

RetestPlan plan_retests(const std::vector<DirectedResult>& results, const RetestOptions& opt = {});

// The better of the two middle values (lower for latency, higher for bandwidth): with an even
// count and half the hosts bad, the reference still comes from a healthy host.
double better_median(std::vector<double> v, bool lower_is_better);

}  // namespace ga::p2p
