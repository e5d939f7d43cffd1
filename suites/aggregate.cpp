// Samples -> metrics: one per (metric, place, params). The median is judged because one
// slow iteration (a page fault, a context switch) must not decide a verdict.
#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "base/both.hpp"
#include "base/prefault.hpp"
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

// Each item's rank among the distinct values of one of its string fields, in `less` order:
// each distinct value is ranked once (a hash of views in order of first appearance, then one
// sort of the distinct ones), not compared once per item.
template <class T, class Field, class Less>
std::vector<std::uint32_t> ranks_of(const std::vector<T>& items, Field field, Less less) {
  std::unordered_map<std::string_view, std::uint32_t> id;  // in order of first appearance
  std::vector<std::string_view> distinct;
  std::vector<std::uint32_t> of_item(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto [it, fresh] = id.try_emplace(field(items[i]), std::uint32_t(distinct.size()));
    if (fresh) distinct.push_back(it->first);
    of_item[i] = it->second;
  }
  std::vector<std::uint32_t> by_rank(distinct.size());
  for (std::uint32_t k = 0; k < by_rank.size(); ++k) by_rank[k] = k;
  std::sort(by_rank.begin(), by_rank.end(), [&](std::uint32_t x, std::uint32_t y) { return less(distinct[x], distinct[y]); });
  std::vector<std::uint32_t> rank(distinct.size());
  for (std::uint32_t r = 0; r < by_rank.size(); ++r) rank[by_rank[r]] = r;
  for (auto& v : of_item) v = rank[v];
  return of_item;
}

}  // namespace

