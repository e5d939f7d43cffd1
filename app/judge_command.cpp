#include <filesystem>
#include <iostream>

#include "app/commands.hpp"
#include "app/run_support.hpp"
#include "probes/probe.hpp"
#include "reports/attest.hpp"
#include "reports/bad_hosts.hpp"
#include "reports/report.hpp"
#include "suites/criteria.hpp"
#include "suites/judge.hpp"

namespace ga::app {

MetricCatalogue builtin_catalogue() {
  ProbeRegistry reg;
  register_builtin_probes(reg);
  return catalogue_of(reg);
}

std::optional<Contract> contract_criteria(const std::string& file, const std::string& profile,
                                          const MetricCatalogue& catalogue) {
  if (!file.empty() && !profile.empty())
    throw std::invalid_argument("--criteria and --criteria-profile both given: a profile is a criteria set, give one");
  Contract c;
  if (!file.empty()) {
    c.criteria = load_criteria_file(file);  // a file that cannot be read fails here, naming it
    c.source = file;
    c.text = run::read_file(file);
  } else if (!profile.empty()) {
    const CriteriaProfile p = criteria_profile(profile);
    c.source = p.source;
    c.text = p.text;
    c.criteria = parse_criteria(c.text, c.source);
  } else {
    return std::nullopt;
  }
  check_criteria_metrics(c.criteria, catalogue);  // a buyer's contract with a typo: exit 2, naming the line
  return c;
}

JudgeResult judge_directory(const std::string& dir, const std::string& criteria_file, bool write_reports,
                            const std::string& out_dir, const std::string& report_spec,
                            const std::string& criteria_profile) {
  const ReportChoice choice = parse_report_choice(report_spec);
  // The chain the run's manifest recorded, if DIR has one: a journal whose last lines were
  // removed still reads whole (a killed run ends anywhere), and only that chain shows it.
  const std::string journal_path = (std::filesystem::path(dir) / "samples.jsonl").string();
  const std::string manifest_path = (std::filesystem::path(dir) / attest::kManifest).string();
  std::string recorded_chain;
  if (std::filesystem::is_regular_file(std::filesystem::symlink_status(manifest_path))) {
    try {
      recorded_chain = attest::read_manifest(manifest_path).journal_chain;
    } catch (const std::exception& e) {
      std::cerr << "gpuaccept judge: note: " << e.what() << ": the journal's end is not checked against it\n";
    }
  }
  auto journal = read_journal(journal_path, recorded_chain);
  if (!recorded_chain.empty() && !journal.chain_head.empty() && !journal.line_of_chain)
    throw JournalError(journal_path, journal.lines,
                       "the journal ends here, and no record of it has the chain " + manifest_path +
                           " recorded: records were removed from its end after the run wrote it");
  if (journal.line_of_chain && *journal.line_of_chain < journal.lines)
    std::cerr << "gpuaccept judge: note: " << journal_path << ": the records after line " << *journal.line_of_chain
              << " came after " << manifest_path << " was written (a late survivor's record, or added since)\n";
  if (journal.chain_head.empty())
    std::cerr << "gpuaccept judge: note: " << (std::filesystem::path(dir) / "samples.jsonl").string()
              << " is a journal of schema " << journal.schema_version
              << ", written before the chain: a line edited, deleted or doubled in it does not show\n";
  const MetricCatalogue catalogue = builtin_catalogue();
  CriteriaSet criteria;
  if (auto contract = contract_criteria(criteria_file, criteria_profile, catalogue)) {
    criteria = std::move(contract->criteria);
    // The reports (and the manifest of NEW) name the criteria they were judged by, not the run's.
    journal.criteria_source = contract->source;
    journal.criteria_text = contract->text;
  } else if (!journal.criteria_text.empty()) {
    // What the run was judged with is part of its record: re-judged as it was, even if a later
    // gpuaccept no longer declares one of its metrics (that criterion then says so).
    criteria = parse_criteria(journal.criteria_text, journal.criteria_source);
  } else {
    criteria = parse_criteria(builtin_criteria_text(), "builtin");
  }
  const auto judgement = judge_releasing_samples(journal, criteria, &catalogue);  // the samples are not read again
  BadHosts bad;
  if (write_reports) {
    const auto report = build_report(journal, judgement);
    write_report_files(report, out_dir.empty() ? dir : out_dir, choice, &std::cout);
    std::cout.flush();
    bad = bad_hosts(report);
  }
  JudgeResult r;
  for (const auto& v : judgement.verdicts)
    if (v.outcome() != OutcomeClass::none) r.findings.push_back(v);
  r.exit_code = judgement.summary.exit_code;
  r.overall = judgement.summary.overall;
  const auto& s = judgement.summary;
  r.summary_line = s.overall + ": " + std::to_string(s.pass) + " pass, " + std::to_string(s.fail) + " fail, " +
                   std::to_string(s.missing) + " missing, " + std::to_string(s.tool_error) + " tool error, " +
                   std::to_string(s.inconclusive) + " inconclusive, " + std::to_string(s.skipped) + " skipped";
  if (judgement.incomplete) r.summary_line += " (incomplete: " + judgement.incomplete->reason + ")";
  if (!bad.hosts.empty()) {
    int faults = 0, tools = 0, unsure = 0;
    for (const auto& h : bad.hosts)
      (h.outcome == OutcomeClass::node_fault ? faults : h.outcome == OutcomeClass::tool_error ? tools : unsure)++;
    r.bad_hosts_line = std::to_string(bad.hosts.size()) + " of " + std::to_string(bad.judged.size()) +
                       " host(s) did not pass (" + std::to_string(faults) + " node fault, " + std::to_string(tools) +
                       " tool error, " + std::to_string(unsure) + " inconclusive): " +
                       (std::filesystem::path(out_dir.empty() ? dir : out_dir) / "bad-hosts.txt").string() +
                       (faults ? "; `gpuaccept drain " + dir + "` prints the drain lines" : "");
  }
  return r;
}

int judge_command(const JudgeOptions& o) {
  // Other criteria make another report: it goes elsewhere, so DIR keeps the reports its run
  // wrote and a signature over them stays true (with the recorded criteria the rewrite is
  // byte-identical).
  if ((!o.criteria.empty() || !o.criteria_profile.empty()) && o.out.empty()) {
    std::cerr << "gpuaccept: judge " << o.dir
              << (o.criteria.empty() ? " --criteria-profile " + o.criteria_profile : " --criteria " + o.criteria)
              << " writes another report: give --out NEW (DIR keeps the reports its run wrote)\n";
    return kExitUsage;
  }
  if (!o.out.empty() && std::filesystem::exists(std::filesystem::path(o.out) / "samples.jsonl")) {
    std::cerr << "gpuaccept: --out " << o.out << " holds a run (samples.jsonl): choose another directory\n";
    return kExitUsage;
  }
  try {
    const std::string where = o.out.empty() ? o.dir : o.out;
    auto r = judge_directory(o.dir, o.criteria, true, o.out, o.report, o.criteria_profile);
    // A report printed to stdout keeps stdout to itself: the summary goes to stderr then.
    std::ostream& said = parse_report_choice(o.report).to_stdout.empty() ? std::cout : std::cerr;
    said << "gpuaccept: " << r.summary_line << "\n";
    if (!r.bad_hosts_line.empty()) said << "gpuaccept: " << r.bad_hosts_line << "\n";
    said << "gpuaccept: report " << (std::filesystem::path(where) / "report.md").string() << "\n";
    return r.exit_code;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace ga::app
