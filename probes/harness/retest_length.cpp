#include "probes/harness/retest_length.hpp"

#include <algorithm>
#include <cmath>

#include "base/poisson.hpp"

namespace ga::isolation {

RetestLength retest_length(double events, double exchanges, const RetestSizing& opt) {
  RetestLength l;
  l.events = events, l.exchanges = exchanges;
  if (!(events > 0) || !(exchanges > 0)) return l;
  l.rate = std::min(1.0, events / exchanges);
  const double lambda = base::poisson_mean_for(opt.events_wanted, opt.confidence);
  const double n = std::ceil(lambda / l.rate);
  l.capped = n > opt.max_exchanges;
  l.planned = static_cast<long>(std::min<double>(n, opt.max_exchanges));
  l.p_seen = base::poisson_upper_tail(opt.events_wanted, double(l.planned) * l.rate);
  return l;
}

}  // namespace ga::isolation
