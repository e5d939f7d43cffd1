// report.md: what a person reads first. Verdict at the top, then what failed, then the probes,
// then each host with its topology and every metric measured there, placed (docs/report-format.md).
// Only formatting happens here: the numbers come from the judgement, the words from build_report.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "base/quantity.hpp"
#include "reports/host_folds.hpp"
#include "reports/report.hpp"
#include "reports/text_format.hpp"

namespace ga {
namespace {

using nlohmann::json;
using report_text::bound_text;
using report_text::mark;
using report_text::params_text;
using report_text::quantity;
using report_text::rank_list;
using report_text::string_or;

// A table cell: a `|` would end the cell, a newline would end the table.
std::string cell(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

void heading_line(std::string& md, const Report& r) {
  const Summary& s = r.judgement->summary;
  md += "# gpuaccept: " + (s.overall.empty() ? std::string("UNKNOWN") : s.overall) + "\n\n";
  const json& run = r.run;
  std::size_t hosts = run.contains("hosts") ? run["hosts"].size() : r.hosts.size();
  std::size_t ranks = run.contains("ranks") ? run["ranks"].size() : 0;
  md += std::to_string(s.pass) + " pass, " + std::to_string(s.fail) + " fail, " + std::to_string(s.missing) +
        " missing, " + std::to_string(s.tool_error) + " tool error, " + std::to_string(s.inconclusive) +
        " inconclusive, " + std::to_string(s.skipped) + " skipped — " +
        std::to_string(hosts) + (hosts == 1 ? " host, " : " hosts, ") + std::to_string(ranks) +
        (ranks == 1 ? " rank" : " ranks") + " — started " + string_or(run, "started", "(unknown)") + ", ended " +
        string_or(run, "ended", "(not recorded)") + " — exit code " + std::to_string(s.exit_code) + "\n";
}

void incomplete_section(std::string& md, const Report& r) {
  const auto& inc = r.judgement->incomplete;
  if (!inc) return;
  md += "\n## Incomplete: probe `" + inc->probe + "` did not finish\n\n";
  md += (inc->reason.empty() ? std::string("No reason recorded.") : inc->reason) + "\n\n";
  std::vector<std::string> missing_hosts;
  for (const auto& m : inc->missing_ranks)
    if (std::find(missing_hosts.begin(), missing_hosts.end(), m.host) == missing_hosts.end())
      missing_hosts.push_back(m.host);
  md += "Hosts with missing ranks: " + (missing_hosts.empty() ? std::string("none recorded") : "") ;
  for (std::size_t i = 0; i < missing_hosts.size(); ++i) md += (i ? ", " : "") + missing_hosts[i];
  md += "\n\n| rank | host | state |\n|---:|---|---|\n";
  for (const auto& m : inc->missing_ranks)
    md += "| " + std::to_string(m.rank) + " | " + cell(m.host) + " | missing: never arrived |\n";
  for (const auto& w : inc->waiting_ranks)
    md += "| " + std::to_string(w.rank) + " | " + cell(w.host) + " | waiting on the missing ranks |\n";
  if (inc->detected_by >= 0) md += "\nDetected by rank " + std::to_string(inc->detected_by) + ".\n";
}

// One section per outcome class, because each asks for a different act: drain, fix the tool,
// re-test. Errors before warnings inside each.
void outcome_section(std::string& md, const Report& r, OutcomeClass which, const std::string& heading,
                     const std::string& what_to_do) {
  std::vector<const Verdict*> failing;
  for (const auto& v : r.judgement->verdicts)
    if (v.outcome() == which) failing.push_back(&v);
  std::stable_partition(failing.begin(), failing.end(),
                        [](const Verdict* v) { return v->severity == Severity::error; });
  if (failing.empty() && which != OutcomeClass::node_fault) return;
  md += "\n## " + heading + "\n\n";
  if (failing.empty()) {
    md += "None.\n";
    return;
  }
  md += what_to_do + "\n\n";
  md += "| severity | status | criterion | place | value | bound | reason |\n|---|---|---|---|---:|---|---|\n";
  for (const Verdict* v : failing)
    md += "| " + std::string(to_string(v->severity)) + " | " + to_string(v->status) + " | " + cell(v->criterion) +
          " | " + cell(v->place) + " | " + cell(quantity(*v)) + " | " +
          cell(bound_text(v->bounds, v->unit)) + " | " + cell(v->reason) + " |\n";
}

void failing_section(std::string& md, const Report& r) {
  outcome_section(md, r, OutcomeClass::node_fault, "Failing criteria: node faults",
                  "A criterion failed with evidence, or a required measurement is missing: the place named "
                  "is at fault (drain it; warnings are for a person to read).");
  outcome_section(md, r, OutcomeClass::tool_error, "Tool errors",
                  "gpuaccept, its configuration or a library it loads failed here. These say nothing against "
                  "the places named: fix the tool or its setup and run again; never drain on them.");
  outcome_section(md, r, OutcomeClass::inconclusive, "Inconclusive",
                  "The evidence is unconfirmed or contradictory (for example a suspect no re-test confirmed): "
                  "re-test these places; do not drain on them.");
}

void probes_section(std::string& md, const Report& r) {
  md += "\n## Probes\n\n";
  if (r.judgement->probes.empty()) {
    md += "No probe ran.\n";
    return;
  }
  md += "| probe | status | reason |\n|---|---|---|\n";
  for (const auto& p : r.judgement->probes)
    md += "| " + cell(p.name) + " | " + to_string(p.status) + " | " + cell(p.reason) + " |\n";
}

std::string numa_text(const std::optional<int>& n) { return n ? "NUMA " + std::to_string(*n) : "NUMA ?"; }

void topology_brief(std::string& md, const topo::HostTopology* h) {
  if (!h) {
    md += "Topology: not recorded.\n";
    return;
  }
  md += "Topology: " + std::to_string(h->numa_nodes.size()) + " NUMA nodes, " + std::to_string(h->gpus.size()) +
        " GPUs, " + std::to_string(h->nics.size()) + " NICs\n\n";
  md += "- NUMA nodes:";
  for (std::size_t i = 0; i < h->numa_nodes.size(); ++i) {
    const auto& n = h->numa_nodes[i];
    md += std::string(i ? ";" : "") + " " + std::to_string(n.os_index);
    std::vector<std::string> parts;
    if (!n.cpuset.empty()) parts.push_back("CPUs " + n.cpuset);
    if (n.memory_bytes) parts.push_back(base::format_quantity(double(*n.memory_bytes), "B"));
    if (!parts.empty()) md += " (" + parts[0] + (parts.size() > 1 ? ", " + parts[1] : "") + ")";
  }
  md += h->numa_nodes.empty() ? " none\n" : "\n";
  md += "- GPUs:";
  for (std::size_t i = 0; i < h->gpus.size(); ++i) {
    const auto& g = h->gpus[i];
    md += std::string(i ? ";" : "") + " " + std::to_string(g.index) + " (" + numa_text(g.numa_node);
    if (!g.nearest_nics.empty()) {
      md += ", NIC ";
      for (std::size_t k = 0; k < g.nearest_nics.size(); ++k) md += (k ? "/" : "") + g.nearest_nics[k];
      if (g.nic_path) md += std::string(" ") + topo::to_string(*g.nic_path);
    } else {
      md += ", no NIC";
    }
    md += ")";
  }
  md += h->gpus.empty() ? " none\n" : "\n";
  md += "- NICs:";
  for (std::size_t i = 0; i < h->nics.size(); ++i) {
    const auto& n = h->nics[i];
    md += std::string(i ? ";" : "") + " " + n.name + " (" + numa_text(n.numa_node) + ")";
  }
  md += h->nics.empty() ? " none\n" : "\n";
}

void metric_table(std::string& md, const HostSection& s) {
  if (s.rows.empty()) {
    md += "\nNo metrics measured here.\n";
  } else {
    md += "\n| place | where | metric | params | value | verdicts |\n|---|---|---|---|---:|---|\n";
    for (const auto& row : s.rows) {
      const Metric& m = *row.metric;
      std::string verdicts;
      for (std::size_t i = 0; i < row.verdicts.size(); ++i) verdicts += (i ? "; " : "") + mark(*row.verdicts[i]);
      md += "| " + cell(row.place()) + " | " + cell(row.where()) + " | " + cell(m.metric) + " | " +
            cell(params_text(m.params)) + " | " + cell(quantity(m)) + " | " + cell(verdicts) +
            " |\n";
    }
  }
  if (!s.other_verdicts.empty()) {
    md += "\nVerdicts not tied to one measured row:\n\n";
    for (const Verdict* v : s.other_verdicts)
      md += "- " + mark(*v) + " at " + v->place + ": " + v->reason + "\n";
  }
}

void host_sections(std::string& md, const Report& r) {
  md += "\n## Hosts\n";
  if (r.hosts.empty()) md += "\nNo hosts recorded.\n";
  const report_fold::Folds folds = report_fold::fold_hosts(r);
  for (std::size_t i = 0; i < r.hosts.size(); ++i) {
    const HostSection& s = r.hosts[i];
    if (folds.folded(i)) {
      // Hosts alike in topology whose every verdict passes: one section for all of them.
      if (folds.leader[i] != i) continue;
      const auto c = report_fold::fold_counts(r, folds, i);
      md += "\n### " + report_fold::fold_title(r, folds, i) + "\n\nRanks: " + rank_list(c.ranks) + "\n\n";
      topology_brief(md, r.journal->topology.find(s.host));
      md += "\n" + std::to_string(c.rows) + " metrics, " + std::to_string(c.verdicts) +
            " verdicts, every one a pass; each host's rows are in report.json.\n";
      continue;
    }
    md += "\n### " + s.host + "\n\nRanks: " + rank_list(s.ranks) + "\n\n";
    topology_brief(md, r.journal->topology.find(s.host));
    metric_table(md, s);
  }
  if (!r.cluster.rows.empty() || !r.cluster.other_verdicts.empty()) {
    md += "\n## Cluster and pair metrics\n";
    const report_fold::PairFold pairs = report_fold::fold_pairs(r);
    metric_table(md, pairs.folded ? pairs.listed : r.cluster);
    if (pairs.folded) md += "\n" + report_fold::pair_fold_note(pairs) + "\n";
  }
}

// Where the numbers came from, last: the command, the versions, the job and the contract.
void run_section(std::string& md, const Report& r) {
  const json& run = r.run;
  md += "\n## Run\n\n";
  std::string argv;
  if (run.contains("argv"))
    for (const auto& a : run["argv"]) argv += (argv.empty() ? "" : " ") + (a.is_string() ? a.get<std::string>() : a.dump());
  md += "- Command: `" + (argv.empty() ? std::string("(not recorded)") : argv) + "`\n";
  md += "- Started: " + string_or(run, "started", "(unknown)") + "; ended: " + string_or(run, "ended", "(not recorded)") + "\n";
  std::string versions;
  if (run.contains("versions") && run["versions"].is_object())
    for (auto it = run["versions"].begin(); it != run["versions"].end(); ++it)
      versions += (versions.empty() ? "" : ", ") + it.key() + " " +
                  (it.value().is_string() ? it.value().get<std::string>()
                                          : it.value().is_null() ? std::string("(none)") : it.value().dump());
  md += "- Versions: " + (versions.empty() ? std::string("(not recorded)") : versions) + "\n";
  if (run.contains("slurm") && run["slurm"].is_object())
    md += "- Slurm job: " + string_or(run["slurm"], "job_id", "(no id)") + "\n";
  if (run.contains("criteria")) md += "- Criteria: " + string_or(run["criteria"], "source", "(unknown)") + "\n";
}

}  // namespace

std::string report_to_markdown(const Report& r) {
  std::string md;
  md.reserve(256 + r.judgement->metrics.size() * 160);
  heading_line(md, r);
  incomplete_section(md, r);
  failing_section(md, r);
  probes_section(md, r);
  host_sections(md, r);
  run_section(md, r);
  return md;
}

}  // namespace ga
