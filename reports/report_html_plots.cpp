// Plots of report.html (issue 14 item 3), inline SVG, nothing fetched: each an
// <svg data-plot="NAME"> drawn whenever its data exist, its marks carrying data-place and
// data-value (the metric's value as report.json has it), so a test can hold them to it.
// Today: clock-offset (each host's offset from the cluster median with its uncertainty, and
// the criterion's bound) and collective-bandwidth (busbw against size per collective, mpi-coll
// and nccl, with the theoretical busbw), pair-latency and pair-bandwidth (the p2p matrices as
// heatmaps, places that did not pass outlined), gpu (HBM, host-to-device and GEMM of each GPU
// in percent of its paper figure) and storage (write and read throughput per host).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>

#include "base/group_by_name.hpp"
#include "base/natural_order.hpp"
#include "base/quantity.hpp"
#include "reports/html_internal.hpp"
#include "topology/place.hpp"

namespace ga::html {

namespace {

// The metrics and verdicts the plots draw, by metric name, found in one pass for all the plots:
// a scan of all of them per plot was most of report.html's time at 4096 hosts (4 M metrics,
// eight scans). Only the plots' names are kept, so the index holds thousands of pointers, not
// millions, beside report.json's writer.
class Named {
 public:
  explicit Named(const Judgement& g)
      : metrics_(base::group_by_name(g.metrics, [](const Metric& m) -> const std::string& { return m.metric; }, drawn)),
        verdicts_(base::group_by_name(g.verdicts, [](const Verdict& v) -> const std::string& { return v.metric; }, drawn)) {}

  // The metrics (verdicts on metrics) of these names, in the judgement's order. A name left out
  // of drawn() would make its plot silently empty: asking for one is a bug, and throws.
  std::vector<const Metric*> metrics(std::initializer_list<std::string_view> names) const {
    check(names);
    return base::items_named(metrics_, names);
  }
  std::vector<const Verdict*> verdicts(std::initializer_list<std::string_view> names) const {
    check(names);
    return base::items_named(verdicts_, names);
  }
  std::vector<const Metric*> metrics_with_prefix(std::string_view prefix) const {
    if (!drawn(prefix)) throw std::logic_error("report.html: plots do not index " + std::string(prefix));
    return base::items_with_prefix(metrics_, prefix);
  }

 private:
  // Returns nothing: an initializer_list returned would not keep its array alive (GCC warns).
  static void check(std::initializer_list<std::string_view> names) {
    for (std::string_view n : names)
      if (!drawn(n)) throw std::logic_error("report.html: plots do not index " + std::string(n));
  }

  base::ByName<Metric> metrics_;
  base::ByName<Verdict> verdicts_;

