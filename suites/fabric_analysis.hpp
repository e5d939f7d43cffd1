// Finding the culprit in the p2p pair matrices (issue 3), and in the nccl probe's isolation
// pairs (issue 12: nccl.pair_busbw, one undirected busbw per pair, derived into nccl.host_slowdown,
// nccl.link_slowdown, nccl.busbw_median, nccl.unreachable_fraction the same way): a judge
// extension, pure over the aggregated metrics, so the live run and `gpuaccept judge DIR` name
// the same suspects. A failing nccl verdict at `cluster` for a scope whose endpoint or link the
// isolation blamed is skipped, naming them: the smaller place carries the fault.
//
// From p2p.latency_p50, p2p.bw and p2p.completed of every pair direction (first pass and
// re-tests) it derives, per group of (latency|bw, size, path, rail):
//   p2p.host_slowdown  at each endpoint (a host, or HOST/rail:K): how much worse than the
//                      cluster reference its BEST pair is (latency: either direction; bw: out
//                      and in apart). Only a host all of whose pairs are slow scores high.
//   p2p.link_slowdown  at each pair A~B, per direction: how much worse the pair is than its two
//                      ends explain (latency: reference + each end's own excess; bw: the lower
//                      of the reference and each end's best). A pair slow only because one end
//                      is slow scores about 1, so a healthy host or pair is not blamed for it.
//   p2p.intra_slowdown at each pair inside a host (both directions, best of): against the
//                      median of such pairs on the other hosts.
//   p2p.latency_median, p2p.bw_median at `cluster`: the reference, the median over endpoints
//                      of each one's best pair (the better middle for an even count, so half
//                      the hosts may be bad and the reference still comes from a good one).
// A direction that did not complete counts as infinitely slow: where nothing an endpoint or
// pair measured completed, its derived metric has no value and says what did not complete.
// Criteria judge these like any metric (criteria-default-fabric.yaml); explain_fabric_verdicts
// then adds to each verdict on them the evidence (its pairs against the reference, by pass)
// and how sure the verdict is.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "suites/judge.hpp"

namespace ga::judging {

struct FabricObservation {
  std::string src, dst, pass_label;  // endpoints; "1" or "2" (pass 2: a re-test)
  double value = 0;                  // latency s or bw B/s; +inf / 0 when it did not complete
  std::string why;                   // why it did not complete
};

struct FabricEvidence {
  std::string basis;                 // "latency" or "bw"
  std::string unit;
  double reference = 0;
  double expected = 0;               // links: what the two ends explain
  std::vector<FabricObservation> observations;  // the ones the derived value was taken over
  bool higher_is_worse = true;       // latency; bandwidth: lower is worse
};

// The tail events of one endpoint or link (issue 33: suites/fabric_events.cpp), added up over
// the first pass and every re-test, against the healthy rest's rate.
struct TailStanding {
  double events = 0, exchanges = 0;              // its own, pairs explained by a suspect end and set_aside left out
  double first_events = 0, first_exchanges = 0;  // of which the first pass
  double rest_rate = 0;                          // events per round trip of the rest (one event added)
  double expected = 0;                           // exchanges x rest_rate
  double p = 1;                                  // Poisson upper tail x tests, at most 1
  int tests = 0;                                 // endpoints and links tested (the correction)
  bool stands_out = false;                       // p < kTailStandOut: its pairs explain its peers' events
  std::string explained_by;                      // links: the end whose events stand out
  std::string set_aside;                         // ends: its link with the most events, not counted
  double set_aside_events = 0;                   //   (a lossy cable is the link test's), and its events
  bool no_rest = false;                          // events, but nothing else measured to compare: untested
  std::string counters;                          // ends: its TCP counters during p2p against the hosts' median, in words
  std::string sizing;                            // how its re-tests were sized from its rate (p2p.planned_exchanges), in words
  bool inside = false;                           // a pair inside a host: counted, never tested against a rest
  // P(the re-tests show as few events as they did | the first pass's rate still holds): where
  // no test against the rest covers a place (inside a host, two hosts), a re-test sized to see
  // the first pass's events that saw (almost) none is what clears it. 1: nothing to go on.
  double retest_p = 1;
};
// Below this the re-tests rule out the first pass's rate (a sized re-test that shows none of
// its expected >= 6.3 events: e^-6.3 = 0.0018).
constexpr double kRetestClears = 0.01;
// Below this corrected p a place's events are not cleared: a pass on it is inconclusive, its
// pairs are taken out of its peers' counts and of the rest's rate. The criterion's own bound
// (criteria-default-fabric.yaml, p2p.*.tail_events) decides a failure.
constexpr double kTailStandOut = 0.01;
// The test asks how likely a place's events are if its healthy rate were this many times the
// rest's, not the rest's itself: a margin for hosts that are not identical, so a noisy healthy
// host is not named by the sheer number of round trips measured.
constexpr double kTailTolerance = 3;

struct FabricAnalysis {
  std::vector<Metric> derived;
  std::map<std::string, FabricEvidence> evidence;  // key: metric + place + params.dump()
  std::map<std::string, std::string> described;    // place -> what it is (nccl.rail_devices: its GPU and NIC)
  std::map<std::string, TailStanding> tails;       // key: tail_key(place, path, rail)
};

std::string tail_key(const std::string& place, const std::string& path, const std::string& rail);
// A parameter as text: a string as it is, any other value as JSON (pass 1 -> "1"), `def` absent.
std::string param_text(const Params& p, const char* key, const std::string& def);
// Adds p2p.host_tail_p and p2p.link_tail_p to a.derived and their standings to a.tails.
void analyze_tail_events(const base::ByName<Metric>& by_name, FabricAnalysis& a);

// The judge adds a.derived to its metrics (judging::add_in_order, with the other analyses'
// derived metrics in one merge) and keeps the analysis for explain_fabric_verdicts.
FabricAnalysis analyze_fabric(const std::vector<Metric>& metrics);
FabricAnalysis analyze_fabric(const base::ByName<Metric>& by_name);  // the judge's: metrics_by_name
void explain_fabric_verdicts(const FabricAnalysis&, std::vector<Verdict>& verdicts);
// Whether explain_fabric_verdicts may change a passing verdict of `metric` (make it
// inconclusive, add its evidence to the reason): the derived slowdowns and tail-event tests.
// The judge folds no pass of these before the explanation (suites/pass_fold.hpp).
bool explains_passes(std::string_view metric);

}  // namespace ga::judging
