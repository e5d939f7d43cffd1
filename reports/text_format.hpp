// The words every writer shares: bounds as sentences, values in human units, params, rank
// lists, verdict marks. Kept in one place so report.md, report.html and report.junit.xml say
// the same thing about the same verdict. Plain text: each writer escapes for its own markup.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suites/judge.hpp"
#include "suites/verdict.hpp"

namespace ga::report_text {

// The judge's resolved bounds as a phrase: ">= 4 TB/s", "between 1 us and 2.5 ms",
// "within 10% of median 100 GB/s (90 GB/s to 110 GB/s)". "—" when there are none.
std::string bound_text(const nlohmann::json& bounds, const std::string& unit);
// A value, or the observed text of a text metric, or "—".
std::string quantity(const std::optional<double>& v, const base::OptionalText& text, const std::string& unit);
// A metric's or verdict's value cell: "did not complete" for a measurement that never
// completed (its value is absent, never a stand-in number), else quantity().
std::string quantity(const Metric& m);
std::string quantity(const Verdict& v);
// "size=4194304, dir=h2d"; empty for no params.
std::string params_text(const nlohmann::json& params);
// "0-7, 9"; "none" for no ranks.
std::string rank_list(const std::vector<int>& ranks);
// obj[key] when it is a string, else fallback.
std::string string_or(const nlohmann::json& obj, const char* key, const char* fallback);
// "✓ name", "✗ name (warning)", "✗ name (missing)", "– name (skipped)" ...
std::string mark(const Verdict& v);

}  // namespace ga::report_text
