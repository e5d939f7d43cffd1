// The report model and its writers. build_report assembles; writers only format.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/journal.hpp"
#include "suites/judge.hpp"

namespace ga {

inline constexpr int kReportSchemaVersion = 1;

// One row of a per-host table: a measured thing and where it sits.
struct PlacedMetric {
  std::string place;
  std::string where;                    // "NUMA 1", "GPU 3 (NUMA 1, PCI 0000:4e:00.0)", "NIC mlx5_0 (NUMA 0)"
  const Metric* metric = nullptr;
};

struct HostSection {
  std::string host;
  std::vector<int> ranks;
  std::vector<PlacedMetric> rows;
};

struct Report {
  nlohmann::json run;                   // start/end, argv, hosts, ranks per host, versions, slurm
  const JournalData* journal = nullptr;
  const Judgement* judgement = nullptr;
  std::vector<HostSection> hosts;
};

Report build_report(const JournalData& journal, const Judgement& judgement);

nlohmann::json report_to_json(const Report&);
std::string report_to_markdown(const Report&);

// Writes report.json and report.md into dir (atomically: temp file + rename).
void write_report_files(const Report&, const std::string& dir);

}  // namespace ga