  // Every metric name a plot below reads (by name or, for inventory.version.*, by prefix).
  static bool drawn(std::string_view name) {
    static constexpr std::string_view kNames[] = {
        "clock.offset", "clock.offset_uncertainty", "clock.offset_abs", "mpi-coll.busbw", "mpi-coll.busbw_theoretical",
        "mpi-coll.busbw_of_theory", "nccl.busbw", "nccl.busbw_theoretical", "nccl.busbw_of_theory", "p2p.latency_p50",
        "p2p.bw", "storage.write_bw", "storage.read_bw", "gpu.hbm_theoretical_bw", "gpu.pcie_theoretical_bw",
        "gpu.gemm_theoretical_flops", "gpu.hbm_bw_of_theory", "gpu.h2d_bw_of_theory", "gpu.gemm_of_theory",
        "inventory.kernel", "nccl.version", "gpu.nvidia_driver", "gpu.cuda_driver", "rdma.fw"};
    return name.starts_with("inventory.version.") || std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
  }
};

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// value in JSON's form: what report.json's metric says, digit for digit.
std::string json_num(double v) { return nlohmann::json(v).dump(); }

void clock_offset(std::string& out, const Named& named, const VerdictIndex& index) {
  struct Row {
    std::string host;
    double offset = 0, uncertainty = 0;
  };
  std::map<std::string, Row> rows;
  for (const Metric* mp : named.metrics({"clock.offset", "clock.offset_uncertainty"})) {
    const Metric& m = *mp;
    if (!m.value || place::kind(m.place) != place::Kind::host) continue;
    if (m.metric == "clock.offset") rows[m.place].host = m.place, rows[m.place].offset = *m.value;
    else if (m.metric == "clock.offset_uncertainty") rows[m.place].uncertainty = *m.value;
  }
  for (auto it = rows.begin(); it != rows.end();) it = it->second.host.empty() ? rows.erase(it) : std::next(it);
  if (rows.empty()) return;
  std::optional<double> bound;
  for (const Verdict* vp : named.verdicts({"clock.offset_abs"}))
    if (const Verdict& v = *vp; v.bounds.contains("value") && v.bounds["value"].is_number())
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
// place, for mpi-coll and nccl; the theoretical busbw dashed where the probe states one, and
// the criteria's bound dotted on each series that has one.
void collective_bandwidth(std::string& out, const Named& named) {
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
    auto label_of = [](const nlohmann::json& params, const std::string& where) {
      std::string label = params.contains("collective") && params["collective"].is_string()
                              ? params["collective"].get<std::string>() : "?";
      if (params.contains("scope") && params["scope"].is_string()) label += " " + params["scope"].get<std::string>();
      if (params.contains("rail") && params["rail"].is_number_integer())
        label += " rail " + std::to_string(params["rail"].get<int>());
      if (where != place::cluster()) label += " @" + where;
      return label;
    };
    std::map<std::string, double> theory_of;  // place + params -> the theoretical busbw
    for (const Metric* mp : named.metrics({probe + ".busbw", probe + ".busbw_theoretical"})) {
      const Metric& m = *mp;
      if (!m.value) continue;
      if (m.metric == probe + ".busbw_theoretical") {
        theory = std::max(theory, *m.value);
        theory_of[m.place + " " + m.params.dump()] = *m.value;
      }
      if (m.metric != probe + ".busbw" || !m.params.contains("size") || !m.params["size"].is_number()) continue;
      if (m.params.contains("in_place") && m.params["in_place"].is_boolean() && m.params["in_place"].get<bool>()) continue;
      const std::string coll = m.params.contains("collective") && m.params["collective"].is_string()
                                   ? m.params["collective"].get<std::string>() : "?";
      const std::string label = label_of(m.params, m.place);
      auto it = series.find(label);
      if (it == series.end()) {
        if (series.size() >= kMostSeries) continue;
        it = series.emplace(label, std::vector<Point>{}).first;
      }
      it->second.push_back({m.params["size"].get<double>(), *m.value, m.place, coll});
    }
    if (series.empty()) continue;
    // The criteria's bounds, each in its series' terms: a bound on busbw_of_theory (percent of
    // the theoretical busbw of the same place and line) drawn as busbw, the lowest per series.
    std::map<std::string, double> bound_of;
    for (const Verdict* vp : named.verdicts({probe + ".busbw_of_theory"})) {
      const Verdict& v = *vp;
      if (!v.bounds.contains("value") || !v.bounds["value"].is_number()) continue;
      auto t = theory_of.find(v.place + " " + v.params.dump());
      if (t == theory_of.end()) continue;
      const std::string label = label_of(v.params, v.place);
      if (!series.count(label)) continue;
      const double bw = v.bounds["value"].get<double>() / 100.0 * t->second;
      auto [b, fresh] = bound_of.try_emplace(label, bw);
      if (!fresh) b->second = std::min(b->second, bw);
    }
    double lo = INFINITY, hi = 0, top_bw = theory;
    for (const auto& [label, bw] : bound_of) top_bw = std::max(top_bw, bw);
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
      if (auto b = bound_of.find(label); b != bound_of.end()) {
        out += "<line class=\"dash\" data-bound=\"" + json_num(b->second) + "\" data-series=\"";
        esc(out, label);
        out += "\" x1=\"" + std::to_string(left) + "\" y1=\"" + num(y(b->second)) + "\" x2=\"" + std::to_string(left + width) +
               "\" y2=\"" + num(y(b->second)) + "\" stroke=\"" + colour + "\" stroke-dasharray=\"2 4\"><title>";
        esc(out, label + ": the criterion's bound, " + base::format_quantity(b->second, "B/s"));
        out += "</title></line>";
      }
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
    if (!bound_of.empty())
      out += "<p>Red dashed: the theoretical bus bandwidth. Dotted in a series' colour: the lowest bound its criteria accept.</p>";
  }
  if (section_open) out += "</section>\n";
}

// The p2p pair matrix as a heatmap: sending host down, receiving host across, each cell the
// pair's best measurement (latency p50 at the smallest size, bandwidth at the largest, over
// the first pass and the re-tests), shaded against the median cell; cells and host labels of a
// place whose verdict did not pass are outlined. Above kDrawAllHostsUpTo hosts only the hosts
// with a verdict that did not pass and their partners are drawn (the rows that matter).
void pair_heatmap(std::string& out, const Report& r, const Named& named, const VerdictIndex& index, const std::string& metric,
                  const std::string& name, bool lower_is_better) {
  struct Cell {
    double value;
    std::string place;
  };
  std::map<std::pair<std::string, std::string>, Cell> cells;
  std::optional<double> chosen_size;
  const std::vector<const Metric*> of_metric = named.metrics({metric});
  for (const Metric* mp : of_metric) {  // the size: smallest for latency, largest for bandwidth
    const Metric& m = *mp;
    if (!m.value || !m.params.contains("size") || !m.params["size"].is_number()) continue;
    if (m.params.contains("path") && m.params["path"].is_string() && m.params["path"].get<std::string>() == "intra") continue;
    const double sz = m.params["size"].get<double>();
    if (!chosen_size || (lower_is_better ? sz < *chosen_size : sz > *chosen_size)) chosen_size = sz;
  }
  if (!chosen_size) return;
  for (const Metric* mp : of_metric) {
    const Metric& m = *mp;
    if (!m.value || !m.params.contains("size") || m.params["size"].get<double>() != *chosen_size) continue;
    if (!m.params.contains("direction") || !m.params["direction"].is_string()) continue;
    if (m.params.contains("path") && m.params["path"].is_string() && m.params["path"].get<std::string>() == "intra") continue;
    const std::string dir = m.params["direction"].get<std::string>();
    const auto arrow = dir.find("->");
    if (arrow == std::string::npos) continue;
    const auto key = std::pair{dir.substr(0, arrow), dir.substr(arrow + 2)};
    auto [it, fresh] = cells.try_emplace(key, Cell{*m.value, m.place});
    if (!fresh && (lower_is_better ? *m.value < it->second.value : *m.value > it->second.value)) it->second.value = *m.value;
  }
  if (cells.empty()) return;
  std::set<std::string> all, bad;
  for (const auto& [k, c] : cells) all.insert(k.first), all.insert(k.second);
  auto is_bad = [&](const std::string& place) { return tone(index.place(place)) == Tone::fail || tone(index.place(place)) == Tone::warn; };
  for (const auto& [k, c] : cells) {
    if (is_bad(c.place)) bad.insert(k.first), bad.insert(k.second);
    for (const auto& e : {k.first, k.second})
      if (is_bad(e)) bad.insert(e);
  }
  std::vector<std::string> hosts;
  const bool fold = all.size() > kDrawAllHostsUpTo;
  for (const auto& h : all)
    if (!fold || bad.count(h)) hosts.push_back(h);
  std::sort(hosts.begin(), hosts.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });
  if (hosts.empty()) return;
  std::vector<double> vals;
  for (const auto& [k, c] : cells) vals.push_back(c.value);
  std::nth_element(vals.begin(), vals.begin() + static_cast<long>(vals.size() / 2), vals.end());
  const double median = vals[vals.size() / 2];
  const int cell = hosts.size() > 32 ? 10 : 18, left = 120, top = 110;
  const int size = cell * static_cast<int>(hosts.size());
  out += "<h3>";
  esc(out, name == "pair-latency" ? "Pair latency (p50), sender down, receiver across"
                                  : "Pair bandwidth, sender down, receiver across");
  out += "</h3>";
  if (fold) out += "<p>" + std::to_string(all.size()) + " hosts: only those with a verdict that did not pass are drawn.</p>";
  out += "<svg data-plot=\"" + name + "\" class=\"plot\" viewBox=\"0 0 " + std::to_string(left + size + 20) + " " +
         std::to_string(top + size + 20) + "\" width=\"" + std::to_string(left + size + 20) + "\" height=\"" +
         std::to_string(top + size + 20) + "\" role=\"img\">";
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const std::string cls = bad.count(hosts[i]) && is_bad(hosts[i]) ? " class=\"miss\"" : "";
    out += "<text" + cls + " x=\"" + std::to_string(left - 4) + "\" y=\"" + std::to_string(top + cell * static_cast<int>(i) + cell - 4) +
           "\" text-anchor=\"end\" font-size=\"11\">";
    esc(out, hosts[i]);
    out += "</text><text" + cls + " font-size=\"11\" transform=\"translate(" + std::to_string(left + cell * static_cast<int>(i) + cell - 4) +
           "," + std::to_string(top - 4) + ") rotate(-60)\">";
    esc(out, hosts[i]);
    out += "</text>";
  }
  for (std::size_t i = 0; i < hosts.size(); ++i)
    for (std::size_t j = 0; j < hosts.size(); ++j) {
      auto it = cells.find({hosts[i], hosts[j]});
      if (it == cells.end()) continue;
      // 1 = as good as the median, 0 = 4x worse or more: white to red.
      const double worse = lower_is_better ? it->second.value / median : median / it->second.value;
      const double t = std::clamp((worse - 1) / 3, 0.0, 1.0);
      char fill[16];
      std::snprintf(fill, sizeof fill, "#%02x%02x%02x", 255, static_cast<int>(255 - 200 * t), static_cast<int>(255 - 200 * t));
      out += "<rect class=\"mark\" x=\"" + std::to_string(left + cell * static_cast<int>(j)) + "\" y=\"" +
             std::to_string(top + cell * static_cast<int>(i)) + "\" width=\"" + std::to_string(cell - 1) + "\" height=\"" +
             std::to_string(cell - 1) + "\" fill=\"" + fill + "\"" +
             (is_bad(it->second.place) ? " stroke=\"#cf222e\" stroke-width=\"2\"" : " stroke=\"#d0d7de\"") + " data-place=\"";
      esc(out, it->second.place);
      out += "\" data-direction=\"";
      esc(out, hosts[i] + "->" + hosts[j]);
      out += "\" data-value=\"" + json_num(it->second.value) + "\"><title>";
      esc(out, hosts[i] + " -> " + hosts[j] + ": " + base::format_quantity(it->second.value, lower_is_better ? "s" : "B/s"));
      out += "</title></rect>";
    }
  out += "</svg>";
}

