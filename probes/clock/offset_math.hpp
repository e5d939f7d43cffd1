// The arithmetic of clock comparison, kept free of MPI so it can be tested on synthetic
// exchanges. Cristian / NTP: a request leaves the reference at t_send, the remote reads its
// clock at t_remote somewhere in between, the reply arrives at t_recv. Whatever the path's
// asymmetry, the remote's true offset lies in [t_remote - t_recv, t_remote - t_send]: the
// midpoint is the estimate and half the round trip bounds its error.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ga::clock {

struct Exchange {
  double send_real = 0, recv_real = 0;  // reference's CLOCK_REALTIME around the exchange (s)
  double send_mono = 0, recv_mono = 0;  // reference's CLOCK_MONOTONIC around it (s)
  double remote_real = 0;               // remote's CLOCK_REALTIME when it answered (s)
};

struct Estimate {
  double offset = 0;       // remote realtime minus reference realtime (s), best exchange
  double uncertainty = 0;  // half the best round trip (s): a bound, not a standard deviation
  double rtt = 0;          // best round trip on the monotonic clock (s)
  double mid_mono = 0;     // reference's monotonic time at the best exchange's midpoint (s)
  int used = 0;            // exchanges that passed the consistency check
  int rejected = 0;        // realtime stepped during the exchange (realtime and monotonic disagree)
  int kept = 0;            // lowest-round-trip exchanges looked at for the spread
  double kept_spread = 0;  // max - min offset among the kept exchanges (s): a consistency check
};

// A realtime step during an exchange (ntpd/chrony stepping the clock, someone running `date
// -s`) makes the realtime round trip disagree with the monotonic one; such exchanges are
// dropped. The tolerance covers slewing (<= 500 ppm) and clock read granularity.
bool consistent(const Exchange& e);

// Keeps the `keep` exchanges with the lowest round trip; the estimate is the best one's (its
// interval is the tightest), the others only give kept_spread. nullopt when none is usable.
std::optional<Estimate> estimate_offset(std::span<const Exchange> exchanges, int keep);

// Median; for an even count the mean of the two middle values. Throws on an empty input.
double median(std::vector<double> v);

// One host's clock relative to the cluster's median clock.
struct Relative {
  double offset = 0;       // offset - median (s)
  double low = 0, high = 0;  // the interval the true relative offset must lie in (s)
  double uncertainty = 0;  // max distance from `offset` to either end of the interval (s)
  double abs_bound = 0;    // max(|low|, |high|): the farthest this host may be from the median
};

struct Cluster {
  double median = 0;              // median of the hosts' offsets to the reference (s)
  double median_low = 0, median_high = 0;  // where the true median must lie (s)
  std::vector<Relative> hosts;    // in the input order
};

// offsets[i] +- uncertainties[i] are each host's offsets to one reference (the reference's own
// host: 0 +- 0). The median is monotone in each argument, so the true median lies between the
// median of the lower ends and the median of the upper ends; each host's interval relative to
// it follows. Throws on empty or mismatched inputs.
Cluster relative_to_median(const std::vector<double>& offsets, const std::vector<double>& uncertainties);

struct Skew {
  double value = 0;        // largest offset minus smallest (s)
  int fast = 0, slow = 0;  // indices of the hosts at either end
  double uncertainty = 0;  // the sum of their uncertainties (s)
};
Skew max_skew(const std::vector<double>& offsets, const std::vector<double>& uncertainties);

struct Drift {
  double ppm = 0;          // rate of the remote's clock relative to the reference's (parts per million)
  double uncertainty_ppm = 0;
  double interval = 0;     // seconds between the two measurements
};
// From the same host's estimates at two times; throws when they are not in time order.
Drift drift(const Estimate& first, const Estimate& second);

}  // namespace ga::clock
