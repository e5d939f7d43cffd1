#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/optional_text.hpp"
#include "probes/params.hpp"
#include "suites/criteria.hpp"

namespace ga {

// What a verdict says, in the three outcomes an operator acts on differently:
//   node fault   fail (a criterion failed with evidence), missing (a required metric absent):
//                drain the place;
//   tool_error   gpuaccept, its configuration or a library it loads failed: fix the tool,
//                never a node's fault (Nebius soperator does not drain when its checker errors);
//   inconclusive evidence that is unconfirmed or contradictory (a suspect no re-test
//                confirmed): re-test, never drain.
enum class VerdictStatus { pass, fail, missing, skipped, tool_error, inconclusive };
const char* to_string(VerdictStatus);

enum class OutcomeClass { none, node_fault, tool_error, inconclusive };
const char* to_string(OutcomeClass);

struct Verdict {
  std::string criterion;
  std::string metric;
  std::string place;
  // The metric this verdict judged, as its index in Judgement::metrics; kNoMetric when none
  // (a metric absent, a probe's outcome). The report finds its row by it, not by searching.
  static constexpr std::size_t kNoMetric = static_cast<std::size_t>(-1);
  std::size_t metric_index = kNoMetric;
  Params params;                        // the metric's sample params (size, direction ...)
  VerdictStatus status = VerdictStatus::pass;
  Severity severity = Severity::error;  // (next to `status`: no padding after either)
  std::optional<double> value;
  base::OptionalText text;              // for text metrics (8 bytes: base/optional_text.hpp)
  base::OptionalText not_completed;     // the metric's measurement did not complete: why (value absent)
  std::string unit;
  // {"op": ">=", "value": x} etc, resolved numbers; shared, as params are (probes/params.hpp): the
  // verdicts of one criterion mostly have one bound (a median, a theory per GPU model).
  Params bounds;
  std::optional<double> reference;      // the reference the bound was derived from (median, theory)
  base::OptionalText reference_text;
  std::string reason;                   // one line that explains the verdict
  // Which of the three outcomes this verdict is, whatever its severity.
  OutcomeClass outcome() const {
    switch (status) {
      case VerdictStatus::fail:
      case VerdictStatus::missing: return OutcomeClass::node_fault;
      case VerdictStatus::tool_error: return OutcomeClass::tool_error;
      case VerdictStatus::inconclusive: return OutcomeClass::inconclusive;
      default: return OutcomeClass::none;
    }
  }
  // A node fault that fails the run (exit 1): an error-severity fail or missing.
  bool node_fault() const { return severity == Severity::error && outcome() == OutcomeClass::node_fault; }
  // Anything that keeps an error-severity verdict from passing: a node fault, a tool error or
  // inconclusive evidence. Each has its own exit code (suites/judge.hpp).
  bool fails_run() const { return severity == Severity::error && outcome() != OutcomeClass::none; }
};

// How far inside its bound a verdict's value is, as a fraction of the bound: 0 at the bound,
// 0.25 a quarter of the bound to spare, negative outside it. For a range (between, within a
// percentage of the median, a MAD outlier test) the nearer end. Absent without a numeric
// value and bound (text, a probe's outcome, a bound of 0 for a value of 0 being as close as
// it gets: 0). The report's "worst passing margin" per criterion and host.
std::optional<double> margin(const Verdict&);

}  // namespace ga
