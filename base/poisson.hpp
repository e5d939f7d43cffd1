// The Poisson upper tail, for counting tests: how surprising k or more events are where lambda
// were expected (issue 33: the tail events of an intermittent fault against the healthy rest's
// rate). Pure and total: lambda <= 0 gives 1 for k <= 0 and 0 above; NaN gives 1.
#pragma once

namespace ga::base {

// P(N >= k) for N ~ Poisson(lambda), accurate to a few ulps of its logarithm far into the tail
// (it sums the tail's terms in log space rather than subtracting from 1).
double poisson_upper_tail(double k, double lambda);

}  // namespace ga::base
