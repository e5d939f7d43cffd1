// Pieces of the judge, split by what they know. Internal to suites/: the public contract is
// suites/judge.hpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <map>
#include <unordered_map>

#include "probes/journal.hpp"
#include "suites/judge.hpp"
#include "topology/topology.hpp"

namespace ga::judging {

// Natural order of places: digit runs compare as numbers, so node2 < node10 and
// gpu:3 < gpu:10; `cluster` sorts before every host.
bool place_less(const std::string& a, const std::string& b);

double median(std::vector<double> v);

// The key under which an analysis (fabric_analysis, fabric_groups) files the evidence of a
// derived metric, and under which its verdict finds it again: name, place, params.
std::string evidence_key(const std::string& metric, const std::string& place, const Params& params);

// The order of a judgement's metrics, as aggregate() makes it: by name, place in natural
// order, then params (their canonical dump).
bool metric_less(const Metric& x, const Metric& y);
// Adds metrics derived from the measured ones where a stable sort of the whole would put them
// (measured first among equals). When `metrics` is sorted, as aggregate() leaves it, that is
// a merge from the back into the room aggregate() reserved: O(n) moves, no second buffer of
// millions of metrics.
void add_in_order(std::vector<Metric>& metrics, std::vector<Metric> extra);

// "n1, n2, n3" or "n1, n2, n3 and 5 more": lists in reasons stay one line.
std::string list_text(const std::vector<std::string>& items, std::size_t show = 4);
// "rank 2 (host n2)" / "ranks 0-1,3 (hosts n1, n3)"
std::string ranks_text(std::vector<RankRef> ranks);

std::vector<ProbeSummary> summarize_probes(const JournalData&);

// What a rank's host did in one probe, folded over the ranks on that host.
struct HostOutcome {
  ProbeStatus status = ProbeStatus::ok;
  std::string reason;
};
// Per host, in natural order: failed if a rank failed, timeout if one timed out, skipped if
// all skipped, else ok.
std::vector<std::pair<std::string, HostOutcome>> host_outcomes(const ProbeSummary&);

std::optional<IncompleteRecord> find_incomplete(const JournalData&, const std::vector<ProbeSummary>&);

// What the judge knows about the cluster besides the metrics, computed once per judgement.
struct Facts {
  const JournalData* journal = nullptr;
  std::vector<std::string> hosts;                               // from the ranks, natural order
  std::map<std::string, const topo::HostTopology*> topology;    // host -> its recorded topology
  std::map<std::string, std::vector<topo::Feature>> features;   // host -> features(topology)
  std::optional<std::vector<topo::Feature>> expected;           // features(expected topology)
  std::map<std::string, const ProbeSummary*> probes;
  std::map<std::string, std::map<std::string, HostOutcome>> outcomes;  // probe -> host -> outcome
  // Hosts that run on one kernel (the same inventory.boot_id: fake hosts, containers of one
  // machine): host -> the other hosts on its kernel. Absent: a kernel of its own, or unknown.
  std::map<std::string, std::vector<std::string>> kernel_mates;
};
Facts gather_facts(const JournalData&, const std::vector<ProbeSummary>&);
// Fills Facts::kernel_mates from the boot ids in run_start's ranks (every run since they were
// recorded) and the inventory.boot_id metrics (older journals).
void add_kernel_mates(Facts&, const std::vector<RankInfo>&, const base::ByName<Metric>& metrics_by_name);

// A place relative to its host: "" for the host, "gpu:3", "gpu:0~gpu:1" for a pair on one
// host. Used to hold gpu:3 of one host against gpu:3 of the others and of the expected host.
std::string relative_place(const std::string& place);
const topo::Feature* find_feature(const std::vector<topo::Feature>&, const std::string& subplace,
                                  const std::string& metric);

// A bound made concrete for one metric at one place.
struct Resolved {
  std::optional<double> number;                 // in the metric's unit
  std::optional<std::string> text;
  std::optional<double> reference;              // what the fraction was applied to (metric's unit)
  std::optional<std::string> reference_text;
  std::string said;                             // how the bound reads in a reason
  std::optional<VerdictStatus> unusable;        // skipped or error: the bound has no value here
  std::string why;
};

// The context a bound is resolved in: the metrics one criterion selected, sorted by place.
class BoundResolver {
 public:
  BoundResolver(const Facts& facts, const std::vector<const Metric*>& selected);
  Resolved resolve(const Bound&, const Metric&) const;
  std::optional<double> median() const { return median_; }
  // The median absolute deviation of the selected values from their median, computed on the
  // first call (only mad_outlier asks for it).
  std::optional<double> mad() const;
  const std::vector<const Metric*>& selected() const { return selected_; }

 private:
  // The vote among the places that share one position and one set of params.
  struct Vote {
    std::string best_key;                       // the winning value (a number's JSON, or the text)
    std::optional<double> best_number;
    std::string best_place;                     // first place in order holding it
    int best_count = 0, total = 0, tied = 0;
  };
  static std::string group_key(const Metric&);
  const Vote& vote(const Metric& m) const;
  Resolved majority(const Bound&, const Metric&) const;
  Resolved expected(const Bound&, const Metric&) const;
  Resolved topology_feature(const Bound&, const Metric&) const;
  const Facts& facts_;
  std::vector<const Metric*> selected_;
  std::optional<double> median_;
  mutable std::optional<std::optional<double>> mad_;  // outer: computed yet
  // Built once: the members of each group, in place order. Votes are counted on first use
  // and kept, so judging N hosts costs O(N) rather than O(N^2) (1024 hosts x 8 GPUs took
  // half a minute before: `git log -p -- docs/measurements.md`; today's figures are in
  // docs/performance.md#report_scale-at-4096-hosts).
  std::unordered_map<std::string, std::vector<std::size_t>> groups_;
  mutable std::unordered_map<std::string, Vote> votes_;  // key: numeric flag + group key
};

// "hosts", "GPUs", "NUMA nodes" ...: for counts in reasons.
std::string plural_of_kind(const std::string& place);

}  // namespace ga::judging
