// The report model and its writers. build_report assembles; writers only format.
#pragma once
#include <iosfwd>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/journal.hpp"
#include "suites/judge.hpp"

namespace ga {

inline constexpr int kReportSchemaVersion = 1;

// One row of a per-host table: a measured thing and where it sits.
// The place and its description are the metric's and the report's (Report::where_of_place), not
// copies: at 4096 hosts there are 4 M rows and ~100 k places.
struct PlacedMetric {
  const Metric* metric = nullptr;
  const std::string* where_text = nullptr;
  std::vector<const Verdict*> verdicts;  // verdicts on this metric (same metric and place)
  const std::string& place() const { return metric->place; }
  // "NUMA 1", "GPU 3 (NUMA 1, PCI 0000:4e:00.0)", "NIC mlx5_0 (NUMA 0)"
  const std::string& where() const { return *where_text; }
};

struct HostSection {
  std::string host;
  std::vector<int> ranks;
  std::vector<PlacedMetric> rows;
  std::vector<const Verdict*> other_verdicts;  // verdicts here not tied to one row (metric missing, or ambiguous)
  // A folded judgement's passing verdicts at this host and its NUMA nodes, GPUs, NICs and
  // rails (Judgement::passing), which no row lists.
  std::size_t folded_passes = 0;
};

struct Report {
  nlohmann::json run;                   // start/end, argv, hosts, ranks per host, versions, slurm
  const JournalData* journal = nullptr;
  const Judgement* judgement = nullptr;
  std::vector<HostSection> hosts;
  HostSection cluster;                  // host "": cluster-level, pair and host-less metrics
  std::unordered_map<std::string, std::string> where_of_place;  // what the rows' where() point into
};

Report build_report(const JournalData& journal, const Judgement& judgement);

nlohmann::json report_to_json(const Report&);
// The same document as report_to_json, streamed one metric and one verdict per line, so a
// large run is never held twice in memory (DOM and text).
void write_report_json(const Report&, std::ostream&);
std::string report_to_markdown(const Report&);
// One self-contained page: inline CSS and SVG (the cluster on its topology, coloured by the
// verdicts), nothing fetched, readable without script.
std::string report_to_html(const Report&);
// JUnit XML for CI dashboards: a testsuite per probe, a testcase per criterion, kind of place
// and outcome, its places inside it (reports/report_junit.cpp).
std::string report_to_junit(const Report&);
// The same document streamed: a large run's XML is never held whole in memory.
void write_report_junit(const Report&, std::ostream&);

// report.prom: the judgement in Prometheus' text format for node_exporter's textfile collector
// (reports/report_prom.cpp says which families), streamed.
void write_report_prom(const Report&, std::ostream&);

// Values print through base::format_quantity (base/quantity.hpp), as the judge's reasons do.

// Which writers run (`--report json,md,html,junit,prom`, default all) and which one prints to
// stdout instead of its file (`--report md:out=-`). bad-hosts.txt, the campaign files and the
// manifest are always written: the operator's loop and verify read them.
struct ReportChoice {
  std::set<std::string> formats = {"json", "md", "html", "junit", "prom"};
  std::string to_stdout;               // one of formats, or ""
};
// "json,md", "md:out=-,json", "all"; throws std::invalid_argument naming what it cannot read.
ReportChoice parse_report_choice(const std::string& spec);

// One file of a report directory and how to write it.
struct ReportFile {
  std::string name;                                  // relative to the directory
  std::function<void(std::ostream&)> write;
  std::string format;                                // json, md, html, junit, prom; "" always written
};
// The report files of `r`: report.json, report.md, report.html, report.junit.xml, report.prom,
// bad-hosts.txt (reports/bad_hosts.hpp), and for a re-test campaign.json and campaign.md
// (reports/campaign.hpp). A function of the journal alone, never of where the directory is:
// the writer and `gpuaccept verify` (of a copy too) both use this list.
std::vector<ReportFile> report_files(const Report& r);
// Writes report_files(r) into dir (each atomically: temp file + fsync + rename + fsync of
// the directory, base/file_io.hpp), then manifest.json over every file of dir (reports/attest.hpp).
// `choice` says which writers run; its to_stdout format goes to `out` (not to its file).
void write_report_files(const Report&, const std::string& dir, const ReportChoice& choice = {}, std::ostream* out = nullptr);

}  // namespace ga
