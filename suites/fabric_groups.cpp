// The links between leaf groups; see fabric_groups.hpp for what is derived and why.
// Deterministic: ordered containers only, no clock, no environment.
#include "suites/fabric_groups.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "base/quantity.hpp"
#include "suites/judge_parts.hpp"
#include "topology/place.hpp"

namespace ga::judging {

namespace {

struct Set {
  std::string basis;
  long long size = 0;
  std::optional<long long> rail;
  std::map<std::pair<std::string, std::string>, std::vector<FabricObservation>> directed;  // {src, dst}
};

bool lat(const Set& s) { return s.basis == "latency"; }

// Not better_median: fabric_analysis.cpp has one that keeps what did not complete, and the fuzz
// tree's unity build (tests/fuzz/run-fuzz.sh) puts both files in one translation unit.
double better_median_completed(std::vector<double> v, bool lower_is_better) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x) || x <= 0; }), v.end());
  if (v.empty()) return NAN;
  if (lower_is_better) std::sort(v.begin(), v.end());
  else std::sort(v.begin(), v.end(), std::greater<>());
  return v[(v.size() - 1) / 2];
}

std::string str(const nlohmann::json& p, const char* k) {
  return p.contains(k) && p[k].is_string() ? p[k].get<std::string>() : "";
}

std::map<std::string, Set> collect(const base::ByName<Metric>& by_name, const std::map<std::string, std::string>& leaf_of) {
  std::map<std::string, Set> sets;
  for (const Metric* mp : base::items_named(by_name, {"p2p.latency_p50", "p2p.bw", "p2p.completed"})) {
    const Metric& m = *mp;
    std::string basis;
    if (m.metric == "p2p.latency_p50" && m.value) basis = "latency";
    else if (m.metric == "p2p.bw" && m.value) basis = "bw";
    else if (m.metric == "p2p.completed" && m.value && *m.value == 0) basis = str(m.params, "test");
    if (basis != "latency" && basis != "bw") continue;
    const auto& p = m.params;
    if (str(p, "path") == "intra" || !p.contains("size") || !p["size"].is_number_integer()) continue;
    const std::string dir = str(p, "direction");
    const auto arrow = dir.find("->");
    if (arrow == std::string::npos) continue;
    FabricObservation o;
    o.src = dir.substr(0, arrow), o.dst = dir.substr(arrow + 2);
    if (!leaf_of.count(o.src) || !leaf_of.count(o.dst)) continue;
    o.pass_label = p.contains("pass") ? p["pass"].dump() : "1";
    if (m.metric == "p2p.completed") {
      o.value = basis == "bw" ? 0 : INFINITY;
      o.why = str(p, "why").empty() ? "did not complete" : str(p, "why");
    } else {
      o.value = *m.value;
    }
    Set proto;
    proto.basis = basis;
    proto.size = p["size"].get<long long>();
    if (p.contains("rail") && p["rail"].is_number_integer()) proto.rail = p["rail"].get<long long>();
    const std::string k = basis + "|" + std::to_string(proto.size) + "|" + (proto.rail ? std::to_string(*proto.rail) : "-");
    sets.try_emplace(k, proto).first->second.directed[{o.src, o.dst}].push_back(std::move(o));
  }
  return sets;
}

