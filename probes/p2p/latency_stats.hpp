// Summary of one latency measurement (one direction of one pair): percentiles of the
// one-way latency (half a round trip). Pure, so it is unit tested.
#pragma once
#include <vector>

namespace ga::p2p {

struct LatencyStats {
  double p50 = 0, p99 = 0, max = 0;
  double jitter = 0;   // p99 - p50: the tail a collective waits for, robust to one outlier (unlike stdev)
  int count = 0;       // round trips measured (timed singly and in batches)
};

// The one-way latencies of one measurement. A clock read costs 5-15% of a shared-memory round
// trip, so round trips are timed two ways, interleaved:
//   - singly, each between two clock reads: as a vector this holds those (so code that counts
//     or scans single round trips still does); the tail (p99, max, jitter) comes from them;
//   - in batches of `batch` round trips between two clock reads (batch_means: one value per
//     batch, its time / batch / 2): the median comes from these, the clock's cost spread thin.
// batch_means empty (batch 1: slow round trips, where a clock read is noise): every round trip
// was timed singly and everything comes from the singles.
struct OneWaySamples : std::vector<double> {
  std::vector<double> batch_means;
  int batch = 1;
};

// Nearest-rank percentiles (the value of an iteration that happened, not an interpolation).
// An empty input gives count 0 and zeros.
LatencyStats summarize_latency(std::vector<double> one_way_s);

// p50: the median batch (the singles' median when there are no batches). The tail is the
// singles' spread laid on that level: p99 = p50 + (singles' p99 - singles' p50), max likewise,
// so jitter = p99 - p50 still, and the one clock read every single carries cancels out of it.
LatencyStats summarize_latency(const OneWaySamples& samples);

// Tail events: the round trips an intermittent fault stalls (a TCP retransmission timeout, a
// link down for a moment), far slower than the measurement's own median. The round trips whose one-way time exceeds `factor` x p50: each single over it counts one,
// and each batch whose round trips together took more than one such round trip beyond
// batch x p50 counts one (a batch hides which of its round trips was slow, and a loss stalls
// one). p50 <= 0: none counted.
int count_tail_events(const OneWaySamples& samples, double p50, double factor);

}  // namespace ga::p2p