// Horizontal bars, grouped by place: one group per host or GPU, one bar per series (write
// and read; HBM, host-to-device, GEMM per dtype). Each bar is a mark with data-place,
// data-series and data-value (the metric's value as report.json has it). Above
// kDrawAllHostsUpTo places only those whose verdicts did not pass are drawn (with a line
// saying how many were left out), as the heatmaps do.
struct Bar {
  std::string place, series;
  double value = 0;
  std::string title;
};
struct BarPlot {
  std::string name, heading, unit;    // unit: of the values, for the axis ("B/s", "%")
  std::vector<std::string> series;    // in drawing order
  std::vector<Bar> bars;
  std::optional<double> bound;        // the criterion's bound in the values' unit, dashed
  std::string bound_label;
};

void bar_plot(std::string& out, const BarPlot& p, const VerdictIndex& index) {
  static const char* kColours[] = {"#0969da", "#1a7f37", "#8250df", "#bf8700", "#e16f24", "#57606a"};
  std::vector<std::string> places;
  for (const auto& b : p.bars) places.push_back(b.place);
  std::sort(places.begin(), places.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });
  places.erase(std::unique(places.begin(), places.end()), places.end());
  const std::size_t all = places.size();
  auto bad = [&](const std::string& pl) { const Tone t = tone(index.place(pl)); return t == Tone::fail || t == Tone::warn; };
  if (all > kDrawAllHostsUpTo) places.erase(std::remove_if(places.begin(), places.end(), [&](const auto& pl) { return !bad(pl); }), places.end());
  out += "<h3>";
  esc(out, p.heading);
  out += "</h3>";
  if (all > kDrawAllHostsUpTo)
    out += "<p>" + std::to_string(all) + " places: only the " + std::to_string(places.size()) +
           " with a verdict that did not pass are drawn.</p>";
  if (places.empty()) return;
  std::map<std::pair<std::string, std::string>, const Bar*> at;
  double top_value = p.bound.value_or(0);
  for (const auto& b : p.bars) {
    at[{b.place, b.series}] = &b;
    top_value = std::max(top_value, b.value);
  }
  if (!(top_value > 0)) top_value = 1;
  top_value *= 1.1;
  const int left = 170, width = 480, bar_h = 10, gap = 8, top = 8;
  const int group_h = bar_h * static_cast<int>(p.series.size()) + gap;
  const int legend_h = 16;
  const int height = top + group_h * static_cast<int>(places.size()) + 24 + legend_h;
  auto x = [&](double v) { return left + v / top_value * width; };
  out += "<svg data-plot=\"" + p.name + "\" class=\"plot\" viewBox=\"0 0 " + std::to_string(left + width + 20) + " " +
         std::to_string(height) + "\" width=\"" + std::to_string(left + width + 20) + "\" height=\"" + std::to_string(height) +
         "\" role=\"img\">";
  const int axis_y = top + group_h * static_cast<int>(places.size());
  out += "<line x1=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(top) + "\" x2=\"" + std::to_string(left) +
         "\" y2=\"" + std::to_string(axis_y) + "\" stroke=\"#8c959f\"/>";
  for (std::size_t i = 0; i < places.size(); ++i) {
    const int gy = top + group_h * static_cast<int>(i);
    out += "<text" + std::string(bad(places[i]) ? " class=\"miss\"" : "") + " x=\"" + std::to_string(left - 6) + "\" y=\"" +
           std::to_string(gy + group_h / 2 + 2) + "\" text-anchor=\"end\" font-size=\"11\">";
    esc(out, places[i]);
    out += "</text>";
    for (std::size_t k = 0; k < p.series.size(); ++k) {
      auto it = at.find({places[i], p.series[k]});
      if (it == at.end()) continue;
      const Bar& b = *it->second;
      out += "<rect class=\"mark\" x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(gy + bar_h * static_cast<int>(k)) +
             "\" width=\"" + num(std::max(0.5, x(b.value) - left)) + "\" height=\"" + std::to_string(bar_h - 1) + "\" fill=\"" +
             kColours[k % (sizeof kColours / sizeof *kColours)] + "\"" +
             (bad(b.place) ? " stroke=\"#cf222e\" stroke-width=\"1.5\"" : "") + " data-place=\"";
      esc(out, b.place);
      out += "\" data-series=\"";
      esc(out, b.series);
      out += "\" data-value=\"" + json_num(b.value) + "\"><title>";
      esc(out, b.title);
      out += "</title></rect>";
    }
  }
  if (p.bound) {
    out += "<line class=\"dash\" data-bound=\"" + json_num(*p.bound) + "\" x1=\"" + num(x(*p.bound)) + "\" y1=\"" +
           std::to_string(top) + "\" x2=\"" + num(x(*p.bound)) + "\" y2=\"" + std::to_string(axis_y) + "\" stroke=\"#cf222e\"/>";
  }
  out += "<text x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(axis_y + 14) + "\">0</text>";
  out += "<text x=\"" + std::to_string(left + width) + "\" y=\"" + std::to_string(axis_y + 14) + "\" text-anchor=\"end\">";
  esc(out, base::format_quantity(top_value / 1.1, p.unit));
  out += "</text>";
  int lx = left;
  for (std::size_t k = 0; k < p.series.size(); ++k) {
    out += "<rect x=\"" + std::to_string(lx) + "\" y=\"" + std::to_string(axis_y + 22) + "\" width=\"10\" height=\"10\" fill=\"" +
           kColours[k % (sizeof kColours / sizeof *kColours)] + "\"/><text x=\"" + std::to_string(lx + 14) + "\" y=\"" +
           std::to_string(axis_y + 31) + "\">";
    esc(out, p.series[k]);
    out += "</text>";
    lx += 24 + 7 * static_cast<int>(p.series[k].size());
  }
  out += "</svg>";
  if (p.bound) {
    out += "<p>Dashed: ";
    esc(out, p.bound_label);
    out += ".</p>";
  }
}

