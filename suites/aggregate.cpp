// Samples -> metrics: one per (metric, place, params). The median is judged because one
// slow iteration (a page fault, a context switch) must not decide a verdict.
#include <algorithm>
#include <map>
#include <tuple>

#include "suites/judge.hpp"
#include "suites/judge_parts.hpp"

namespace ga {

std::vector<Metric> aggregate(const std::vector<Sample>& samples, const MetricCatalogue* catalogue) {
  // The first sample of a group names it (metric, probe, place, params); its Metric is made
  // only at the end, so the groups hold no copy of what the samples already hold.
  struct Acc {
    const Sample* first = nullptr;
    int count = 0;
    std::vector<double> values;
    std::map<std::string, int> texts;
    std::map<std::string, int> units;
  };
  // params.dump() is canonical (nlohmann objects keep their keys sorted), so it is a key.
  // Keyed in the order of the result: by name, place in natural order, params. place_less is
  // a total order (natural_less breaks its ties on the bytes), so that is one sort of the
  // groups, done while grouping.
  struct ResultOrder {
    bool operator()(const std::tuple<std::string, std::string, std::string>& x,
                    const std::tuple<std::string, std::string, std::string>& y) const {
      const auto& [xm, xp, xd] = x;
      const auto& [ym, yp, yd] = y;
      if (xm != ym) return xm < ym;
      if (xp != yp) return judging::place_less(xp, yp);
      return xd < yd;
    }
  };
  std::map<std::tuple<std::string, std::string, std::string>, Acc, ResultOrder> groups;
  for (const auto& s : samples) {
    auto& a = groups[{s.metric, s.place, s.params.dump()}];
    if (a.count == 0) a.first = &s;
    ++a.count;
    if (s.value) a.values.push_back(*s.value);
    if (s.text) ++a.texts[*s.text];
    ++a.units[s.unit];
  }

  // Each group is freed as soon as its metric is made, so samples, groups and metrics are
  // never all held at once.
  std::vector<Metric> out;
  // Room for the metrics the judge derives (fabric analysis, rdma counter rates), so that adding
  // them does not move every metric to a new buffer while the old one is still held.
  // Reserved pages that are never written cost no memory, so the room is generous: the rdma
  // counters alone derive 18 metrics a port from 32 samples (suites/rdma_rates.cpp).
  out.reserve(groups.size() + groups.size() / 2);
  while (!groups.empty()) {
    auto g = groups.begin();
    Acc& a = g->second;
    Metric m;
    m.metric = a.first->metric;
    m.probe = a.first->probe;
    m.place = a.first->place;
    m.params = a.first->params;
    m.count = a.count;
    std::vector<std::string> notes;
    // Most frequent unit and text; ties go to the first in sorted order, so the result does
    // not depend on the order ranks happened to write in.
    auto most = [](const std::map<std::string, int>& counts) {
      auto best = counts.begin();
      for (auto it = counts.begin(); it != counts.end(); ++it)
        if (it->second > best->second) best = it;
      return best;
    };
    const DeclaredMetric* decl = catalogue ? catalogue->find(m.metric) : nullptr;
    if (decl) {
      m.unit = decl->decl.unit;
      m.better = decl->decl.better;
      m.probe = decl->probe;
      for (const auto& [u, n] : a.units)
        if (u != m.unit) notes.push_back(std::to_string(n) + " sample(s) in \"" + u + "\", not the declared \"" + m.unit + "\"");
    } else if (!a.units.empty()) {
      m.unit = most(a.units)->first;
      if (a.units.size() > 1) notes.push_back("samples disagree on the unit; kept " + m.unit);
    }
    if (!a.values.empty()) {
      m.value = judging::median(a.values);
      // A declaration may say otherwise: a count of errors adds up, a worst case is the max.
      if (decl) switch (decl->decl.combine) {
          case Combine::median: break;
          case Combine::min: m.value = *std::min_element(a.values.begin(), a.values.end()); break;
          case Combine::max: m.value = *std::max_element(a.values.begin(), a.values.end()); break;
          case Combine::sum: {
            double total = 0;
            for (double v : a.values) total += v;
            m.value = total;
            break;
          }
        }
      m.min = *std::min_element(a.values.begin(), a.values.end());
      m.max = *std::max_element(a.values.begin(), a.values.end());
    }
    if (!a.texts.empty()) {
      auto best = most(a.texts);
      m.text = best->first;
      if (a.texts.size() > 1) {
        std::vector<std::string> others;
        for (const auto& [t, n] : a.texts)
          if (t != best->first) others.push_back("\"" + t + "\" (" + std::to_string(n) + "x)");
        notes.push_back("kept \"" + best->first + "\" (" + std::to_string(best->second) +
                        "x); also seen " + judging::list_text(others));
      }
    }
    for (const auto& n : notes) m.note += (m.note.empty() ? "" : "; ") + n;
    out.push_back(std::move(m));
    groups.erase(g);
  }
  return out;
}

namespace judging {

bool metric_less(const Metric& x, const Metric& y) {
  if (x.metric != y.metric) return x.metric < y.metric;
  if (x.place != y.place) return place_less(x.place, y.place);
  return x.params.dump() < y.params.dump();
}

void add_in_order(std::vector<Metric>& metrics, std::vector<Metric> extra) {
  if (extra.empty()) return;
  // Sorted? Neighbours that tie on name and place compare their params' dumps; each dump is
  // made once, not once per comparison.
  bool sorted = true;
  std::string prev_dump;
  bool prev_dumped = false;
  for (std::size_t i = 1; i < metrics.size() && sorted; ++i) {
    const Metric &x = metrics[i - 1], &y = metrics[i];
    bool y_dumped = false;
    std::string y_dump;
    if (x.metric != y.metric) sorted = x.metric < y.metric;
    else if (x.place != y.place) sorted = !place_less(y.place, x.place);
    else {
      if (!prev_dumped) prev_dump = x.params.dump();
      y_dump = y.params.dump();
      y_dumped = true;
      sorted = !(y_dump < prev_dump);
    }
    prev_dump = std::move(y_dump);
    prev_dumped = y_dumped;
  }
  if (!sorted) {
    metrics.insert(metrics.end(), std::make_move_iterator(extra.begin()), std::make_move_iterator(extra.end()));
    std::stable_sort(metrics.begin(), metrics.end(), metric_less);
    return;
  }
  std::stable_sort(extra.begin(), extra.end(), metric_less);
  std::size_t i = metrics.size(), j = extra.size(), k = metrics.size() + extra.size();
  metrics.resize(k);
  while (j > 0) {
    if (i > 0 && metric_less(extra[j - 1], metrics[i - 1])) metrics[--k] = std::move(metrics[--i]);
    else metrics[--k] = std::move(extra[--j]);
  }
}

}  // namespace judging

}  // namespace ga
