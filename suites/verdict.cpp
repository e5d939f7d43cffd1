#include "suites/verdict.hpp"

namespace ga {

const char* to_string(VerdictStatus s) {
  switch (s) {
    case VerdictStatus::pass: return "pass";
    case VerdictStatus::fail: return "fail";
    case VerdictStatus::missing: return "missing";
    case VerdictStatus::skipped: return "skipped";
    case VerdictStatus::error: return "error";
  }
  return "error";
}

}  // namespace ga
