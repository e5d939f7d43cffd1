// report.junit.xml: the judgement as JUnit XML, so a CI dashboard (Jenkins, GitLab, GitHub
// checks) shows the acceptance run like a test run, at any size. One <testsuite> per probe,
// named by the probe a verdict's metric belongs to ("gpu.hbm_bw" and "probe.gpu" both go to
// "gpu"); in it one <testcase> per criterion, kind of place and outcome, "CRITERION [KIND]
// OUTCOME", the places inside it (issue 36: a testcase per verdict was 349 MiB at 4096 hosts):
//   node fault    <failure type="node_fault">, every place with its value, bound and reason
//   tool error    <error type="tool_error"> (JUnit's own word for "the test could not run",
//                 never the place's fault)
//   inconclusive  <failure type="inconclusive"> with the re-test advice: neither pass nor node
//                 fault, but never green (dashboards show <skipped> as passed, issue 32)
//   warning       a failed warning passes, its places in <system-out> and a property
//   skipped       <skipped>, the places and the first reason
//   pass          an empty testcase whose properties count the places (listed or folded,
//                 Judgement::passing) and name the worst margin
// A suite "run" holds the command and versions as properties and one testcase, "run
// completes", that has an <error> when the run did not finish. Counts are of the elements
// written, so they agree with the summary by construction (docs/report-format.md).
#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "base/quantity.hpp"
#include "reports/markup_escape.hpp"
#include "reports/report.hpp"
#include "reports/text_format.hpp"
#include "topology/place.hpp"

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

// What a testcase says of its places, in the order an operator acts on them.
enum class CaseOutcome { node_fault, tool_error, inconclusive, warning, skipped, pass };
const char* words(CaseOutcome o) {
  switch (o) {
    case CaseOutcome::node_fault: return "node fault";
    case CaseOutcome::tool_error: return "tool error";
    case CaseOutcome::inconclusive: return "inconclusive";
    case CaseOutcome::warning: return "warning";
    case CaseOutcome::skipped: return "skipped";
    case CaseOutcome::pass: return "pass";
  }
  return "?";
}
CaseOutcome outcome_of(const Verdict& v) {
  switch (v.status) {
    case VerdictStatus::pass: return CaseOutcome::pass;
    case VerdictStatus::skipped: return CaseOutcome::skipped;
    case VerdictStatus::inconclusive: return CaseOutcome::inconclusive;
    default: break;
  }
  if (v.severity == Severity::warning) return CaseOutcome::warning;
  return v.status == VerdictStatus::tool_error ? CaseOutcome::tool_error : CaseOutcome::node_fault;
}

// One testcase: a criterion's verdicts at one kind of place with one outcome.
struct Case {
  std::string criterion, kind, metric;
  CaseOutcome outcome = CaseOutcome::pass;
  std::vector<const Verdict*> verdicts;  // listed ones, in the judge's order
  std::size_t places = 0;                // listed and folded
  std::optional<double> worst_margin;
  const Verdict* worst = nullptr;        // pass only: the place of the worst margin
};

