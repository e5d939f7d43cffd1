#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "suites/criteria.hpp"

namespace ga {

enum class VerdictStatus { pass, fail, missing, skipped, error };
const char* to_string(VerdictStatus);

struct Verdict {
  std::string criterion;
  std::string metric;
  std::string place;
  nlohmann::json params = nlohmann::json::object();  // the metric's sample params (size, direction ...)
  VerdictStatus status = VerdictStatus::pass;
  std::optional<double> value;
  std::optional<std::string> text;      // for text metrics
  std::optional<std::string> not_completed;  // the metric's measurement did not complete: why (value absent)
  std::string unit;
  nlohmann::json bounds = nlohmann::json::object();  // {"op": ">=", "value": x} etc, resolved numbers
  std::optional<double> reference;      // the reference the bound was derived from (median, theory)
  std::optional<std::string> reference_text;
  std::string reason;                   // one line that explains the verdict
  Severity severity = Severity::error;
  // fails the run: an error-severity verdict that is fail, missing or error
  bool fails_run() const {
    return severity == Severity::error &&
           (status == VerdictStatus::fail || status == VerdictStatus::missing || status == VerdictStatus::error);
  }
};

}  // namespace ga
