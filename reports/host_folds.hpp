// Folding hosts in report.md and report.html: hosts whose verdicts all pass and whose recorded
// topology is the same (hostname aside) are one line, "node0001-node4000 (3996 hosts)", so that
// a run of thousands of hosts stays readable. A host with any verdict that does not pass is
// always shown in full. report.json is the record and never folds (docs/report-format.md).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "reports/report.hpp"

namespace ga::report_fold {

// A fold needs at least this many hosts; fewer are shown in full.
inline constexpr std::size_t kFoldAtLeast = 2;

struct Folds {
  // Per entry of Report::hosts: the index of the first host of its fold, or npos when the host
  // is shown in full.
  std::vector<std::size_t> leader;
  // Per entry of Report::hosts that leads a fold: its members in report order (the leader
  // first); empty for every other host.
  std::vector<std::vector<std::size_t>> members;
  bool folded(std::size_t i) const { return leader[i] != npos; }
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
};

Folds fold_hosts(const Report& r);

// "node0001-node0004, node0006" (names in report order; runs of consecutive numbers with the
// same prefix and width become ranges).
std::string host_ranges(const std::vector<std::string>& names);

// What a fold's title says: "node0001-node0010 (10 hosts): identical topology, every verdict passes".
std::string fold_title(const Report& r, const Folds& f, std::size_t leader);

// Verdicts and metric rows of a fold, all hosts together.
struct FoldCounts {
  std::size_t rows = 0, verdicts = 0;
  std::vector<int> ranks;  // sorted
};
FoldCounts fold_counts(const Report& r, const Folds& f, std::size_t leader);

// Pair rows in report.md and report.html: above kPairsInFullUpTo hosts the cluster table lists
// every row that is not at a pair and the pair rows with a verdict that does not pass; the pair
// rows whose verdicts all pass, and those no criterion judges (raw measurements such as
// p2p.latency_max), are counted, not listed. At 4096 hosts that table was 600k rows (100 MiB of
// report.md). report.json keeps every row. 16, not 64: at 64 hosts the full table was 43k rows
// (6 of report.html's 8.8 MiB) and headless Chromium took 21 s to load the page
// (bench/report-render.sh); at 16 hosts it is about 2.4k rows.
inline constexpr std::size_t kPairsInFullUpTo = 16;

struct PairFold {
  bool folded = false;         // false: `listed` is not filled, show the section as it is
  HostSection listed;          // the rows shown, and every verdict not tied to one row
  std::size_t passing = 0;     // pair rows not listed: every verdict passes
  std::size_t unjudged = 0;    // pair rows not listed: no verdict
};
PairFold fold_pairs(const Report& r);
// One line for the reader under the table: what was left out and where to find it.
std::string pair_fold_note(const PairFold& f);

}  // namespace ga::report_fold

