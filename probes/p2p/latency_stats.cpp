#include "probes/p2p/latency_stats.hpp"

#include <algorithm>
#include <cmath>

namespace ga::p2p {

LatencyStats summarize_latency(std::vector<double> v) {
  LatencyStats s;
  s.count = static_cast<int>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto rank = [&](double q) {
    auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(k, 1, v.size()) - 1];
  };
  s.p50 = rank(0.50);
  s.p99 = rank(0.99);
  s.max = v.back();
  s.jitter = s.p99 - s.p50;
  return s;
}

}  // namespace ga::p2p
