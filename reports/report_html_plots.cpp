// Plots of report.html (issue 14 item 3), inline SVG, nothing fetched: each an
// <svg data-plot="NAME"> drawn whenever its data exist, its marks carrying data-place and
// data-value (the metric's value as report.json has it), so a test can hold them to it.
// Today: clock-offset (each host's offset from the cluster median with its uncertainty, and
// the criterion's bound).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "base/quantity.hpp"
#include "reports/html_internal.hpp"
#include "topology/place.hpp"

namespace ga::html {

namespace {

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// value in JSON's form: what report.json's metric says, digit for digit.
std::string json_num(double v) { return nlohmann::json(v).dump(); }

void clock_offset(std::string& out, const Report& r, const VerdictIndex& index) {
  struct Row {
    std::string host;
    double offset = 0, uncertainty = 0;
  };
  std::map<std::string, Row> rows;
  for (const auto& m : r.judgement->metrics) {
    if (!m.value || place::kind(m.place) != place::Kind::host) continue;
    if (m.metric == "clock.offset") rows[m.place].host = m.place, rows[m.place].offset = *m.value;
    else if (m.metric == "clock.offset_uncertainty") rows[m.place].uncertainty = *m.value;
  }
  for (auto it = rows.begin(); it != rows.end();) it = it->second.host.empty() ? rows.erase(it) : std::next(it);
  if (rows.empty()) return;
  std::optional<double> bound;
  for (const auto& v : r.judgement->verdicts)
    if (v.metric == "clock.offset_abs" && v.bounds.contains("value") && v.bounds["value"].is_number())
      bound = bound ? std::min(*bound, v.bounds["value"].get<double>()) : v.bounds["value"].get<double>();
  double span = bound.value_or(0);
  for (const auto& [h, row] : rows) span = std::max(span, std::abs(row.offset) + row.uncertainty);
  if (!(span > 0)) span = 1e-6;
  span *= 1.1;
  const int left = 160, width = 520, row_h = 22, top = 28;
  const int height = top + row_h * static_cast<int>(rows.size()) + 24;
  auto x = [&](double v) { return left + width / 2.0 + v / span * (width / 2.0); };
  out += "<section id=\"plots\"><h2>Plots</h2><h3>Clock offset from the cluster median</h3>";
  out += "<svg data-plot=\"clock-offset\" class=\"plot\" viewBox=\"0 0 " + std::to_string(left + width + 20) + " " +
         std::to_string(height) + "\" width=\"" + std::to_string(left + width + 20) + "\" height=\"" +
         std::to_string(height) + "\" role=\"img\" aria-label=\"clock offset per host\">";
  out += "<line x1=\"" + num(x(0)) + "\" y1=\"" + std::to_string(top - 8) + "\" x2=\"" + num(x(0)) + "\" y2=\"" +
         std::to_string(height - 20) + "\" stroke=\"#8c959f\"/>";
  if (bound)
    for (double b : {-*bound, *bound})
      out += "<line class=\"dash\" data-bound=\"" + json_num(*bound) + "\" x1=\"" + num(x(b)) + "\" y1=\"" +
             std::to_string(top - 8) + "\" x2=\"" + num(x(b)) + "\" y2=\"" + std::to_string(height - 20) +
             "\" stroke=\"#cf222e\"/>";
  int i = 0;
  for (const auto& [h, row] : rows) {
    const double y = top + row_h * i++ + row_h / 2.0;
    const Marks* mk = index.host(h);
    out += "<g class=\"mark " + std::string(tone_class(tone(mk))) + "\" data-place=\"";
    esc(out, h);
    out += "\" data-value=\"" + json_num(row.offset) + "\" data-uncertainty=\"" + json_num(row.uncertainty) + "\"><title>";
    esc(out, h + ": " + base::format_quantity(row.offset, "s") + " +/- " + base::format_quantity(row.uncertainty, "s"));
    out += "</title><text x=\"" + std::to_string(left - 8) + "\" y=\"" + num(y + 4) + "\" text-anchor=\"end\">";
    esc(out, h);
    out += "</text><line x1=\"" + num(x(row.offset - row.uncertainty)) + "\" y1=\"" + num(y) + "\" x2=\"" +
           num(x(row.offset + row.uncertainty)) + "\" y2=\"" + num(y) + "\" stroke=\"#57606a\" stroke-width=\"2\"/>";
    out += "<circle cx=\"" + num(x(row.offset)) + "\" cy=\"" + num(y) + "\" r=\"4\"/></g>";
  }
  out += "<text x=\"" + num(x(0)) + "\" y=\"" + std::to_string(height - 6) + "\" text-anchor=\"middle\">0</text>";
  out += "<text x=\"" + num(x(span / 1.1)) + "\" y=\"" + std::to_string(height - 6) + "\" text-anchor=\"end\">";
  esc(out, base::format_quantity(span / 1.1, "s"));
  out += "</text></svg>";
  if (bound) {
    out += "<p>Dashed: the criterion's bound, ";
    esc(out, base::format_quantity(*bound, "s"));
    out += ". Bars: the measured interval of each offset.</p>";
  }
  out += "</section>\n";
}

}  // namespace

void append_plots(std::string& out, const Report& r, const VerdictIndex& index) { clock_offset(out, r, index); }

}  // namespace ga::html