// The lowest numeric `value` bound among the verdicts of `metric` (criteria with a fraction
// of a reference write the resolved number there).
std::optional<double> lowest_bound(const Named& named, const std::string& metric) {
  std::optional<double> bound;
  for (const Verdict* vp : named.verdicts({metric}))
    if (const Verdict& v = *vp; v.bounds.contains("value") && v.bounds["value"].is_number())
      bound = bound ? std::min(*bound, v.bounds["value"].get<double>()) : v.bounds["value"].get<double>();
  return bound;
}

// storage: each host's write and read throughput (storage.write_bw, storage.read_bw), with the
// lowest write bound the criteria resolved (a quarter of the median by default).
void storage_plot(std::string& out, const Named& named, const VerdictIndex& index) {
  BarPlot p{"storage", "Shared storage: write and read throughput per host", "B/s", {"write", "read"}, {}, {}, {}};
  for (const Metric* mp : named.metrics({"storage.write_bw", "storage.read_bw"})) {
    const Metric& m = *mp;
    if (!m.value || place::kind(m.place) != place::Kind::host) continue;
    const char* series = m.metric == "storage.write_bw" ? "write" : m.metric == "storage.read_bw" ? "read" : nullptr;
    if (!series) continue;
    p.bars.push_back({m.place, series, *m.value, m.place + " " + series + ": " + base::format_quantity(*m.value, "B/s")});
  }
  if (p.bars.empty()) return;
  p.bound = lowest_bound(named, "storage.write_bw");
  if (p.bound) p.bound_label = "the lowest write throughput the criteria accept, " + base::format_quantity(*p.bound, "B/s");
  out += "<section id=\"storage-plot\"><h2>Storage</h2>";
  bar_plot(out, p, index);
  out += "</section>\n";
}

