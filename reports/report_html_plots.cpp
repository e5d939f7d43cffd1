// Plots of report.html (issue 14 item 3), inline SVG, nothing fetched: each an
// <svg data-plot="NAME"> drawn whenever its data exist, its marks carrying data-place and
// data-value (the metric's value as report.json has it), so a test can hold them to it.
// Today: clock-offset (each host's offset from the cluster median with its uncertainty, and
// the criterion's bound) and collective-bandwidth (busbw against size per collective, mpi-coll
// and nccl, with the theoretical busbw).
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

// busbw against message size, one line per collective (and scope, rail and place), out of
// place, for mpi-coll and nccl; the theoretical busbw dashed where the probe states one.
void collective_bandwidth(std::string& out, const Report& r) {
  static const char* kColours[] = {"#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#57606a", "#e16f24", "#116329"};
  constexpr std::size_t kMostSeries = 16;
  bool section_open = false;
  for (const std::string probe : {"mpi-coll", "nccl"}) {
    struct Point {
      double size, busbw;
      std::string place, collective;
    };
    std::map<std::string, std::vector<Point>> series;
    double theory = 0;
    for (const auto& m : r.judgement->metrics) {
      if (!m.value || m.metric.rfind(probe + ".", 0) != 0) continue;
      if (m.metric == probe + ".busbw_theoretical") theory = std::max(theory, *m.value);
      if (m.metric != probe + ".busbw" || !m.params.contains("size") || !m.params["size"].is_number()) continue;
      if (m.params.contains("in_place") && m.params["in_place"].is_boolean() && m.params["in_place"].get<bool>()) continue;
      const std::string coll = m.params.contains("collective") && m.params["collective"].is_string()
                                   ? m.params["collective"].get<std::string>() : "?";
      std::string label = coll;
      if (m.params.contains("scope") && m.params["scope"].is_string()) label += " " + m.params["scope"].get<std::string>();
      if (m.params.contains("rail") && m.params["rail"].is_number_integer())
        label += " rail " + std::to_string(m.params["rail"].get<int>());
      if (m.place != place::cluster()) label += " @" + m.place;
      auto it = series.find(label);
      if (it == series.end()) {
        if (series.size() >= kMostSeries) continue;
        it = series.emplace(label, std::vector<Point>{}).first;
      }
      it->second.push_back({m.params["size"].get<double>(), *m.value, m.place, coll});
    }
    if (series.empty()) continue;
    double lo = INFINITY, hi = 0, top_bw = theory;
    for (auto& [label, pts] : series) {
      std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.size < b.size; });
      for (const auto& p : pts) lo = std::min(lo, p.size), hi = std::max(hi, p.size), top_bw = std::max(top_bw, p.busbw);
    }
    if (!(hi > lo)) hi = lo * 2;
    if (!(top_bw > 0)) top_bw = 1;
    top_bw *= 1.1;
    const int left = 70, width = 560, plot_h = 220, top = 12, legend_h = 16 * static_cast<int>(series.size());
    const int height = top + plot_h + 30 + legend_h;
    auto x = [&](double size) { return left + (std::log2(size) - std::log2(lo)) / (std::log2(hi) - std::log2(lo)) * width; };
    auto y = [&](double bw) { return top + plot_h - bw / top_bw * plot_h; };
    if (!section_open) out += "<section id=\"collective-plots\"><h2>Collective bandwidth</h2>", section_open = true;
    out += "<h3>";
    esc(out, probe);
    out += ": bus bandwidth against message size (out of place)</h3>";
    out += "<svg data-plot=\"collective-bandwidth\" data-probe=\"";
    esc(out, probe);
    out += "\" class=\"plot\" viewBox=\"0 0 " + std::to_string(left + width + 20) + " " + std::to_string(height) +
           "\" width=\"" + std::to_string(left + width + 20) + "\" height=\"" + std::to_string(height) + "\" role=\"img\">";
    out += "<line x1=\"" + std::to_string(left) + "\" y1=\"" + num(y(0)) + "\" x2=\"" + std::to_string(left + width) + "\" y2=\"" +
           num(y(0)) + "\" stroke=\"#8c959f\"/>";
    if (theory > 0) {
      out += "<line class=\"dash\" data-theory=\"" + json_num(theory) + "\" x1=\"" + std::to_string(left) + "\" y1=\"" +
             num(y(theory)) + "\" x2=\"" + std::to_string(left + width) + "\" y2=\"" + num(y(theory)) + "\" stroke=\"#cf222e\"/>";
      out += "<text x=\"" + std::to_string(left + width) + "\" y=\"" + num(y(theory) - 4) + "\" text-anchor=\"end\">theory ";
      esc(out, base::format_quantity(theory, "B/s"));
      out += "</text>";
    }
    out += "<text x=\"" + std::to_string(left - 6) + "\" y=\"" + num(y(top_bw / 1.1) + 4) + "\" text-anchor=\"end\">";
    esc(out, base::format_quantity(top_bw / 1.1, "B/s"));
    out += "</text><text x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(top + plot_h + 16) + "\">";
    esc(out, base::format_quantity(lo, "B"));
    out += "</text><text x=\"" + std::to_string(left + width) + "\" y=\"" + std::to_string(top + plot_h + 16) + "\" text-anchor=\"end\">";
    esc(out, base::format_quantity(hi, "B"));
    out += "</text>";
    std::size_t k = 0;
    for (const auto& [label, pts] : series) {
      const std::string colour = kColours[k % (sizeof kColours / sizeof *kColours)];
      std::string path;
      for (const auto& p : pts) path += (path.empty() ? "" : " ") + num(x(p.size)) + "," + num(y(p.busbw));
      out += "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"1.5\" points=\"" + path + "\"/>";
      for (const auto& p : pts) {
        out += "<circle class=\"mark\" r=\"2.5\" fill=\"" + colour + "\" cx=\"" + num(x(p.size)) + "\" cy=\"" +
               num(y(p.busbw)) + "\" data-place=\"";
        esc(out, p.place);
        out += "\" data-collective=\"";
        esc(out, p.collective);
        out += "\" data-size=\"" + json_num(p.size) + "\" data-value=\"" + json_num(p.busbw) + "\"><title>";
        esc(out, label + ", " + base::format_quantity(p.size, "B") + ": " + base::format_quantity(p.busbw, "B/s"));
        out += "</title></circle>";
      }
      const double ly = top + plot_h + 30 + 16.0 * static_cast<double>(k);
      out += "<rect x=\"" + std::to_string(left) + "\" y=\"" + num(ly - 9) + "\" width=\"10\" height=\"10\" fill=\"" + colour +
             "\"/><text x=\"" + std::to_string(left + 16) + "\" y=\"" + num(ly) + "\">";
      esc(out, label);
      out += "</text>";
      ++k;
    }
    out += "</svg>";
  }
  if (section_open) out += "</section>\n";
}

}  // namespace

void append_plots(std::string& out, const Report& r, const VerdictIndex& index) {
  clock_offset(out, r, index);
  collective_bandwidth(out, r);
}

}  // namespace ga::html
