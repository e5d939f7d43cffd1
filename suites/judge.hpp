// The judge: a pure function of (journal, criteria). No MPI, no GPU, no clock, no environment.
// `gpuaccept judge DIR` and the live run call the same function and so agree.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "probes/journal.hpp"
#include "suites/criteria.hpp"
#include "suites/verdict.hpp"

namespace ga {

// Samples aggregated per (metric, place, params): the median is the value judged.
struct Metric {
  std::string metric;
  std::string place;
  nlohmann::json params = nlohmann::json::object();
  std::string unit;
  std::optional<double> value;          // median of the samples
  std::optional<double> min, max;
  std::optional<std::string> text;      // text metrics: the most frequent observed text
  int count = 0;
  std::string note;                     // why the value is less certain: other texts or units seen
  // Set when the measurement never completed (a bandwidth window that ended before its
  // transfer did): the value is then absent, never a stand-in number, and this says why.
  std::optional<std::string> not_completed;
};

struct ProbeSummary {
  std::string name;
  ProbeStatus status = ProbeStatus::ok; // failed if any rank failed; skipped if all skipped; ...
  std::string reason;
  std::vector<RankOutcome> per_rank;
};

struct Summary {
  int pass = 0, fail = 0, missing = 0, skipped = 0, error = 0;
  std::string overall;                  // "PASS", "FAIL" or "INCOMPLETE"
  int exit_code = 0;                    // 3 incomplete, else 1 an error-severity verdict failed, else 0
};

struct Judgement {
  std::vector<Metric> metrics;
  std::vector<ProbeSummary> probes;
  std::vector<Verdict> verdicts;
  std::optional<IncompleteRecord> incomplete;
  Summary summary;
};

std::vector<Metric> aggregate(const std::vector<Sample>& samples);
Judgement judge(const JournalData& journal, const CriteriaSet& criteria);

}  // namespace ga