// gpu: each GPU's HBM, host-to-device and GEMM rates in percent of the model's paper figure
// (the *_of_theory metrics; GEMM once per dtype), with the lowest bound of the HBM criterion.
void gpu_plot(std::string& out, const Named& named, const VerdictIndex& index) {
  BarPlot p{"gpu", "GPUs against theory: HBM, host-to-device, GEMM (percent of the paper figure)", "%", {}, {}, {}, {}};
  std::map<std::pair<std::string, std::string>, double> theory;  // (place, metric[/dtype]) -> paper figure
  for (const Metric* mp :
       named.metrics({"gpu.hbm_theoretical_bw", "gpu.pcie_theoretical_bw", "gpu.gemm_theoretical_flops"})) {
    const Metric& m = *mp;
    if (!m.value || place::kind(m.place) != place::Kind::gpu) continue;
    std::string key = m.metric;
    if (m.params.contains("dtype") && m.params["dtype"].is_string()) key += "/" + m.params["dtype"].get<std::string>();
    if (m.metric == "gpu.hbm_theoretical_bw" || m.metric == "gpu.pcie_theoretical_bw" || m.metric == "gpu.gemm_theoretical_flops")
      theory[{m.place, key}] = *m.value;
  }
  std::set<std::string> seen;
  for (const Metric* mp : named.metrics({"gpu.hbm_bw_of_theory", "gpu.h2d_bw_of_theory", "gpu.gemm_of_theory"})) {
    const Metric& m = *mp;
    if (!m.value || place::kind(m.place) != place::Kind::gpu) continue;
    std::string series, theory_key, unit;
    if (m.metric == "gpu.hbm_bw_of_theory") series = "HBM", theory_key = "gpu.hbm_theoretical_bw", unit = "B/s";
    else if (m.metric == "gpu.h2d_bw_of_theory") series = "host-to-device", theory_key = "gpu.pcie_theoretical_bw", unit = "B/s";
    else if (m.metric == "gpu.gemm_of_theory" && m.params.contains("dtype") && m.params["dtype"].is_string()) {
      const std::string dt = m.params["dtype"].get<std::string>();
      series = "GEMM/" + dt, theory_key = "gpu.gemm_theoretical_flops/" + dt, unit = "FLOP/s";
    } else continue;
    if (seen.insert(series).second) p.series.push_back(series);
    std::string title = m.place + " " + series + ": " + base::format_quantity(*m.value, "%");
    if (auto t = theory.find({m.place, theory_key}); t != theory.end())
      title += " of " + base::format_quantity(t->second, unit);
    p.bars.push_back({m.place, series, *m.value, std::move(title)});
  }
  if (p.bars.empty()) return;
  std::sort(p.series.begin(), p.series.end(), [](const auto& a, const auto& b) {
    auto rank = [](const std::string& s) { return s == "HBM" ? 0 : s == "host-to-device" ? 1 : 2; };
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  });
  p.bound = lowest_bound(named, "gpu.hbm_bw_of_theory");
  if (p.bound) p.bound_label = "the lowest HBM share of theory the criteria accept, " + base::format_quantity(*p.bound, "%");
  out += "<section id=\"gpu-plot\"><h2>GPUs</h2>";
  bar_plot(out, p, index);
  out += "</section>\n";
}