// The switches above a leaf, nearest first, as p2p.leaf's `uplinks` param says.
std::vector<std::string> uplinks_of(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    const auto comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::string group_link_place(const std::string& a, const std::string& b) {
  return place::pair("leaf:" + a, "leaf:" + b);
}

GroupAnalysis analyze_groups(const std::vector<Metric>& metrics) { return analyze_groups(metrics_by_name(metrics)); }

GroupAnalysis analyze_groups(const base::ByName<Metric>& by_name) {
  GroupAnalysis a;
  std::map<std::string, std::vector<std::string>> uplinks;  // leaf -> switches above it
  for (const Metric* mp : base::items_named(by_name, {"p2p.leaf"}))
    if (const Metric& m = *mp; m.text && !m.text->empty()) {
      a.leaf_of[m.place] = *m.text;
      if (const auto u = str(m.params, "uplinks"); !u.empty()) uplinks[*m.text] = uplinks_of(u);
    }
  if (a.leaf_of.empty()) return a;
  for (const auto& [k, s] : collect(by_name, a.leaf_of)) {
    const bool lower = lat(s);
    auto better = [&](double x, double y) { return lower ? std::min(x, y) : std::max(x, y); };
    auto group = [&](const std::string& e) { return a.leaf_of.at(e); };
    // Each endpoint's best within its own group (any direction for latency; sending and
    // receiving apart for bandwidth), and its best over everything when it has none there.
    std::map<std::string, double> any_w, out_w, in_w, any_all, out_all, in_all;
    auto upd = [&](std::map<std::string, double>& m, const std::string& e, double v) {
      auto [it, fresh] = m.try_emplace(e, v);
      if (!fresh) it->second = better(it->second, v);
    };
    std::vector<double> cross_values;
    for (const auto& [sd, obs] : s.directed) {
      double b = lower ? INFINITY : 0;
      for (const auto& o : obs) b = better(b, o.value);
      const bool same = group(sd.first) == group(sd.second);
      for (auto* m : {&any_all, same ? &any_w : nullptr})
        if (m) upd(*m, sd.first, b), upd(*m, sd.second, b);
      upd(out_all, sd.first, b), upd(in_all, sd.second, b);
      if (same) upd(out_w, sd.first, b), upd(in_w, sd.second, b);
      else cross_values.push_back(b);
    }
    std::vector<double> bests;
    for (const auto& [e, v] : lower ? any_w : out_w) bests.push_back(v);
    if (!lower)
      for (const auto& [e, v] : in_w) bests.push_back(v);
    const double ref_w = better_median_completed(bests, lower), ref_x = better_median_completed(cross_values, lower);
    if (!(ref_x > 0) || !std::isfinite(ref_x)) continue;
    auto at = [](const std::map<std::string, double>& w, const std::map<std::string, double>& all, const std::string& e) {
      auto it = w.find(e);
      if (it != w.end()) return it->second;
      auto jt = all.find(e);
      return jt == all.end() ? NAN : jt->second;
    };
    // One measurement against what its ends explain; none when it did not complete.
    auto residual = [&](const FabricObservation& o) -> std::optional<double> {
      double expected;
      if (lower) {
        auto excess = [&](const std::string& e) {
          const double b = at(any_w, any_all, e);
          return std::isfinite(ref_w) && std::isfinite(b) ? std::max(0.0, b - ref_w) : 0.0;
        };
        expected = ref_x + excess(o.src) + excess(o.dst);
        if (!std::isfinite(o.value)) return std::nullopt;
        return o.value / expected;
      }
      expected = ref_x;
      for (double b : {at(out_w, out_all, o.src), at(in_w, in_all, o.dst)})
        if (std::isfinite(b) && b > 0) expected = std::min(expected, b);
      if (!(o.value > 0)) return std::nullopt;
      return expected / o.value;
    };
    // Pairs between two groups: per pair, per direction the best-explained measurement, the
    // worse direction; per group pair, the best pair.
    struct Link {
      std::set<std::pair<std::string, std::string>> pairs;
      std::optional<double> best;   // none: no pair between them completed
      bool any_measured = false;
      std::vector<FabricObservation> obs;
    };
    std::map<std::pair<std::string, std::string>, Link> links;
    std::map<std::pair<std::string, std::string>, std::map<std::string, std::optional<double>>> pair_dirs;
    for (const auto& [sd, obs] : s.directed) {
      const std::string g = group(sd.first), h = group(sd.second);
      if (g == h) continue;
      const auto gh = place_less("leaf:" + g, "leaf:" + h) ? std::pair{g, h} : std::pair{h, g};
      const auto pr = std::minmax(sd.first, sd.second);
      auto& link = links[gh];
      link.pairs.insert(pr);
      link.obs.insert(link.obs.end(), obs.begin(), obs.end());
      std::optional<double> dir;
      for (const auto& o : obs)
        if (auto r = residual(o); r && (!dir || *r < *dir)) dir = r;
      auto& d = pair_dirs[pr][sd.first];
      d = dir;
    }
    for (auto& [gh, link] : links) {
      for (const auto& pr : link.pairs) {
        std::optional<double> worst;
        bool complete = true;
        for (const auto& [src, r] : pair_dirs[pr]) {
          if (!r) complete = false;
          else if (!worst || *r > *worst) worst = r;
        }
        if (!complete) continue;  // a direction never completed: that pair is not the best one
        if (worst && (!link.best || *worst < *link.best)) link.best = worst;
      }
      if (link.pairs.size() < 2) continue;  // one pair is that pair's business (p2p.link_slowdown)
      Metric m;
      m.metric = "p2p.group_link_slowdown";
      m.probe = "p2p";
      m.place = group_link_place(gh.first, gh.second);
      m.params = {{"basis", s.basis}, {"size", s.size}, {"path", "inter"}};
      if (s.rail) m.params = m.params.with("rail", *s.rail);
      m.unit = "x";
      m.better = Better::lower;
      m.count = static_cast<int>(link.obs.size());
      if (link.best) m.value = m.min = m.max = *link.best;
      else m.not_completed = "no pair between the two groups completed both directions";
      GroupLinkEvidence ev;
      ev.basis = s.basis;
      ev.unit = lower ? "s" : "B/s";
      ev.group_a = gh.first, ev.group_b = gh.second;
      ev.reference = ref_x;
      ev.observations = std::move(link.obs);
      ev.pairs = static_cast<int>(link.pairs.size());
      if (uplinks.count(gh.first) && uplinks.count(gh.second))
        for (const auto& sw : uplinks[gh.first])
          if (std::find(uplinks[gh.second].begin(), uplinks[gh.second].end(), sw) != uplinks[gh.second].end()) {
            ev.via = sw;
            break;
          }
      a.evidence[evidence_key(m.metric, m.place, m.params)] = std::move(ev);
      a.derived.push_back(std::move(m));
    }
  }
  return a;
}

GroupAnalysis add_group_metrics(std::vector<Metric>& metrics) {
  GroupAnalysis a = analyze_groups(metrics);
  add_in_order(metrics, a.derived);  // a copy: the analysis keeps its own
  return a;
}

void explain_group_verdicts(const GroupAnalysis& a, std::vector<Verdict>& verdicts) {
  if (a.evidence.empty()) return;
  // Group links that fail the run (failed, or inconclusive here), per rail: {group, group}.
  std::set<std::pair<std::string, std::string>> bad;
  for (auto& v : verdicts) {
    if (v.metric != "p2p.group_link_slowdown") continue;
    auto it = a.evidence.find(evidence_key(v.metric, v.place, v.params));
    if (it == a.evidence.end()) continue;
    const GroupLinkEvidence& ev = it->second;
    const bool bounded = v.bounds.contains("value") && v.bounds["value"].is_number();
    const double bound = bounded ? v.bounds["value"].get<double>() : INFINITY;
    // Each observation against the cross-group reference, as the report shows it.
    // The re-tests first: they are what confirms it.
    std::vector<std::string> shown, shown_first;
    int retests = 0, slow_retests = 0;
    for (const auto& o : ev.observations) {
      const bool retest = o.pass_label != "1";
      const double f = !o.why.empty() ? INFINITY : ev.basis == "latency" ? o.value / ev.reference : ev.reference / o.value;
      if (retest) ++retests, slow_retests += f > bound;
      (retest ? shown : shown_first)
          .push_back((retest ? "re-test " : "") + o.src + "->" + o.dst + " " +
                     (!o.why.empty() ? "did not complete (" + o.why + ")" : base::format_quantity(o.value, ev.unit)));
    }
    shown.insert(shown.end(), shown_first.begin(), shown_first.end());
    const std::string where = "leaf groups " + ev.group_a + " and " + ev.group_b +
                              (ev.via.empty() ? "" : " (through switch " + ev.via + ")");
    const std::string list = std::to_string(ev.pairs) + " pairs between " + where + " against the median between groups " +
                             base::format_quantity(ev.reference, ev.unit) + ": " + list_text(shown, 6);
    if (v.status != VerdictStatus::fail) continue;
    if (slow_retests > 0) {
      v.reason += "; suspect link between " + where + " (" + ev.basis + "): both groups pass alone and every pair between them is slow: " +
                  list + "; sure: high (slow in " + std::to_string(slow_retests) + " of " + std::to_string(retests) + " re-test(s))";
    } else {
      v.status = VerdictStatus::inconclusive;
      v.reason += "; every pair between " + where + " is slow, but no re-test between them confirmed it: " + list;
    }
    bad.insert({ev.group_a, ev.group_b});
    bad.insert({ev.group_b, ev.group_a});
  }
  if (bad.empty()) return;
  for (auto& v : verdicts) {
    if (v.metric != "p2p.link_slowdown" || (v.status != VerdictStatus::fail && v.status != VerdictStatus::inconclusive)) continue;
    auto ends = place::split_pair(v.place);
    if (!ends) continue;
    auto ga = a.leaf_of.find(ends->first), gb = a.leaf_of.find(ends->second);
    if (ga == a.leaf_of.end() || gb == a.leaf_of.end() || !bad.count({ga->second, gb->second})) continue;
    v.status = VerdictStatus::skipped;
    v.reason += "; not blamed on the pair: the link between leaf groups " + ga->second + " and " + gb->second +
                " explains it (see " + group_link_place(ga->second, gb->second) + ")";
  }
}

}  // namespace ga::judging
