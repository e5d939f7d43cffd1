// Samples -> metrics: one per (metric, place, params). The median is judged because one
// slow iteration (a page fault, a context switch) must not decide a verdict.
#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "suites/judge.hpp"
#include "suites/judge_parts.hpp"
#include "topology/place.hpp"

namespace ga {

namespace {

// Counts of equal strings, in sorted order (as a std::map would give them), from views into the
// samples: a scratch buffer reused for every group, so a group of one sample allocates nothing.
struct Tally {
  std::vector<std::string_view> seen;
  std::vector<std::pair<std::string_view, int>> counts;
  void add(std::string_view s) { seen.push_back(s); }
  const std::vector<std::pair<std::string_view, int>>& done() {
    std::sort(seen.begin(), seen.end());
    counts.clear();
    for (std::string_view s : seen) {
      if (counts.empty() || counts.back().first != s) counts.emplace_back(s, 0);
      ++counts.back().second;
    }
    seen.clear();
    return counts;
  }
};

// Most frequent; ties go to the first in sorted order, so the result does not depend on the
// order ranks happened to write in.
std::pair<std::string_view, int> most(const std::vector<std::pair<std::string_view, int>>& counts) {
  auto best = counts.begin();
  for (auto it = counts.begin(); it != counts.end(); ++it)
    if (it->second > best->second) best = it;
  return *best;
}

}  // namespace

std::vector<Metric> aggregate(const std::vector<Sample>& samples, const MetricCatalogue* catalogue) {
  // Grouped by views into the samples (params.dump() is canonical and made once, so it is a
  // key): no string is copied per sample, and the samples of a group are then laid out
  // together (a counting sort by group), so making a metric reads them in one run with scratch
  // buffers reused for every group. At 4096 hosts (3.3 M samples, ~1 per group) a map keyed by
  // copied strings with per-group vectors and maps was a quarter of the judge's time.
  struct Key {
    std::string_view metric, place, params;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::size_t h = std::hash<std::string_view>{}(k.metric);
      for (std::string_view part : {k.place, k.params})
        h ^= std::hash<std::string_view>{}(part) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      return h;
    }
  };
  std::vector<std::uint32_t> group_of(samples.size());
  std::vector<const Sample*> first;  // per group: its first sample, which names it
  {
    std::unordered_map<Key, std::uint32_t, KeyHash> index;
    index.reserve(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const Sample& s = samples[i];
      auto [it, fresh] = index.try_emplace(Key{s.metric, s.place, s.params.dump()}, std::uint32_t(first.size()));
      if (fresh) first.push_back(&s);
      group_of[i] = it->second;
    }
  }
  const std::size_t groups = first.size();
  // members[start[g] .. start[g + 1]): group g's samples, in journal order.
  std::vector<std::uint32_t> start(groups + 1, 0);
  for (std::uint32_t g : group_of) ++start[g + 1];
  for (std::size_t g = 0; g < groups; ++g) start[g + 1] += start[g];
  std::vector<const Sample*> members(samples.size());
  {
    std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < samples.size(); ++i) members[next[group_of[i]]++] = &samples[i];
  }
  std::vector<std::uint32_t>().swap(group_of);

  // The result's order (name, place in natural order, params), with each distinct name and
  // place ranked once (a few thousand names, ~100 k places at 4096 hosts) so the sort of
  // millions of groups compares integers, not places in natural order.
  auto ranks_of = [&](auto field, auto less) {
    std::unordered_map<std::string_view, std::uint32_t> rank;
    for (const Sample* s : first) rank.emplace(field(*s), 0);
    std::vector<std::string_view> distinct;
    distinct.reserve(rank.size());
    for (const auto& [v, r] : rank) distinct.push_back(v);
    std::sort(distinct.begin(), distinct.end(), less);
    for (std::uint32_t i = 0; i < distinct.size(); ++i) rank[distinct[i]] = i;
    return rank;
  };
  const auto name_rank = ranks_of([](const Sample& s) -> std::string_view { return s.metric; },
                                  [](std::string_view x, std::string_view y) { return x < y; });
  const auto place_rank = ranks_of([](const Sample& s) -> std::string_view { return s.place; },
                                   [](std::string_view x, std::string_view y) { return place::less(x, y); });
  struct Ordered {
    std::uint32_t name, place;
    const std::string* params;
    std::uint32_t group;
  };
  std::vector<Ordered> order;
  order.reserve(groups);
  for (std::uint32_t g = 0; g < groups; ++g)
    order.push_back({name_rank.at(first[g]->metric), place_rank.at(first[g]->place), &first[g]->params.dump(), g});
  std::sort(order.begin(), order.end(), [](const Ordered& x, const Ordered& y) {
    if (x.name != y.name) return x.name < y.name;
    if (x.place != y.place) return x.place < y.place;
    return *x.params < *y.params;
  });

  std::vector<Metric> out;
  // Room for the metrics the judge derives (fabric analysis, rdma counter rates), so that adding
  // them does not move every metric to a new buffer while the old one is still held.
  // Reserved pages that are never written cost no memory, so the room is generous: the rdma
  // counters alone derive 18 metrics a port from 32 samples (suites/rdma_rates.cpp).
  out.reserve(groups + groups / 2);
  std::vector<double> values;
  Tally units, texts;
  // The groups come by name, so a name's declaration is looked up once, not once a group (the
  // catalogue's map of strings, millions of times at 4096 hosts).
  std::optional<std::uint32_t> decl_name;
  const DeclaredMetric* decl = nullptr;
  for (const Ordered& o : order) {
    const Sample& f = *first[o.group];
    Metric m;
    m.metric = f.metric;
    m.probe = f.probe;
    m.place = f.place;
    m.params = f.params;
    m.count = int(start[o.group + 1] - start[o.group]);
    values.clear();
    bool any_text = false;
    std::optional<std::pair<int, double>> last;  // (iter, value) of the latest repetition
    for (std::uint32_t i = start[o.group]; i < start[o.group + 1]; ++i) {
      const Sample& s = *members[i];
      if (s.value) values.push_back(*s.value);
      if (s.value && (!last || s.iter >= last->first)) last = std::make_pair(s.iter, *s.value);
      if (s.text) texts.add(*s.text), any_text = true;
      units.add(s.unit);
    }
    std::vector<std::string> notes;
    const auto& unit_counts = units.done();
    if (decl_name != o.name) decl = catalogue ? catalogue->find(m.metric) : nullptr, decl_name = o.name;
    if (decl) {
      m.unit = decl->decl.unit;
      m.better = decl->decl.better;
      m.probe = decl->probe;
      for (const auto& [u, n] : unit_counts)
        if (u != m.unit)
          notes.push_back(std::to_string(n) + " sample(s) in \"" + std::string(u) + "\", not the declared \"" + m.unit + "\"");
    } else if (!unit_counts.empty()) {
      m.unit = most(unit_counts).first;
      if (unit_counts.size() > 1) notes.push_back("samples disagree on the unit; kept " + m.unit);
    }
    if (!values.empty()) {
      m.min = *std::min_element(values.begin(), values.end());
      m.max = *std::max_element(values.begin(), values.end());
      m.value = values.size() == 1 ? values.front() : judging::median(values);
      // A declaration may say otherwise: a count of errors adds up, a worst case is the max.
      if (decl) switch (decl->decl.combine) {
          case Combine::median: break;
          case Combine::min: m.value = m.min; break;
          case Combine::max: m.value = m.max; break;
          case Combine::last: m.value = last->second; break;
          case Combine::sum: {
            double total = 0;
            for (double v : values) total += v;
            m.value = total;
            break;
          }
        }
    }
    if (any_text) {
      const auto& text_counts = texts.done();
      const auto best = most(text_counts);
      m.text = std::string(best.first);
      if (text_counts.size() > 1) {
        std::vector<std::string> others;
        for (const auto& [t, n] : text_counts)
          if (t != best.first) others.push_back("\"" + std::string(t) + "\" (" + std::to_string(n) + "x)");
        notes.push_back("kept \"" + *m.text + "\" (" + std::to_string(best.second) + "x); also seen " +
                        judging::list_text(others));
      }
    }
    for (const auto& n : notes) m.note += (m.note.empty() ? "" : "; ") + n;
    out.push_back(std::move(m));
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
  // Sorted already (as aggregate() leaves it)? Then a merge; else one stable sort of the whole.
  const bool sorted = std::is_sorted(metrics.begin(), metrics.end(), metric_less);
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