std::vector<Metric> aggregate(const std::vector<Sample>& samples, const MetricCatalogue* catalogue) {
  // Grouped and ordered by one sort of the samples: each distinct name and place ranked once
  // (a few thousand names, ~170 k places at 4096 hosts), then every sample sorted by (name
  // rank, place rank, params' canonical text, position in the journal). A group is then a run
  // of the sorted samples, in journal order, and the runs come in the result's order (name,
  // place in natural order, params). Nothing is copied per sample and no map of millions of
  // keys is built: at 4096 hosts (3.3 M samples, ~1 per group) a hash map of (name, place,
  // params) views was a third of aggregate()'s time, and one of copied strings before it a
  // quarter of the judge's.
  struct Ordered {
    std::uint32_t name, place;
    const std::string* params;
    std::uint32_t sample;
  };
  std::vector<Ordered> order;
  std::vector<std::uint32_t> group_begin;
  std::vector<Metric> out;
  // The metrics' slots are made on a thread of their own while the samples are ranked and
  // sorted: writing ~0.75 GB of fresh memory the first time is ~1 s of one core at 4096 hosts
  // (in a VM, a trap per page), and the ranking and sorting leave the second core partly idle.
  // There are at most as many groups as samples (about as many: ~1 sample a group), and the
  // slots left over are dropped once the groups are known. Room is reserved for the metrics the
  // judge derives (fabric analysis, rdma counter rates), so that adding them does not move every
  // metric to a new buffer while the old one is still held. Reserved pages that are never
  // written cost no memory, so the room is generous: the rdma counters alone derive 18 metrics
  // a port from 32 samples (suites/rdma_rates.cpp).
  base::both(
      [&] {
        out.reserve(samples.size() + samples.size() / 2);
        base::prefault_tail(out, samples.size());
        out.resize(samples.size());
      },
      [&] {
        order.reserve(samples.size());
        base::prefault_tail(order, samples.size());
        order.resize(samples.size());
        // Names and places ranked side by side, then each half of the samples sorted on its own
        // thread and the halves merged: the order is total (the sample's position breaks ties), so it
        // is the one a single sort gives. At 4096 hosts these were ~5 s of one core.
        {
          std::vector<std::uint32_t> names, places;
          base::both([&] {
                       names = ranks_of(samples, [](const Sample& s) -> std::string_view { return s.metric; },
                                        [](std::string_view x, std::string_view y) { return x < y; });
                     },
                     [&] {
                       places = ranks_of(samples, [](const Sample& s) -> std::string_view { return s.place; },
                                         [](std::string_view x, std::string_view y) { return place::less(x, y); });
                     });
          for (std::size_t i = 0; i < samples.size(); ++i)
            order[i] = {names[i], places[i], &samples[i].params.dump(), std::uint32_t(i)};
        }
        // Params are compared by their text; the journal reader interns them, so equal params are
        // mostly one object and the pointers settle it.
        auto same_params = [](const Ordered& x, const Ordered& y) {
          return x.params == y.params || *x.params == *y.params;
        };
        auto ordered_less = [&](const Ordered& x, const Ordered& y) {
          if (x.name != y.name) return x.name < y.name;
          if (x.place != y.place) return x.place < y.place;
          if (!same_params(x, y)) return *x.params < *y.params;
          return x.sample < y.sample;
        };
        base::sort_on_both(order.begin(), order.end(), ordered_less);
        auto same_group = [&](const Ordered& x, const Ordered& y) {
          return x.name == y.name && x.place == y.place && same_params(x, y);
        };
        // Where each group begins in `order`: the metrics are made in two halves, one per thread, each
        // into the slots of its own groups.
        for (std::size_t i = 0; i < order.size(); ++i)
          if (i == 0 || !same_group(order[i - 1], order[i])) group_begin.push_back(std::uint32_t(i));
      });
  const std::size_t groups = group_begin.size();
  group_begin.push_back(std::uint32_t(order.size()));
  if (groups < samples.size() / 2) {
    // Many samples a group (a probe's repetitions): most of the slots made early would stay
    // written and unused for the judgement's life, so their memory is given back and the slots
    // are made here, as many as there are groups.
    std::vector<Metric>().swap(out);
    out.reserve(groups + groups / 2);
    base::prefault_tail(out, groups);
  }
  out.resize(groups);  // drops the slots no group took, or makes them after the swap above
  // The metrics of groups [first_group, end_group) made into their slots, with scratch of their own.
  auto make = [&](std::size_t first_group, std::size_t end_group) {
    std::vector<double> values;
    Tally units, texts;
    // The groups come by name, so a name's declaration is looked up once, not once a group (the
    // catalogue's map of strings, millions of times at 4096 hosts).
    std::optional<std::uint32_t> decl_name;
    const DeclaredMetric* decl = nullptr;
    for (std::size_t g = first_group; g < end_group; ++g) {
      const std::size_t begin = group_begin[g], end = group_begin[g + 1];
      const Ordered& o = order[begin];
      const Sample& f = samples[o.sample];  // the group's first in the journal: it names the metric
      Metric& m = out[g];
      m.metric = f.metric;
      m.probe = f.probe;
      m.place = f.place;
      m.params = f.params;
      m.count = int(end - begin);
      values.clear();
      bool any_text = false;
      std::optional<std::pair<int, double>> last;  // (iter, value) of the latest repetition
      for (std::size_t i = begin; i < end; ++i) {
        const Sample& s = samples[order[i].sample];
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
      if (!notes.empty()) {
        std::string joined;
        for (const auto& n : notes) joined += (joined.empty() ? "" : "; ") + n;
        m.note = std::move(joined);
      }
    }
  };
  base::both([&] { make(groups / 2, groups); }, [&] { make(0, groups / 2); });
  return out;
}

base::ByName<Metric> metrics_by_name(const std::vector<Metric>& metrics) {
  return base::group_by_name(metrics, [](const Metric& m) -> const std::string& { return m.metric; });
}

namespace judging {

bool metric_less(const Metric& x, const Metric& y) {
  if (x.metric != y.metric) return x.metric < y.metric;
  if (x.place != y.place) return place_less(x.place, y.place);
  return x.params.dump() < y.params.dump();
}

namespace {

// The order a stable sort of `ms` by metric_less gives, as indices, made in two steps: a
// stable pass by name (names first seen, then ranked), then each name's run sorted by place
// and params only where it is not in order already. The analyses emit each place's derived
// metrics together, so names interleave while a name's places mostly come in order: at 4096
// hosts (760 k metrics under ~30 names) a stable sort of them all was ~1.3 s of comparisons.
std::vector<std::uint32_t> order_of(const std::vector<Metric>& ms) {
  const std::vector<std::uint32_t> rank =
      ranks_of(ms, [](const Metric& m) -> std::string_view { return m.metric; },
               [](std::string_view x, std::string_view y) { return x < y; });
  // Counting sort by rank: stable, so a name's metrics keep the order they came in.
  const std::uint32_t names = rank.empty() ? 0 : *std::max_element(rank.begin(), rank.end()) + 1;
  std::vector<std::size_t> begin(names + 1, 0);
  for (std::uint32_t r : rank) ++begin[r + 1];
  for (std::size_t r = 1; r < begin.size(); ++r) begin[r] += begin[r - 1];
  std::vector<std::uint32_t> by(ms.size());
  {
    std::vector<std::size_t> next(begin.begin(), begin.end() - 1);
    for (std::uint32_t x = 0; x < ms.size(); ++x) by[next[rank[x]]++] = x;
  }
  auto less = [&](std::uint32_t a, std::uint32_t b) { return metric_less(ms[a], ms[b]); };
  for (std::size_t r = 0; r + 1 < begin.size(); ++r) {
    const auto first = by.begin() + std::ptrdiff_t(begin[r]), last = by.begin() + std::ptrdiff_t(begin[r + 1]);
    if (!std::is_sorted(first, last, less)) std::stable_sort(first, last, less);
  }
  return by;
}

}  // namespace

void add_in_order(std::vector<Metric>& metrics, std::vector<Metric> extra) {
  if (extra.empty()) return;
  // Sorted already (as aggregate() leaves it)? Then a merge; else one stable sort of the whole.
  // Meanwhile the extras' order, as indices: sorting the metrics themselves moved each
  // ~300-byte Metric log n times (hundreds of thousands of them at 4096 hosts). Each is a
  // second or two of comparing names and places there, so they run side by side.
  bool sorted = true;
  std::vector<std::uint32_t> by(extra.size());
  base::both([&] { sorted = std::is_sorted(metrics.begin(), metrics.end(), metric_less); },
             [&] { by = order_of(extra); });
  if (!sorted) {
    metrics.insert(metrics.end(), std::make_move_iterator(extra.begin()), std::make_move_iterator(extra.end()));
    std::stable_sort(metrics.begin(), metrics.end(), metric_less);
    return;
  }
  // A merge from the back, in place, on both cores. The merged order's first k_mid places are
  // the first i_mid measured metrics and the first j_mid extras (found by binary search along
  // the merge path); one thread fills the places from k_mid on, the other those below it,
  // each from the back. The measured metrics in [i_mid, k_mid) are the upper half's to move
  // but lie where the lower half writes: they are set aside first. At 4096 hosts ~3 M of the
  // 4 M metrics move, ~1.3 s of one core.
  const std::size_t n = metrics.size(), nx = extra.size(), total = n + nx;
  auto ex = [&](std::size_t j) -> Metric& { return extra[by[j]]; };
  // Ties go to the measured metric, as in a stable sort of the measured ones then the extras:
  // the first measured metric an extra comes before is the first one it is less than.
  const std::size_t first_moved =
      static_cast<std::size_t>(std::upper_bound(metrics.begin(), metrics.end(), ex(0), metric_less) - metrics.begin());
  const std::size_t k_mid = first_moved + (total - first_moved) / 2;
  std::size_t lo = k_mid > n ? k_mid - n : 0, hi = std::min(k_mid, nx);
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (metric_less(ex(mid), metrics[k_mid - mid - 1])) lo = mid + 1;  // that extra comes first: take more extras
    else hi = mid;
  }
  const std::size_t j_mid = lo, i_mid = k_mid - j_mid, aside_end = std::min(k_mid, n);
  base::prefault_tail(metrics, nx);
  metrics.resize(total);
  std::vector<Metric> aside(std::make_move_iterator(metrics.begin() + std::ptrdiff_t(i_mid)),
                            std::make_move_iterator(metrics.begin() + std::ptrdiff_t(aside_end)));
  // Measured metrics [i_begin, i) and extras [j_begin, j) into the places below k, from the back.
  auto merge = [&](std::size_t i, std::size_t i_begin, std::size_t j, std::size_t j_begin, std::size_t k, auto&& at) {
    while (j > j_begin) {
      Metric& next = ex(j - 1);
      if (i > i_begin && metric_less(next, at(i - 1))) {
        --i;
        metrics[--k] = std::move(at(i));
      } else {
        metrics[--k] = std::move(next);
        --j;
      }
    }
    while (i > i_begin) {
      --i, --k;
      if (k == i && &at(i) == &metrics[i]) break;  // the rest is where it belongs already
      metrics[k] = std::move(at(i));
    }
  };
  base::both(
      [&] {
        merge(n, i_mid, nx, j_mid, total, [&](std::size_t i) -> Metric& {
          return i < aside_end ? aside[i - i_mid] : metrics[i];
        });
      },
      [&] { merge(i_mid, 0, j_mid, 0, k_mid, [&](std::size_t i) -> Metric& { return metrics[i]; }); });
}

}  // namespace judging

}  // namespace ga
