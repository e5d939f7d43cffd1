// report.junit.xml: the verdicts as JUnit XML, so a CI dashboard (Jenkins, GitLab, GitHub
// checks) shows the acceptance run like a test run. One <testsuite> per probe, named by the
// probe a verdict's metric belongs to ("gpu.hbm_bw" and "probe.gpu" both go to "gpu"); one
// <testcase> per verdict. An error-severity node fault (fail, missing) is a <failure>; a tool
// error is an <error> (JUnit's own word for "the test could not run", never the node's
// fault); an inconclusive verdict is <failure type="inconclusive"> with the re-test advice
// (neither pass nor node fault, but never green: dashboards show <skipped> as passed, and an
// unconfirmed suspect is not a pass, issue 32); a warning that failed passes with the reason in <system-out> and a property; a
// skipped verdict is <skipped>; a suite "run" holds the command and versions as properties and one testcase,
// "run completes", that has an <error> when the run did not finish. Counts are of the
// elements written, so they agree with the summary by construction (docs/report-format.md).
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "reports/markup_escape.hpp"
#include "reports/report.hpp"
#include "reports/text_format.hpp"

namespace ga {
namespace {

using markup::append_escaped;

// The probe a verdict belongs to: the first part of its metric, or X for "probe.X".
std::string probe_of(const Verdict& v) {
  const std::string& m = v.metric.empty() ? v.criterion : v.metric;
  if (m.rfind("probe.", 0) == 0) return m.substr(6);
  auto dot = m.find('.');
  return dot == std::string::npos ? std::string() : m.substr(0, dot);
}

struct Suite {
  std::string name;
  const ProbeSummary* probe = nullptr;
  const ProbeRecord* record = nullptr;
  std::vector<const Verdict*> verdicts;
  int failures = 0, errors = 0, skipped = 0;
};

void attr(std::string& out, const char* name, std::string_view value) {
  out += ' ';
  out += name;
  out += "=\"";
  append_escaped(out, value);
  out += '"';
}

void property(std::string& out, std::string_view name, std::string_view value) {
  out += "      <property";
  attr(out, "name", name);
  attr(out, "value", value);
  out += "/>\n";
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

void testcase(std::string& out, const Verdict& v) {
  out += "    <testcase";
  attr(out, "name", v.criterion + " @ " + v.place);
  attr(out, "classname", v.metric.empty() ? v.criterion : v.metric);
  const bool bad = v.outcome() != OutcomeClass::none;
  if (v.status == VerdictStatus::pass && v.severity == Severity::error) {
    out += "/>\n";
    return;
  }
  // Formatted only past the line above: at 4096 hosts two million passing verdicts never
  // print them.
  const std::string value = report_text::quantity(v);
  const std::string bound = report_text::bound_text(v.bounds, v.unit);
  out += ">\n";
  if (v.status == VerdictStatus::tool_error && v.severity == Severity::error) {
    out += "      <error";
    attr(out, "message", v.reason);
    attr(out, "type", "tool_error");
    out += ">";
    append_escaped(out, "tool error (not the place's fault)\nplace " + v.place + "\nmetric " + v.metric + "\nvalue " +
                            value + "\nbound " + bound + "\n" + v.reason);
    out += "</error>\n";
  } else if (v.status == VerdictStatus::inconclusive) {
    out += "      <failure";
    attr(out, "message", "inconclusive (re-test): " + v.reason);
    attr(out, "type", "inconclusive");
    out += ">";
    append_escaped(out, "inconclusive: neither confirmed nor cleared; re-test it (gpuaccept rerun-plan), drain nothing\nplace " +
                            v.place + "\nmetric " + v.metric + "\nvalue " + value + "\nbound " + bound + "\n" + v.reason);
    out += "</failure>\n";
  } else if (bad && v.severity == Severity::error) {
    out += "      <failure";
    attr(out, "message", v.reason);
    attr(out, "type", to_string(v.status));
    out += ">";
    append_escaped(out, "status " + std::string(to_string(v.status)) + ", severity error\nplace " + v.place +
                            "\nmetric " + v.metric + "\nvalue " + value + "\nbound " + bound + "\n" + v.reason);
    out += "</failure>\n";
  } else if (v.status == VerdictStatus::skipped) {
    out += "      <skipped";
    attr(out, "message", v.reason);
    out += "/>\n";
  } else if (v.severity == Severity::warning) {
    // A warning does not fail the run, so it does not fail the test; a dashboard still shows it.
    out += "    <properties>\n";
    property(out, "severity", "warning");
    property(out, "status", to_string(v.status));
    out += "    </properties>\n      <system-out>";
    append_escaped(out, std::string(bad ? "WARNING " : "") + to_string(v.status) + ": " + v.reason + "\nvalue " +
                            value + ", bound " + bound);
    out += "</system-out>\n";
  }
  out += "    </testcase>\n";
}

}  // namespace

void write_report_junit(const Report& r, std::ostream& os) {
  const Judgement& g = *r.judgement;
  std::vector<Suite> suites;
  std::map<std::string, std::size_t> at;
  auto suite = [&](const std::string& name) -> Suite& {
    auto [it, fresh] = at.try_emplace(name, suites.size());
    if (fresh) {
      suites.emplace_back();
      suites.back().name = name;
    }
    return suites[it->second];
  };
  for (const auto& p : g.probes) suite(p.name).probe = &p;
  for (const auto& rec : r.journal->probes)
    if (auto it = at.find(rec.name); it != at.end()) suites[it->second].record = &rec;
  for (const auto& v : g.verdicts) {
    std::string name = probe_of(v);
    // Verdicts whose metric names no probe of the run (a criterion on a probe not in the suite,
    // the cluster-level skips) gather in one suite of their own.
    Suite& s = suite(at.count(name) ? name : "gpuaccept");
    s.verdicts.push_back(&v);
    if (v.node_fault() || v.status == VerdictStatus::inconclusive) ++s.failures;
    if (v.status == VerdictStatus::tool_error && v.severity == Severity::error) ++s.errors;
    if (v.status == VerdictStatus::skipped) ++s.skipped;
  }

  const int run_errors = g.incomplete ? 1 : 0;
  int tests = 0, failures = 0, skipped = 0, errors = run_errors;
  for (const auto& s : suites) {
    tests += static_cast<int>(s.verdicts.size());
    failures += s.failures;
    errors += s.errors;
    skipped += s.skipped;
  }
  tests += 1;  // the run's own testcase

  // Built in a buffer that goes to the stream every so often: at 4096 hosts the document is
  // 350 MiB, never held whole.
  constexpr std::size_t kFlushAt = 1 << 20;
  std::string out;
  out.reserve(kFlushAt + 64 * 1024);
  auto flush = [&] {
    os.write(out.data(), static_cast<std::streamsize>(out.size()));
    out.clear();
  };
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites";
  attr(out, "name", "gpuaccept " + (g.summary.overall.empty() ? std::string("UNKNOWN") : g.summary.overall));
  attr(out, "tests", std::to_string(tests));
  attr(out, "failures", std::to_string(failures));
  attr(out, "errors", std::to_string(errors));
  attr(out, "skipped", std::to_string(skipped));
  out += ">\n";

  // The run itself: what was run (properties, for whoever reads the dashboard later) and
  // one testcase that fails with an <error> when the run did not finish.
  const nlohmann::json& run = r.run;
  out += "  <testsuite";
  attr(out, "name", "run");
  attr(out, "tests", "1");
  attr(out, "failures", "0");
  attr(out, "errors", std::to_string(run_errors));
  attr(out, "skipped", "0");
  if (auto started = report_text::string_or(run, "started", ""); !started.empty()) attr(out, "timestamp", started);
  out += ">\n    <properties>\n";
  std::string argv;
  if (run.contains("argv"))
    for (const auto& a : run["argv"]) {
      if (!argv.empty()) argv += ' ';
      argv += a.is_string() ? a.get<std::string>() : a.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  property(out, "command", argv);
  property(out, "started", report_text::string_or(run, "started", ""));
  property(out, "ended", report_text::string_or(run, "ended", ""));
  property(out, "overall", g.summary.overall);
  property(out, "exit_code", std::to_string(g.summary.exit_code));
  if (run.contains("criteria")) property(out, "criteria", report_text::string_or(run["criteria"], "source", ""));
  if (run.contains("versions") && run["versions"].is_object())
    for (auto it = run["versions"].begin(); it != run["versions"].end(); ++it)
      if (it.value().is_string()) property(out, "version." + it.key(), it.value().get<std::string>());
  out += "    </properties>\n    <testcase";
  attr(out, "name", "run completes @ cluster");
  attr(out, "classname", "run");
  if (!g.incomplete) {
    out += "/>\n  </testsuite>\n";
  } else {
    const auto& inc = *g.incomplete;
    std::string who;
    for (const auto& m : inc.missing_ranks)
      who += (who.empty() ? "" : ", ") + std::string("rank ") + std::to_string(m.rank) + " (" + m.host + ")";
    out += ">\n      <error";
    attr(out, "message", "probe " + inc.probe + " did not finish: " + inc.reason);
    attr(out, "type", "incomplete");
    out += ">";
    append_escaped(out, "probe " + inc.probe + " did not finish\nreason: " + inc.reason +
                            "\nmissing ranks: " + (who.empty() ? std::string("none recorded") : who) +
                            "\nwaiting ranks: " + std::to_string(inc.waiting_ranks.size()) +
                            "\ndetected by rank " + std::to_string(inc.detected_by));
    out += "</error>\n    </testcase>\n  </testsuite>\n";
  }

  for (const auto& s : suites) {
    out += "  <testsuite";
    attr(out, "name", s.name);
    attr(out, "tests", std::to_string(s.verdicts.size()));
    attr(out, "failures", std::to_string(s.failures));
    attr(out, "errors", std::to_string(s.errors));
    attr(out, "skipped", std::to_string(s.skipped));
    if (s.record && s.record->ended) attr(out, "time", seconds(s.record->elapsed_s));
    if (s.record && !s.record->begin_time.empty()) attr(out, "timestamp", s.record->begin_time);
    out += ">\n";
    if (s.probe) {
      out += "    <properties>\n";
      property(out, "probe.status", to_string(s.probe->status));
      if (!s.probe->reason.empty()) property(out, "probe.reason", s.probe->reason);
      out += "    </properties>\n";
    }
    for (const Verdict* v : s.verdicts) {
      testcase(out, *v);
      if (out.size() >= kFlushAt) flush();
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  flush();
}

std::string report_to_junit(const Report& r) {
  std::ostringstream os;
  write_report_junit(r, os);
  return std::move(os).str();
}

}  // namespace ga
