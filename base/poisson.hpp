// The Poisson upper tail, for counting tests: how surprising k or more events are where lambda
// were expected (issue 33: the tail events of an intermittent fault against the healthy rest's
// rate). Pure and total: lambda <= 0 gives 1 for k <= 0 and 0 above; NaN gives 1.
#pragma once

namespace ga::base {

// P(N >= k) for N ~ Poisson(lambda), accurate to a few ulps of its logarithm far into the tail
// (it sums the tail's terms in log space rather than subtracting from 1).
double poisson_upper_tail(double k, double lambda);

// P(N <= k) for N ~ Poisson(lambda), summed directly (accurate where it is tiny: a re-test
// that shows none of the events its length was sized for). k < 0 gives 0; lambda <= 0 gives 1.
double poisson_lower_tail(double k, double lambda);

// The least mean lambda at which k or more events come with probability at least p: what a
// re-test must expect so that a fault still present shows k events (k = 3, p = 0.95: 6.30).
// k <= 0 gives 0; p outside (0, 1) is clamped into it. Bisection on poisson_upper_tail, which
// grows with lambda, to a relative 1e-9.
double poisson_mean_for(double k, double p);

}  // namespace ga::base