struct Suite {
  std::string name;
  const ProbeSummary* probe = nullptr;
  const ProbeRecord* record = nullptr;
  std::vector<Case> cases;
  std::map<std::tuple<std::string, std::string, CaseOutcome>, std::size_t> at;
  int failures = 0, errors = 0, skipped = 0;
  Case& of(const std::string& criterion, const std::string& kind, CaseOutcome o, const std::string& metric) {
    auto [it, fresh] = at.try_emplace({criterion, kind, o}, cases.size());
    if (fresh) {
      cases.emplace_back();
      cases.back().criterion = criterion, cases.back().kind = kind, cases.back().outcome = o, cases.back().metric = metric;
    }
    return cases[it->second];
  }
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

// "3 places: node2/gpu:1, node7/gpu:0, node9/gpu:5" (every place: a failing case's places are
// what the operator acts on, and there are few).
std::string places_line(const Case& c) {
  std::string s = std::to_string(c.places) + (c.places == 1 ? " place: " : " places: ");
  for (std::size_t i = 0; i < c.verdicts.size(); ++i) s += (i ? ", " : "") + c.verdicts[i]->place;
  return s;
}

// One line per place: where, the value, the bound and why.
std::string detail(const Case& c) {
  std::string s;
  for (const Verdict* v : c.verdicts)
    s += v->place + ": " + to_string(v->status) + ", value " + report_text::quantity(*v) + ", bound " +
         report_text::bound_text(v->bounds, v->unit) + ": " + v->reason + "\n";
  return s;
}

void testcase(std::string& out, const Case& c) {
  out += "    <testcase";
  attr(out, "name", c.criterion + " [" + c.kind + "] " + words(c.outcome));
  attr(out, "classname", c.criterion);
  if (c.outcome == CaseOutcome::pass) {
    out += ">\n    <properties>\n";
    property(out, "places", std::to_string(c.places));
    if (c.worst) {
      property(out, "worst.place", c.worst->place);
      if (c.worst_margin) property(out, "worst.margin", base::format_number(*c.worst_margin));
      property(out, "worst.value", report_text::quantity(*c.worst));
    }
    out += "    </properties>\n    </testcase>\n";
    return;
  }
  out += ">\n";
  switch (c.outcome) {
    case CaseOutcome::tool_error:
      out += "      <error";
      attr(out, "message", "tool error (not the places' fault): " + places_line(c));
      attr(out, "type", "tool_error");
      out += ">";
      append_escaped(out, detail(c));
      out += "</error>\n";
      break;
    case CaseOutcome::inconclusive:
      out += "      <failure";
      attr(out, "message", "inconclusive (re-test): " + places_line(c));
      attr(out, "type", "inconclusive");
      out += ">";
      append_escaped(out, "inconclusive: neither confirmed nor cleared; re-test them (gpuaccept rerun-plan), drain nothing\n" +
                              detail(c));
      out += "</failure>\n";
      break;
    case CaseOutcome::node_fault:
      out += "      <failure";
      attr(out, "message", places_line(c));
      attr(out, "type", "node_fault");
      out += ">";
      append_escaped(out, detail(c));
      out += "</failure>\n";
      break;
    case CaseOutcome::skipped:
      out += "      <skipped";
      attr(out, "message", places_line(c) + (c.verdicts.empty() ? "" : " (" + c.verdicts.front()->reason + ")"));
      out += "/>\n";
      break;
    case CaseOutcome::warning:
      // A warning does not fail the run, so it does not fail the test; a dashboard still shows it.
      out += "    <properties>\n";
      property(out, "severity", "warning");
      property(out, "places", std::to_string(c.places));
      out += "    </properties>\n      <system-out>";
      append_escaped(out, "WARNING " + places_line(c) + "\n" + detail(c));
      out += "</system-out>\n";
      break;
    case CaseOutcome::pass: break;
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
  // Verdicts whose metric names no probe of the run (a criterion on a probe not in the suite,
  // the cluster-level skips) gather in one suite of their own.
  auto suite_of = [&](const Verdict& v) -> Suite& {
    const std::string name = probe_of(v);
    return suite(at.count(name) ? name : "gpuaccept");
  };
  auto worse = [](const std::optional<double>& m, const std::optional<double>& worst) {
    return m && (!worst || *m < *worst);
  };
  for (const auto& v : g.verdicts) {
    const std::string kind = place::to_string(place::kind(v.place));
    Case& c = suite_of(v).of(v.criterion, kind, outcome_of(v), v.metric);
    ++c.places;
    if (c.outcome != CaseOutcome::pass) {
      c.verdicts.push_back(&v);
      continue;
    }
    const auto m = margin(v);
    if (!c.worst || worse(m, c.worst_margin)) c.worst = &v, c.worst_margin = m;
  }
  for (const auto& f : g.passing) {
    Case& c = suite_of(f.worst).of(f.criterion, f.kind, CaseOutcome::pass, f.worst.metric);
    c.places += f.places;
    if (!c.worst || worse(f.worst_margin, c.worst_margin)) c.worst = &f.worst, c.worst_margin = f.worst_margin;
  }
  // In a fixed order, not in the order met: a folded judgement lists its passes after the rest,
  // and the file is the same whether it folded or not.
  for (auto& s : suites) {
    std::sort(s.cases.begin(), s.cases.end(), [](const Case& a, const Case& b) {
      return std::tie(a.criterion, a.kind, a.outcome) < std::tie(b.criterion, b.kind, b.outcome);
    });
    for (const auto& c : s.cases) {
      if (c.outcome == CaseOutcome::node_fault || c.outcome == CaseOutcome::inconclusive) ++s.failures;
      if (c.outcome == CaseOutcome::tool_error) ++s.errors;
      if (c.outcome == CaseOutcome::skipped) ++s.skipped;
    }
  }

  const int run_errors = g.incomplete ? 1 : 0;
  int tests = 0, failures = 0, skipped = 0, errors = run_errors;
  for (const auto& s : suites) {
    tests += static_cast<int>(s.cases.size());
    failures += s.failures;
    errors += s.errors;
    skipped += s.skipped;
  }
  tests += 1;  // the run's own testcase

  // Built in a buffer that goes to the stream every so often: a run whose every place fails
  // lists them all.
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
    attr(out, "tests", std::to_string(s.cases.size()));
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
    for (const Case& c : s.cases) {
      testcase(out, c);
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
