// Summary of one latency measurement (one direction of one pair): percentiles of the
// per-iteration one-way latency (half a round trip). Pure, so it is unit tested.
#pragma once
#include <vector>

namespace ga::p2p {

struct LatencyStats {
  double p50 = 0, p99 = 0, max = 0;
  double jitter = 0;   // p99 - p50: the tail a collective waits for, robust to one outlier (unlike stdev)
  int count = 0;
};

// Nearest-rank percentiles (the value of an iteration that happened, not an interpolation).
// An empty input gives count 0 and zeros.
LatencyStats summarize_latency(std::vector<double> one_way_s);

}  // namespace ga::p2p
