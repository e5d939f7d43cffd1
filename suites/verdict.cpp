#include "suites/verdict.hpp"

namespace ga {

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
