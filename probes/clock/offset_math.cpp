#include "probes/clock/offset_math.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ga::clock {

bool consistent(const Exchange& e) {
  const double rtt_mono = e.recv_mono - e.send_mono;
  const double rtt_real = e.recv_real - e.send_real;
  if (rtt_mono < 0) return false;
  return std::fabs(rtt_real - rtt_mono) <= 2e-6 + 1e-3 * rtt_mono;
}

std::optional<Estimate> estimate_offset(std::span<const Exchange> exchanges, int keep) {
  std::vector<const Exchange*> ok;
  for (const auto& e : exchanges)
    if (consistent(e)) ok.push_back(&e);
  if (ok.empty()) return std::nullopt;
  std::sort(ok.begin(), ok.end(), [](const Exchange* a, const Exchange* b) {
    return a->recv_mono - a->send_mono < b->recv_mono - b->send_mono;
  });
  auto offset_of = [](const Exchange& e) { return e.remote_real - (e.send_real + e.recv_real) / 2; };
  const Exchange& best = *ok.front();
  Estimate est;
  est.offset = offset_of(best);
  est.rtt = best.recv_mono - best.send_mono;
  est.uncertainty = est.rtt / 2;
  est.mid_mono = (best.send_mono + best.recv_mono) / 2;
  est.used = static_cast<int>(ok.size());
  est.rejected = static_cast<int>(exchanges.size() - ok.size());
  est.kept = std::clamp(keep, 1, est.used);
  double lo = est.offset, hi = est.offset;
  for (int i = 0; i < est.kept; ++i) {
    const double o = offset_of(*ok[static_cast<std::size_t>(i)]);
    lo = std::min(lo, o);
    hi = std::max(hi, o);
  }
  est.kept_spread = hi - lo;
  return est;
}

double median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("median of no values");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

namespace {
void check_sizes(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty()) throw std::invalid_argument("no host offsets");
  if (a.size() != b.size())
    throw std::invalid_argument("offsets and uncertainties differ in length (" + std::to_string(a.size()) + " vs " +
                                std::to_string(b.size()) + ")");
}
}  // namespace

Cluster relative_to_median(const std::vector<double>& offsets, const std::vector<double>& uncertainties) {
  check_sizes(offsets, uncertainties);
  std::vector<double> lows, highs;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    lows.push_back(offsets[i] - uncertainties[i]);
    highs.push_back(offsets[i] + uncertainties[i]);
  }
  Cluster c;
  c.median = median(offsets);
  c.median_low = median(lows);
  c.median_high = median(highs);
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    Relative r;
    r.offset = offsets[i] - c.median;
    r.low = lows[i] - c.median_high;
    r.high = highs[i] - c.median_low;
    r.uncertainty = std::max(r.offset - r.low, r.high - r.offset);
    r.abs_bound = std::max(std::fabs(r.low), std::fabs(r.high));
    c.hosts.push_back(r);
  }
  return c;
}

Skew max_skew(const std::vector<double>& offsets, const std::vector<double>& uncertainties) {
  check_sizes(offsets, uncertainties);
  Skew s;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    if (offsets[i] > offsets[static_cast<std::size_t>(s.fast)]) s.fast = static_cast<int>(i);
    if (offsets[i] < offsets[static_cast<std::size_t>(s.slow)]) s.slow = static_cast<int>(i);
  }
  s.value = offsets[static_cast<std::size_t>(s.fast)] - offsets[static_cast<std::size_t>(s.slow)];
  if (s.fast != s.slow) {
    s.uncertainty = uncertainties[static_cast<std::size_t>(s.fast)] + uncertainties[static_cast<std::size_t>(s.slow)];
  } else {
    // All offsets equal: any two hosts could be the extremes; the two widest bounds say how far.
    std::vector<double> u = uncertainties;
    std::sort(u.rbegin(), u.rend());
    s.uncertainty = u.size() > 1 ? u[0] + u[1] : 0.0;
  }
  return s;
}

Drift drift(const Estimate& first, const Estimate& second) {
  const double dt = second.mid_mono - first.mid_mono;
  if (!(dt > 0)) throw std::invalid_argument("drift: the second measurement is not later than the first");
  Drift d;
  d.interval = dt;
  d.ppm = (second.offset - first.offset) / dt * 1e6;
  d.uncertainty_ppm = (first.uncertainty + second.uncertainty) / dt * 1e6;
  return d;
}

}  // namespace ga::clock
