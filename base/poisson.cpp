#include "base/poisson.hpp"

#include <cmath>

namespace ga::base {

double poisson_upper_tail(double k, double lambda) {
  if (std::isnan(k) || std::isnan(lambda)) return 1;
  k = std::ceil(k);
  if (k <= 0) return 1;
  if (lambda <= 0) return 0;
  if (k <= lambda) {
    // The bulk: 1 - P(N < k), the lower sum being small terms below the mode.
    double term = std::exp(-lambda), lower = term;
    for (double i = 1; i < k; ++i) lower += term *= lambda / i;
    return std::fmax(0.0, 1 - lower);
  }
  // The tail: terms from k on, each smaller than the last (k > lambda), in log space for the first.
  double term = std::exp(-lambda + k * std::log(lambda) - std::lgamma(k + 1)), sum = 0;
  for (double i = k; term > sum * 1e-17 && i < k + 100000; ++i) {
    sum += term;
    term *= lambda / (i + 1);
  }
  return std::fmin(1.0, sum);
}

double poisson_lower_tail(double k, double lambda) {
  if (std::isnan(k) || std::isnan(lambda)) return 1;
  k = std::floor(k);
  if (k < 0) return 0;
  if (lambda <= 0) return 1;
  if (k >= lambda) return 1 - poisson_upper_tail(k + 1, lambda);  // the bulk: no cancellation to fear
  double sum = 0;
  for (double i = 0; i <= k; ++i) sum += std::exp(-lambda + i * std::log(lambda) - std::lgamma(i + 1));
  return std::fmin(1.0, sum);
}

double poisson_mean_for(double k, double p) {
  k = std::ceil(k);
  if (std::isnan(k) || k <= 0) return 0;
  p = std::fmin(std::fmax(std::isnan(p) ? 0.5 : p, 1e-12), 1 - 1e-12);
  double lo = 0, hi = k;
  while (poisson_upper_tail(k, hi) < p) hi *= 2;
  while (hi - lo > 1e-9 * hi) {
    const double mid = (lo + hi) / 2;
    (poisson_upper_tail(k, mid) < p ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace ga::base
