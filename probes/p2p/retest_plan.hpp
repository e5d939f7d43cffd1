// The second pass: which pairs to measure again before anyone is blamed (Google's
// cluster-health-scanner re-pairs a failed node with a good one; imbue repeats random
// pairings). The probe does not judge: it re-tests generously (a lower bar than the
// built-in criteria) so that whatever the judge later calls a suspect has a re-test to lean
// on. Pure: results in, pairs out, so it is unit tested and deterministic on every rank.
#pragma once
#include <cmath>
#include <utility>
#include <vector>

namespace ga::p2p {

// One direction of one pair in the first pass, at the headline sizes. Endpoints are ranks.
struct DirectedResult {
  int src = -1, dst = -1;
  int rail = 0;                    // endpoints are compared only with endpoints of the same rail
  double latency = NAN;            // one-way p50 (s); NaN: did not complete
  double bw = NAN;                 // B/s; NaN: did not complete
};

struct RetestOptions {
  double ratio = 1.5;              // worse than this x the reference is worth a second look
  int partners = 2;                // healthy endpoints each suspect endpoint is re-paired with
  int max_suspects = 8;            // endpoints and links together; the worst first
};

struct RetestPlan {
  std::vector<int> suspect_endpoints;                    // ranks, worst first
  std::vector<std::pair<int, int>> suspect_links;        // {src, dst} of the slow direction
  std::vector<std::vector<std::pair<int, int>>> rounds;  // {a, b} with a < b; no rank twice in a round
};

RetestPlan plan_retests(const std::vector<DirectedResult>& results, const RetestOptions& opt = {});

// The better of the two middle values (lower for latency, higher for bandwidth): with an even
// count and half the hosts bad, the reference still comes from a healthy host.
double better_median(std::vector<double> v, bool lower_is_better);

}  // namespace ga::p2p
