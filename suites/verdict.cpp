#include "suites/verdict.hpp"

#include <algorithm>
#include <cmath>

namespace ga {

namespace {

// (x - bound) as a fraction of the bound, the sign saying which side is inside.
double inside(double x, double bound, bool above_is_inside) {
  const double d = above_is_inside ? x - bound : bound - x;
  return bound == 0 ? d : d / std::fabs(bound);
}

std::optional<double> number_at(const Params& b, const char* key) {
  auto it = b.find(key);
  if (it == b.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

std::optional<double> margin(const Verdict& v) {
  if (!v.value || !std::isfinite(*v.value) || v.bounds.empty()) return std::nullopt;
  const double x = *v.value;
  auto op = v.bounds.find("op");
  if (op == v.bounds.end() || !op->is_string()) return std::nullopt;
  const std::string& o = op->get_ref<const std::string&>();
  if (auto b = number_at(v.bounds, "value")) {
    if (o == ">=") return inside(x, *b, true);
    if (o == "<=") return inside(x, *b, false);
    if (o == "equals") return x == *b ? 0.0 : -std::fabs(inside(x, *b, true));  // 0, never -0
    return std::nullopt;
  }
  const auto low = number_at(v.bounds, "low"), high = number_at(v.bounds, "high");
  if (!low && !high) return std::nullopt;
  double m = INFINITY;
  if (low) m = std::min(m, inside(x, *low, true));
  if (high) m = std::min(m, inside(x, *high, false));
  return m;
}

const char* to_string(VerdictStatus s) {
  switch (s) {
    case VerdictStatus::pass: return "pass";
    case VerdictStatus::fail: return "fail";
    case VerdictStatus::missing: return "missing";
    case VerdictStatus::skipped: return "skipped";
    case VerdictStatus::tool_error: return "tool_error";
    case VerdictStatus::inconclusive: return "inconclusive";
  }
  return "tool_error";
}

const char* to_string(OutcomeClass c) {
  switch (c) {
    case OutcomeClass::none: return "none";
    case OutcomeClass::node_fault: return "node_fault";
    case OutcomeClass::tool_error: return "tool_error";
    case OutcomeClass::inconclusive: return "inconclusive";
  }
  return "none";
}

}  // namespace ga
