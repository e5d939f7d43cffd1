// How long a re-test must be to see what raised the suspicion (issue 33): a fault that shows
// a few events in a hundred exchanges passes a short re-test by luck, and a pass on it is no
// evidence of health. Shared by every pairwise probe that re-tests (p2p's second pass, and
// rerun-plan's re-run of a whole run); pure, unit tested.
#pragma once

namespace ga::isolation {

struct RetestSizing {
  int events_wanted = 3;           // the fault, still present at its rate, shows this many events
  double confidence = 0.95;        // with this probability
  int max_exchanges = 20000;       // round trips per re-test measurement at most (the budget)
};

// The length of a re-test from the suspicion's own event rate:
//   rate        r = events / exchanges, its first pass
//   planned     n = ceil(lambda / r), lambda = poisson_mean_for(events_wanted, confidence)
//               (3 events at 95%: lambda = 6.30, so 630 round trips for a 1% rate), at most
//               max_exchanges
//   p_seen      P(N >= events_wanted), N ~ Poisson(n r): what the re-test can promise
// No event (a suspect by its median or bandwidth alone): planned 0, the ordinary length.
struct RetestLength {
  double events = 0, exchanges = 0;  // what the rate is from
  double rate = 0;
  long planned = 0;
  bool capped = false;               // max_exchanges cut it: p_seen is below confidence
  double p_seen = 0;
};
RetestLength retest_length(double events, double exchanges, const RetestSizing& opt);

}  // namespace ga::isolation