// The environment fingerprint: per host the kernel, the stack versions, the GPU driver, CUDA,
// NCCL and the NIC firmware; a cell that differs from its column's majority is marked, and
// hosts whose rows are identical share one line (a cluster of 4096 like hosts is one row).
void environment_table(std::string& out, const Named& named) {
  std::map<std::string, std::map<std::string, std::set<std::string>>> cell;  // host -> column -> values
  std::set<std::string> columns;
  std::vector<const Metric*> of_columns = named.metrics_with_prefix("inventory.version.");
  for (const Metric* m : named.metrics(
           {"inventory.kernel", "nccl.version", "gpu.nvidia_driver", "gpu.cuda_driver", "rdma.fw"}))
    of_columns.push_back(m);
  std::sort(of_columns.begin(), of_columns.end(), std::less<const Metric*>());  // the metrics' order
  for (const Metric* mp : of_columns) {
    const Metric& m = *mp;
    if (!m.text) continue;
    std::string col;
    if (m.metric == "inventory.kernel" || m.metric.rfind("inventory.version.", 0) == 0 || m.metric == "nccl.version" ||
        m.metric == "gpu.nvidia_driver" || m.metric == "gpu.cuda_driver" || m.metric == "rdma.fw")
      col = m.metric;
    if (col.empty()) continue;
    const std::string host = place::host_of(m.place);
    if (host.empty()) continue;
    cell[host][col].insert(*m.text);
    columns.insert(col);
  }
  if (cell.empty()) return;
  auto text_of = [](const std::set<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  // The majority of each column over the hosts.
  std::map<std::string, std::string> majority;
  for (const auto& col : columns) {
    std::map<std::string, int> votes;
    for (const auto& [h, cols] : cell)
      if (auto it = cols.find(col); it != cols.end()) ++votes[text_of(it->second)];
    int best = 0;
    for (const auto& [v, n] : votes)
      if (n > best) best = n, majority[col] = v;
  }
  // Identical rows share a line.
  std::map<std::vector<std::string>, std::vector<std::string>> rows;
  for (const auto& [h, cols] : cell) {
    std::vector<std::string> row;
    for (const auto& col : columns) row.push_back(cols.count(col) ? text_of(cols.at(col)) : "");
    rows[row].push_back(h);
  }
  out += "<section id=\"environment\"><h2>Environment fingerprint</h2><p>Cells that differ from their column's "
         "majority are marked; hosts with identical rows share one line.</p><table class=\"env\"><thead><tr><th>hosts";
  for (const auto& col : columns) {
    out += "<th>";
    esc(out, col);
  }
  out += "</thead><tbody>\n";
  for (auto& [row, hosts] : rows) {
    std::sort(hosts.begin(), hosts.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });
    out += "<tr><td>";
    std::string names;
    for (std::size_t i = 0; i < hosts.size() && i < 6; ++i) names += (i ? ", " : "") + hosts[i];
    if (hosts.size() > 6) names += " and " + std::to_string(hosts.size() - 6) + " more";
    esc(out, std::to_string(hosts.size()) + " host(s): " + names);
    std::size_t c = 0;
    for (const auto& col : columns) {
      const bool differs = !row[c].empty() && row[c] != majority[col];
      out += differs ? "<td class=\"bad\" data-differs=\"1\">" : "<td>";
      esc(out, row[c].empty() ? "-" : row[c]);
      ++c;
    }
    out += "\n";
  }
  out += "</tbody></table></section>\n";
}

}  // namespace

void append_plots(std::string& out, const Report& r, const VerdictIndex& index) {
  const Named named(*r.judgement);
  environment_table(out, named);
  clock_offset(out, named, index);
  collective_bandwidth(out, named);
  gpu_plot(out, named, index);
  storage_plot(out, named, index);
  std::string pairs;
  pair_heatmap(pairs, r, named, index, "p2p.latency_p50", "pair-latency", true);
  pair_heatmap(pairs, r, named, index, "p2p.bw", "pair-bandwidth", false);
  if (!pairs.empty()) out += "<section id=\"pair-plots\"><h2>Pairs</h2>" + pairs + "</section>\n";
}

}  // namespace ga::html
