#include "probes/p2p/latency_stats.hpp"

#include <algorithm>
#include <cmath>

namespace ga::p2p {

namespace {
double nearest_rank(const std::vector<double>& sorted, double q) {
  auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(k, 1, sorted.size()) - 1];
}
}  // namespace

LatencyStats summarize_latency(std::vector<double> v) {
  LatencyStats s;
  s.count = static_cast<int>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.p50 = nearest_rank(v, 0.50);
  s.p99 = nearest_rank(v, 0.99);
  s.max = v.back();
  s.jitter = s.p99 - s.p50;
  return s;
}

LatencyStats summarize_latency(const OneWaySamples& samples) {
  const std::vector<double>& singles = samples;
  if (samples.batch_means.empty()) return summarize_latency(singles);
  if (singles.empty()) {  // cannot happen from an exchange (it ends on whole cycles), but stay defined
    LatencyStats s = summarize_latency(samples.batch_means);
    s.count *= samples.batch;
    return s;
  }
  LatencyStats s = summarize_latency(singles);
  std::vector<double> b = samples.batch_means;
  std::sort(b.begin(), b.end());
  const double level = nearest_rank(b, 0.50);
  s.p99 = level + (s.p99 - s.p50);
  s.max = level + (s.max - s.p50);
  s.p50 = level;
  s.count += static_cast<int>(b.size()) * samples.batch;
  return s;
}

int count_tail_events(const OneWaySamples& samples, double p50, double factor) {
  if (!(p50 > 0) || !(factor > 1)) return 0;
  const double over = factor * p50;
  int n = 0;
  for (double x : samples) n += x > over;
  // A batch's one-way total is mean x batch; one round trip at `over` in it adds (factor - 1) x p50.
  const double excess = (factor - 1) * p50;
  for (double mean : samples.batch_means) n += (mean - p50) * samples.batch > excess;
  return n;
}

}  // namespace ga::p2p
