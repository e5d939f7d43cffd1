// The judge: a pure function of (journal, criteria). No MPI, no GPU, no clock, no environment.
// `gpuaccept judge DIR` and the live run call the same function and so agree.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/group_by_name.hpp"
#include "base/optional_text.hpp"
#include "probes/declare.hpp"
#include "probes/journal.hpp"
#include "suites/criteria.hpp"
#include "suites/verdict.hpp"

namespace ga {

// Samples aggregated per (metric, place, params): the median is the value judged.
struct Metric {
  std::string metric;
  std::string probe;                    // the declaring probe (else the samples' probe)
  std::string place;
  Params params;
  std::string unit;                     // the declared unit (else the samples')
  Better better = Better::none;         // the declared direction
  int count = 0;                        // samples (next to `better`: no padding after either)
  std::optional<double> value;          // median of the samples
  std::optional<double> min, max;
  base::OptionalText text;              // text metrics: the most frequent observed text
  base::OptionalText note;              // why the value is less certain: other texts or units seen (rare)
  // Set when the measurement never completed (a bandwidth window that ended before its
  // transfer did): the value is then absent, never a stand-in number, and this says why.
  base::OptionalText not_completed;
};

// The metrics by name, each name's in the metrics' order. The judge makes it once, and each
// analysis and criterion reads only the names it works on: at 4096 hosts there are 4 M metrics
// under ~150 names, and every scan of all of them comparing names cost seconds.
base::ByName<Metric> metrics_by_name(const std::vector<Metric>& metrics);

struct ProbeSummary {
  std::string name;
  ProbeStatus status = ProbeStatus::ok; // failed if any rank failed; skipped if all skipped; ...
  std::string reason;
  std::vector<RankOutcome> per_rank;
};

// The process exit codes of `run` and `judge`, one per thing an operator does next.
inline constexpr int kExitPass = 0;          // sign
inline constexpr int kExitNodeFault = 1;     // drain the places the node faults name
inline constexpr int kExitUsage = 2;         // bad usage or a bad input file (app/)
inline constexpr int kExitIncomplete = 3;    // the run did not complete: a rank lost, a hang
inline constexpr int kExitInconclusive = 4;  // the worst verdict is inconclusive: re-test
inline constexpr int kExitToolError = 5;     // the worst verdict is a tool error: fix gpuaccept or its setup

// Two findings' exit codes combined, the worst first as the README's table orders them:
// incomplete, node fault, tool error, inconclusive, pass (usage, 2, stands for itself). A node
// fault and a signature that could not be made is still exit 1: the drain comes first, and the
// signing failure is printed beside it.
constexpr int worse_exit(int a, int b) {
  auto rank = [](int c) {
    switch (c) {
      case kExitUsage: return 5;
      case kExitIncomplete: return 4;
      case kExitNodeFault: return 3;
      case kExitToolError: return 2;
      case kExitInconclusive: return 1;
      default: return 0;
    }
  };
  return rank(a) >= rank(b) ? a : b;
}

struct Summary {
  int pass = 0, fail = 0, missing = 0, skipped = 0, tool_error = 0, inconclusive = 0;
  // "PASS", "FAIL" (a node fault), "TOOL ERROR", "INCONCLUSIVE" or "INCOMPLETE"
  std::string overall;
  // Worst first: 3 incomplete, 1 a node fault, 5 a tool error, 4 inconclusive, else 0. Only
  // error-severity verdicts count; warnings are reported and never change the code.
  int exit_code = kExitPass;
};

// Past this many hosts the judgement folds its passing verdicts: each criterion's passes at one
// kind of place are counted (PassingFold), not listed one by one; every verdict that does not
// pass stays listed in full, whatever the size. At 4096 hosts 2.1 M passing verdicts were
// 0.6 GiB of report.json that no reader reads one by one (issue 36); 256 hosts is about 130 k
// verdicts, which a buyer's script still reads whole. Beside it, report.md's and report.html's
// own folds (reports/host_folds.hpp); docs/report-format.md states both.
inline constexpr std::size_t kFoldPassingAbove = 256;

// A criterion's passing verdicts at one kind of place, counted.
struct PassingFold {
  std::string criterion;
  std::string kind;                     // the places' kind (topology/place.hpp): host, gpu, pair ...
  Severity severity = Severity::error;
  std::size_t places = 0;               // passing verdicts folded
  std::optional<double> worst_margin;   // the least margin among them (ga::margin), absent when none has one
  Verdict worst;                        // the verdict of that margin (the first one when none has a margin)
  struct Host {
    std::string host;
    std::size_t places = 0;
    std::optional<double> worst_margin;
  };
  std::vector<Host> hosts;              // natural order; a link between two hosts counts at both
};

struct Judgement {
  std::vector<Metric> metrics;
  std::vector<ProbeSummary> probes;
  // Every verdict; in a folded judgement every one that does not pass, and the passing ones
  // on the hosts a re-test must clear (see fold_passing_verdicts), the other passes counted in
  // `passing`, a failing host's too: its section lists its failures and counts its passes.
  std::vector<Verdict> verdicts;
  bool folded = false;
  std::vector<PassingFold> passing;     // folded only: in the criteria's order
  std::optional<IncompleteRecord> incomplete;
  Summary summary;
};

// The judgement's passing verdicts counted into Judgement::passing, except those at a place on
// a host in `keep` (the suspects a re-test re-judges: their passes are the evidence that clears
// them, reports/campaign.hpp). Past kFoldPassingAbove hosts the judge folds as it judges
// (suites/pass_fold.hpp), so that the passes are never all made and held; tests call this on
// small judgements. Summary counts are not changed: they count every verdict.
void fold_passing_verdicts(Judgement& j, const std::set<std::string>& keep);
// The hosts whose passing verdicts a folded judgement keeps listed: the ones the run re-tests
// as suspects, from what the re-test's journal copied of the earlier run (run_start.rerun_of,
// app/run_support.cpp): every host of its campaign with a criterion against it.
std::set<std::string> hosts_kept_in_full(const JournalData& journal);

// With a catalogue (the live run and `gpuaccept judge` pass the build's: catalogue_of in
// probes/probe.hpp), a metric's unit, direction and owning probe come from its declaration; a
// sample that disagrees with the declared unit is noted on the metric. Without one (unit tests
// of the judge on made-up metrics) they come from the samples.
std::vector<Metric> aggregate(const std::vector<Sample>& samples, const MetricCatalogue* catalogue = nullptr);
Judgement judge(const JournalData& journal, const CriteriaSet& criteria, const MetricCatalogue* catalogue = nullptr);
// The same judgement for a caller that reads a journal only to judge and report it (`gpuaccept
// judge DIR`, bench/report_scale): the samples are released as soon as they are aggregated, and
// journal.samples is left empty. Nothing after aggregate() reads them (the report takes its rows
// from the judgement), and at 4096 hosts they are 1.6 GiB held through the judge's peak.
Judgement judge_releasing_samples(JournalData& journal, const CriteriaSet& criteria,
                                  const MetricCatalogue* catalogue = nullptr);

}  // namespace ga
