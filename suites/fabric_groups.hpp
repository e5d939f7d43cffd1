// The links between leaf switch groups (issue 11): a judge extension beside the culprit
// analysis of suites/fabric_analysis.hpp, pure over the aggregated metrics, so a live run and
// `gpuaccept judge DIR` agree.
//
// The p2p probe records each endpoint's leaf group as the text metric p2p.leaf (from a switch
// map, Slurm's topology.conf, or inferred by the adaptive schedule). From those and the pair
// samples (p2p.latency_p50, p2p.bw, p2p.completed; both passes) it derives, per group of
// (latency|bw, size, rail) between hosts:
//   p2p.group_link_slowdown at leaf:G~leaf:H, for every two groups with at least two distinct
//       endpoint pairs between them: the BEST of those pairs against what its two ends explain
//       (latency: the cross-group reference, the median of pairs between groups, plus each
//       end's own excess over the within-group reference; bandwidth: the lower of the
//       cross-group reference and each end's best). So it is high only when every pair between
//       the two groups is slow while each group's endpoints are fine with their own: the two
//       groups pass alone and fail together, which is the link (or switch) between them.
// explain_group_verdicts then adds the evidence to those verdicts (the pairs, by pass; the
// switch above both when the map names it), makes a failing one inconclusive unless a re-test
// between the groups was slow too, and takes the blame off the pair links between two
// groups whose group link is failed or inconclusive (the group link explains them).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "suites/fabric_analysis.hpp"
#include "suites/judge.hpp"

namespace ga::judging {

struct GroupLinkEvidence {
  std::string basis, unit;                    // "latency" (s) or "bw" (B/s)
  std::string group_a, group_b;               // leaf names, in place order
  std::string via;                            // the lowest switch above both, when the map names it
  double reference = 0;                       // between groups
  std::vector<FabricObservation> observations;  // every measurement between the two groups
  int pairs = 0;                              // distinct endpoint pairs among them
};

struct GroupAnalysis {
  std::vector<Metric> derived;
  std::map<std::string, GroupLinkEvidence> evidence;  // key: metric + place + params.dump()
  std::map<std::string, std::string> leaf_of;         // endpoint -> leaf group (p2p.leaf)
};

GroupAnalysis analyze_groups(const std::vector<Metric>& metrics);
GroupAnalysis analyze_groups(const base::ByName<Metric>& by_name);  // the judge's: metrics_by_name

// Hook for the judge: appends the derived metrics (keeping the metrics sorted as
// the judge adds the fabric analysis' derived metrics) and returns the analysis for explain_group_verdicts. Nothing is
// derived without p2p.leaf samples.
GroupAnalysis add_group_metrics(std::vector<Metric>& metrics);
// After explain_fabric_verdicts.
void explain_group_verdicts(const GroupAnalysis&, std::vector<Verdict>& verdicts);

// The place of the link between two leaf groups: leaf:A~leaf:B, A before B.
std::string group_link_place(const std::string& a, const std::string& b);

}  // namespace ga::judging
