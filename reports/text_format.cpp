// The shared words of the writers (text_format.hpp), moved here from report_markdown.cpp so
// that report.html and report.junit.xml describe a verdict exactly as report.md does.
#include "reports/text_format.hpp"

#include <algorithm>
#include <string>

#include "base/quantity.hpp"
#include "reports/report.hpp"

namespace ga::report_text {
namespace {

using nlohmann::json;

std::string scalar(const json& v, const std::string& unit) {
  if (v.is_number()) return base::format_quantity(v.get<double>(), unit);
  if (v.is_string()) return "\"" + v.get<std::string>() + "\"";
  if (v.is_null()) return "—";
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

// The judge's resolved bounds: {op, value}, {op, text}, {op: between, low, high},
// {op: within_pct_of_median, pct, median, low, high}, {op: mad_outlier, k, floor_pct, median,
// mad, low and/or high: only the worse side}. Anything else prints as recorded.
std::string bound_text(const json& b, const std::string& unit) {
  if (!b.is_object() || b.empty()) return "—";
  std::string op = b.contains("op") && b["op"].is_string() ? b["op"].get<std::string>() : "";
  std::string s;
  const bool within = op == "within_pct_of_median" && b.contains("pct") && b.contains("median");
  const bool mad = op == "mad_outlier" && b.contains("median") && (b.contains("low") || b.contains("high"));
  if (mad) {
    s = b.contains("low") && b.contains("high")
            ? "between " + scalar(b["low"], unit) + " and " + scalar(b["high"], unit)
            : b.contains("low") ? ">= " + scalar(b["low"], unit) : "<= " + scalar(b["high"], unit);
    s += " (median " + scalar(b["median"], unit) + ", larger of " + scalar(b.value("k", json()), "") + " x 1.4826 MAD " +
         scalar(b.value("mad", json()), unit) + " and " + (b.contains("floor") ? scalar(b["floor"], unit) : scalar(b.value("floor_pct", json()), "%")) + ")";
    return s;
  }
  if (within) {
    s = "within " + scalar(b["pct"], "%") + " of median " + scalar(b["median"], unit);
    if (b.contains("low") && b.contains("high"))
      s += " (" + scalar(b["low"], unit) + " to " + scalar(b["high"], unit) + ")";
  } else if (b.contains("low") && b.contains("high")) {
    s = (op.empty() || op == "between" ? std::string("between") : op) + " " + scalar(b["low"], unit) + " and " +
        scalar(b["high"], unit);
  } else {
    s = op;
    if (b.contains("value")) s += (s.empty() ? "" : " ") + scalar(b["value"], unit);
    if (b.contains("text")) s += (s.empty() ? "" : " ") + scalar(b["text"], unit);
  }
  static constexpr const char* kShown[] = {"op", "value", "text", "low", "high"};
  for (auto it = b.begin(); it != b.end(); ++it) {
    if (std::find(std::begin(kShown), std::end(kShown), it.key()) != std::end(kShown)) continue;
    if (within && (it.key() == "pct" || it.key() == "median")) continue;
    s += (s.empty() ? "" : ", ") + it.key() + " " + scalar(it.value(), unit);
  }
  return s;
}

std::string quantity(const std::optional<double>& v, const base::OptionalText& text, const std::string& unit) {
  if (v) return base::format_quantity(*v, unit);
  if (text) return *text;
  return "—";
}

std::string quantity(const Metric& m) {
  return m.not_completed ? "did not complete" : quantity(m.value, m.text, m.unit);
}

std::string quantity(const Verdict& v) {
  return v.not_completed ? "did not complete" : quantity(v.value, v.text, v.unit);
}

std::string params_text(const json& p) {
  if (!p.is_object() || p.empty()) return "";
  std::string s;
  for (auto it = p.begin(); it != p.end(); ++it) {
    if (!s.empty()) s += ", ";
    s += it.key() + "=" +
         (it.value().is_string() ? it.value().get<std::string>()
                                 : it.value().dump(-1, ' ', false, json::error_handler_t::replace));
  }
  return s;
}

std::string mark(const Verdict& v) {
  std::string warn = v.severity == Severity::warning ? ", warning" : "";
  switch (v.status) {
    case VerdictStatus::pass: return "✓ " + v.criterion;
    case VerdictStatus::fail: return "✗ " + v.criterion + (warn.empty() ? "" : " (warning)");
    case VerdictStatus::missing: return "✗ " + v.criterion + " (missing" + warn + ")";
    case VerdictStatus::tool_error: return "! " + v.criterion + " (tool error" + warn + ")";
    case VerdictStatus::inconclusive: return "? " + v.criterion + " (inconclusive" + warn + ")";
    case VerdictStatus::skipped: return "– " + v.criterion + " (skipped)";
  }
  return v.criterion;
}

// "0-7, 9": a host's ranks are usually one run.
std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!s.empty()) s += ", ";
    s += std::to_string(ranks[i]);
    if (j > i) s += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return s.empty() ? "none" : s;
}

std::string string_or(const json& obj, const char* key, const char* fallback) {
  if (obj.is_object() && obj.contains(key) && obj[key].is_string()) return obj[key].get<std::string>();
  return fallback;
}

}  // namespace ga::report_text
