// The p2p probe's suite parameters, checked (a wrong key or value is an error naming it).
//
//   unit: host | rail          one rank per host (its first), or every local rank as a NIC rail
//   max_rails: 0               rail mode: at most this many rails (0 = all local ranks)
//   intra_host: true           also pairs of ranks inside each host
//   latency_size: 8            bytes of the ping-pong
//   bw_size: 4194304           bytes per message of the bandwidth window
//   sweep: false               true: latency and bandwidth at every power of two, 8 B..64 MiB
//   sizes: [..]                an explicit sweep instead
//   measure_s: 0.2             measured time per measurement (iterations adapt to fit)
//   limit_s: 5                 hard limit per measurement, from when both ends met: past it the pair "did not complete"
//   warmup: 10                 latency iterations not recorded (bandwidth: a tenth, at least 1)
//   max_iters: 100000          latency iterations at most (bandwidth windows: a hundredth, >= 3)
//   budget_fraction: 0.6       share of the probe's deadline the measurements may plan to use
//   tail_event_factor: 1000    a round trip over this x its measurement's median is a tail event
//   retest: true               second pass: suspects re-measured against healthy hosts
//   retest_ratio: 1.5          worse than this x the cluster reference is re-tested
//   retest_partners: 2         healthy partners per suspect host
//   retest_max: 16             suspects re-tested at most (worst first)
//   retest_events: 3           a suspect with tail events is re-tested long enough to show this
//   retest_confidence: 0.95      many again with this probability (RetestLength)
//   retest_max_exchanges: 20000  round trips at most per sized re-test measurement
//   retest_max_s: 3            measured seconds at most per sized re-test measurement
//   min_exchanges: 0           first-pass headline latency: at least this many round trips
//   adaptive_min_hosts: 65     from this many hosts on, the adaptive schedule (probes/harness/
//                              isolation.hpp) instead of all pairs: all pairs up to 64 hosts
//   switch_map: ""             leaf switch of each host: a `HOSTS LEAF [UPLINK...]` file or a
//                              Slurm topology.conf (--switch-map FILE); "" = Slurm's
//                              topology.conf if there is one, else inferred from latencies
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/declare.hpp"
#include "probes/harness/pair_schedule.hpp"
#include "probes/p2p/pair_exchange.hpp"
#include "probes/p2p/retest_plan.hpp"

namespace ga::p2p {

enum class Test { latency, bandwidth };
const char* to_string(Test);

struct Measurement {
  Test test;
  std::size_t size;
  bool headline;                 // the one the culprit analysis and the re-tests use
};

struct P2pParams {
  pairs::ScheduleOptions schedule;
  std::size_t latency_size = 8;
  std::size_t bw_size = std::size_t(4) << 20;
  std::vector<std::size_t> sweep;  // empty: only latency_size and bw_size
  ExchangeLimits limits;
  double budget_fraction = 0.6;
  // A round trip over this x its measurement's median is a tail event (count_tail_events). A
  // lost packet costs a retransmission timeout: TCP's is 200 ms at least (Linux's TCP_RTO_MIN),
  // 5000 x a fake host's 40 us round trip. What a healthy, oversubscribed fake host shows
  // (8 x 2 ranks on 2 cores, one clean run each, docs/fabric.md): over 20 x, 1 round trip in
  // ~1000; over 200 x, 1 in ~6000; over 1000 x, 4 in 150,000. So 1000: a lost packet's stall is
  // always one, a scheduling delay nearly never.
  double tail_event_factor = 1000;
  bool retest = true;
  RetestOptions retest_options;
  // A sized re-test measurement's time at most. At 1% loss a re-test of 630 round trips (3
  // events at 95%) stalls ~6 times for a retransmission timeout of 200-400 ms: 1.3-2.5 s.
  double retest_max_s = 3;
  // rerun-plan's --set from the run it re-tests: the suspects' own rate sizes the whole re-run.
  int min_exchanges = 0;
  // Hosts from which on the adaptive schedule replaces all pairs. 65: a 64-host cluster is
  // 63 rounds of all pairs, about a minute with the defaults (docs/fabric.md); past that each
  // measurement shrinks to fit, and at 4096 hosts it would be 11 ms.
  int adaptive_min_hosts = 65;
  std::string switch_map;          // "" = topology.conf when found, else inferred

  // In the order a pair direction runs them: every latency then every bandwidth size.
  std::vector<Measurement> measurements() const;
  std::size_t max_size() const;
};

// Throws std::invalid_argument naming the key and what was wrong. The keys it knows are
// exactly those of p2p_param_decls().
P2pParams parse_p2p_params(const nlohmann::json& params);

// The declaration of every key above, defaults from P2pParams (the probe's info().params).
const std::vector<ParamDecl>& p2p_param_decls();

}  // namespace ga::p2p
