// The adaptive schedule and its verdict; see isolation.hpp for the phases and the rules.
// Deterministic: ordered containers or index vectors only, a hand-written shuffle (std::shuffle's
// sequence differs between standard libraries), no clock, no environment.
#include "probes/harness/isolation.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "base/natural_order.hpp"
#include "probes/harness/pair_schedule.hpp"

namespace ga::isolation {

const char* to_string(Phase p) {
  switch (p) {
    case Phase::infer: return "infer";
    case Phase::cover: return "cover";
    case Phase::follow_up: return "follow_up";
    case Phase::done: return "done";
  }
  return "?";
}
const char* to_string(Kind k) {
  switch (k) {
    case Kind::endpoint: return "endpoint";
    case Kind::link: return "link";
    case Kind::group_link: return "group_link";
  }
  return "?";
}
const char* to_string(Status s) {
  switch (s) {
    case Status::blamed: return "blamed";
    case Status::cleared: return "cleared";
    case Status::inconclusive: return "inconclusive";
  }
  return "?";
}

std::vector<std::string> Verdict::places(Kind k, Status s) const {
  std::vector<std::string> out;
  for (const auto& f : findings)
    if (f.kind == k && f.status == s) out.push_back(f.place);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t key_of(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  std::uint64_t x = seed;
  std::uint64_t k = splitmix(x);
  for (auto v : {a, b, c}) {
    x = k ^ (v + 0x632be59bd9b4e019ULL);
    k = splitmix(x);
  }
  return k;
}

// Fisher-Yates with splitmix64: the same sequence on every platform.
template <class T>
void shuffle(std::vector<T>& v, std::uint64_t key) {
  std::uint64_t x = key;
  for (std::size_t i = v.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(splitmix(x) % i);
    std::swap(v[i - 1], v[j]);
  }
}

std::uint64_t pair_key(int a, int b) {
  if (a > b) std::swap(a, b);
  return (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
}

// The better of the two middle values (lower when lower is better): with half the values
// bad the reference still comes from a good one.
double better_median(std::vector<double> v, bool lower_is_better) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x) || x <= 0; }), v.end());
  if (v.empty()) return NAN;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
  if (lower_is_better) std::nth_element(v.begin(), mid, v.end());
  else std::nth_element(v.begin(), mid, v.end(), std::greater<>());
  return *mid;
}

// Result indices by unordered pair: sorted once, looked up by binary search (a hash map of
// vectors cost more than the whole analysis at 4096 hosts).
struct PairIndex {
  std::vector<std::pair<std::uint64_t, int>> v;  // {pair key, result index}, sorted
  template <class F>
  void each(std::uint64_t k, F&& f) const {
    for (auto it = std::lower_bound(v.begin(), v.end(), std::pair<std::uint64_t, int>{k, -1});
         it != v.end() && it->first == k; ++it)
      f(it->second);
  }
  std::vector<int> of(std::uint64_t k) const {
    std::vector<int> out;
    each(k, [&](int i) { out.push_back(i); });
    return out;
  }
};

}  // namespace

// Where the planner stands: the groups (given or inferred) and the cover schedule's shape.
struct Planner::Layout {
  std::vector<int> group;                      // endpoint -> group id
  std::vector<std::string> group_name;         // id -> name
  std::vector<int> group_rail;                 // id -> rail slot
  std::vector<std::vector<int>> members;       // id -> endpoints, natural order
  std::vector<std::vector<int>> rail_groups;   // rail slot -> group ids
  std::vector<bool> inferred;                  // endpoint
  int infer = 0, within = 0, cross = 0;        // rounds of each phase
  std::vector<int> cross_of_rail;              // rail slot -> its cross rounds
  int follow_from() const { return infer + within + cross; }
};

struct Planner::Impl {
  const Planner& p;
  explicit Impl(const Planner& pl) : p(pl) {}

  static int rounds_done(const std::vector<PairResult>& results) {
    int r = 0;
    for (const auto& x : results) r = std::max(r, x.round + 1);
    return r;
  }

  double badness(const PairResult& r) const {
    const int b = p.opt_.infer_basis;
    if (!r.completed || b < 0 || static_cast<std::size_t>(b) >= r.values.size()) return kInf;
    const double v = r.values[static_cast<std::size_t>(b)];
    if (!std::isfinite(v) || v <= 0) return kInf;
    return p.opt_.bases[static_cast<std::size_t>(b)].lower_is_better ? v : 1.0 / v;
  }

  // The unlabelled endpoints of a rail slot, in natural name order.
  std::vector<int> unlabelled(std::size_t slot) const {
    std::vector<int> u;
    for (int e : p.by_rail_[slot])
      if (p.ep_[static_cast<std::size_t>(e)].group.empty()) u.push_back(e);
    return u;
  }

  // Splits `u` (name order) into runs at the neighbour pairs that look like leaf boundaries.
  std::vector<std::vector<int>> infer_runs(const std::vector<int>& u, const std::vector<PairResult>& results) const {
    const std::size_t n = u.size();
    if (n < 3) return {u};
    std::unordered_map<std::uint64_t, double> best;  // neighbour pair -> lowest badness seen
    for (const auto& r : results) {
      if (r.round >= 2) continue;
      const auto k = pair_key(r.src, r.dst);
      auto [it, fresh] = best.try_emplace(k, badness(r));
      if (!fresh) it->second = std::min(it->second, badness(r));
    }
    std::vector<double> L(n - 1, NAN);
    for (std::size_t i = 0; i + 1 < n; ++i)
      if (auto it = best.find(pair_key(u[i], u[i + 1])); it != best.end()) L[i] = it->second;
    std::vector<double> finite;
    for (double x : L)
      if (std::isfinite(x)) finite.push_back(x);
    if (finite.size() < 2) return {u};
    std::vector<double> sorted = finite;
    std::sort(sorted.begin(), sorted.end());
    const double med = sorted[(sorted.size() - 1) / 2];
    // A slow endpoint makes both its neighbour pairs high; a boundary only one. Leave the pairs
    // of slow endpoints out of the clustering and never cut there.
    std::vector<bool> skip(n - 1, false);
    for (std::size_t i = 1; i + 1 < n; ++i) {
      const double lo = std::min(std::isnan(L[i - 1]) ? kInf : L[i - 1], std::isnan(L[i]) ? kInf : L[i]);
      if (lo > p.opt_.ratio * med) skip[i - 1] = skip[i] = true;
    }
    std::vector<double> kept;
    for (std::size_t i = 0; i + 1 < n; ++i)
      if (!skip[i] && std::isfinite(L[i])) kept.push_back(std::log(L[i]));
    std::sort(kept.begin(), kept.end());
    // Two clusters by Otsu's rule on the logs (the split with the largest between-class
    // variance); accepted when the clusters are infer_gap apart and separated by at least
    // kSeparation pooled standard deviations, which one cluster of noise never is.
    constexpr double kSeparation = 4;
    const std::size_t m = kept.size();
    if (m < 3) return {u};
    std::vector<double> pre(m + 1, 0), pre2(m + 1, 0);
    for (std::size_t i = 0; i < m; ++i) pre[i + 1] = pre[i] + kept[i], pre2[i + 1] = pre2[i] + kept[i] * kept[i];
    double best_between = -1, threshold = kInf;
    bool accepted = false;
    for (std::size_t k = 1; k < m; ++k) {
      const double n1 = double(k), n2 = double(m - k);
      const double m1 = pre[k] / n1, m2 = (pre[m] - pre[k]) / n2;
      const double between = n1 * n2 * (m2 - m1) * (m2 - m1);
      if (between <= best_between) continue;
      best_between = between;
      const double within = (pre2[k] - n1 * m1 * m1) + (pre2[m] - pre2[k] - n2 * m2 * m2);
      const double sd = std::sqrt(std::max(0.0, within) / double(m));
      accepted = m2 - m1 >= std::log(p.opt_.infer_gap) && m2 - m1 >= kSeparation * sd;
      threshold = std::exp((kept[k - 1] + kept[k]) / 2);
    }
    if (!accepted) return {u};
    std::vector<std::vector<int>> runs{{u[0]}};
    for (std::size_t i = 0; i + 1 < n; ++i) {
      const bool cut = !skip[i] && !std::isnan(L[i]) && L[i] > threshold;
      // A run of one would be a leaf with one host: more likely a noisy pair, keep it joined.
      if (cut && runs.back().size() >= 2) runs.emplace_back();
      runs.back().push_back(u[i + 1]);
    }
    if (runs.size() > 1 && runs.back().size() < 2) {
      auto last = runs.back();
      runs.pop_back();
      runs.back().insert(runs.back().end(), last.begin(), last.end());
    }
    return runs;
  }

  std::shared_ptr<const Layout> layout(const std::vector<PairResult>& results, bool infer_done) const {
    if (p.fixed_layout_) return p.fixed_layout_;
    return std::make_shared<const Layout>(make_layout(results, infer_done));
  }

  Layout make_layout(const std::vector<PairResult>& results, bool infer_done) const {
    Layout L;
    const std::size_t n = p.ep_.size();
    L.group.assign(n, -1);
    L.inferred.assign(n, false);
    L.infer = p.infer_rounds();
    L.rail_groups.resize(p.by_rail_.size());
    std::vector<PairResult> infer_results;
    if (p.need_infer_ && infer_done)
      for (const auto& r : results)
        if (r.round < 2) infer_results.push_back(r);
    for (std::size_t slot = 0; slot < p.by_rail_.size(); ++slot) {
      std::map<std::string, std::vector<int>, bool (*)(const std::string&, const std::string&)> named(
          [](const std::string& a, const std::string& b) { return natural_less(a, b); });
      for (int e : p.by_rail_[slot]) {
        const auto& g = p.ep_[static_cast<std::size_t>(e)].group;
        if (!g.empty()) named[g].push_back(e);
      }
      const auto u = unlabelled(slot);
      std::vector<std::vector<int>> runs;
      if (!u.empty()) runs = p.need_infer_ && infer_done ? infer_runs(u, infer_results) : std::vector<std::vector<int>>{u};
      auto add = [&](const std::string& name, const std::vector<int>& m, bool inferred) {
        const int id = static_cast<int>(L.members.size());
        L.members.push_back(m);
        L.group_name.push_back(name);
        L.group_rail.push_back(static_cast<int>(slot));
        L.rail_groups[slot].push_back(id);
        for (int e : m) L.group[static_cast<std::size_t>(e)] = id, L.inferred[static_cast<std::size_t>(e)] = inferred;
      };
      for (const auto& [name, m] : named) add(name, m, false);
      for (const auto& r : runs) add("auto:" + p.ep_[static_cast<std::size_t>(r.front())].name, r, true);
    }
    // The cover phase's shape.
    int within = 0;
    for (const auto& m : L.members) within = std::max(within, pairs::round_count(static_cast<int>(m.size())));
    L.within = std::min(within, p.opt_.group_partners);
    L.cross_of_rail.assign(p.by_rail_.size(), 0);
    for (std::size_t slot = 0; slot < L.rail_groups.size(); ++slot) {
      const auto& gs = L.rail_groups[slot];
      if (gs.size() < 2) continue;
      std::size_t S = 0;
      for (int g : gs) S = std::max(S, L.members[static_cast<std::size_t>(g)].size());
      const int R = pairs::round_count(static_cast<int>(gs.size()));
      const long long need = (static_cast<long long>(p.opt_.group_pair_samples) * R + static_cast<long long>(S) - 1) /
                             static_cast<long long>(S);
      L.cross_of_rail[slot] =
          static_cast<int>(std::min<long long>(p.opt_.max_cross_rounds, std::max<long long>(p.opt_.cross_partners, need)));
      L.cross = std::max(L.cross, L.cross_of_rail[slot]);
    }
    return L;
  }

  std::vector<std::pair<int, int>> infer_round(int k) const {
    std::vector<std::pair<int, int>> out;
    for (std::size_t slot = 0; slot < p.by_rail_.size(); ++slot) {
      const auto u = unlabelled(slot);
      for (std::size_t i = static_cast<std::size_t>(k); i + 1 < u.size(); i += 2) out.push_back(std::minmax(u[i], u[i + 1]));
    }
    return out;
  }

  std::vector<std::pair<int, int>> cover_round(const Layout& L, int k) const {
    std::vector<std::pair<int, int>> out;
    const auto seed = p.opt_.seed;
    if (k < L.within) {
      for (std::size_t g = 0; g < L.members.size(); ++g) {
        auto m = L.members[g];
        const int s = static_cast<int>(m.size());
        if (k >= pairs::round_count(s)) continue;
        // One shuffle per group for all its within rounds, so the round robin's partners stay distinct.
        shuffle(m, key_of(seed, 1, static_cast<std::uint64_t>(m.front()), 0));
        for (auto [a, b] : pairs::round_pairs(s, k))
          out.push_back(std::minmax(m[static_cast<std::size_t>(a)], m[static_cast<std::size_t>(b)]));
      }
      return out;
    }
    const int t = k - L.within;
    for (std::size_t slot = 0; slot < L.rail_groups.size(); ++slot) {
      const auto& gs = L.rail_groups[slot];
      if (t >= L.cross_of_rail[slot]) continue;
      const int G = static_cast<int>(gs.size());
      std::size_t S = 0;
      for (int g : gs) S = std::max(S, L.members[static_cast<std::size_t>(g)].size());
      const int R = pairs::round_count(G);
      // Each group's members on S slots (a seeded shuffle), rotated every round by t (1 + g):
      // two groups' rotations differ by t times the difference of their indices, so groups
      // that meet again in a later round pair other members (the same pair twice would be one
      // sample to the judge, which aggregates a pair's samples of one pass). Slot i of g
      // meets slot i of the group g faces in group-round (t*S + i) mod R.
      std::vector<std::vector<int>> at(static_cast<std::size_t>(G), std::vector<int>(S, -1));
      for (int gi = 0; gi < G; ++gi) {
        const auto& m = L.members[static_cast<std::size_t>(gs[static_cast<std::size_t>(gi)])];
        std::vector<int> slots(S);
        for (std::size_t i = 0; i < S; ++i) slots[i] = static_cast<int>(i);
        shuffle(slots, key_of(seed, 2, static_cast<std::uint64_t>(m.front()), 0));
        const std::size_t rot = static_cast<std::size_t>(t) * (static_cast<std::size_t>(gi) + 1) % S;
        for (std::size_t j = 0; j < m.size(); ++j)
          at[static_cast<std::size_t>(gi)][(static_cast<std::size_t>(slots[j]) + rot) % S] = m[j];
      }
      for (int gi = 0; gi < G; ++gi)
        for (std::size_t i = 0; i < S; ++i) {
          const int a = at[static_cast<std::size_t>(gi)][i];
          if (a < 0) continue;
          const int q = static_cast<int>((static_cast<long long>(t) * static_cast<long long>(S) + static_cast<long long>(i)) % R);
          const int h = pairs::opponent(G, q, gi);
          if (h <= gi) continue;  // a bye, or the pair seen from the other side
          const int b = at[static_cast<std::size_t>(h)][i];
          if (b >= 0) out.push_back(std::minmax(a, b));
        }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // ---- the analysis of the cover results, and the follow-ups it asks for ----

  struct Item {
    Kind kind = Kind::endpoint;
    double factor = 1;
    int endpoint = -1;
    std::pair<int, int> link{-1, -1};
    int g = -1, h = -1;                          // group_link
    std::vector<std::pair<int, int>> suspects;   // group_link: its slow pairs
    std::vector<std::pair<int, int>> plan;       // follow-up pairs
    bool over_budget = false;
    bool suspect_end = false;                    // link: an end is a suspect endpoint too
    std::string no_plan;                         // why nothing could be planned
  };

  struct Analysis {
    std::shared_ptr<const Layout> L;
    int F0 = 0;
    std::size_t B = 0;
    // per (rail slot, basis): references within a group and across groups
    std::vector<std::vector<double>> ref_within, ref_cross;
    // per endpoint, per basis: best sending and receiving value in the cover phase
    std::vector<std::vector<double>> best_out, best_in;
    std::vector<double> score;                   // endpoint: cover factor (NaN: nothing measured)
    std::vector<std::vector<int>> res_of;        // endpoint -> result indices
    PairIndex res_of_pair;
    std::vector<double> resid;                   // per result: residual() against the cover phase
    std::vector<bool> suspect;
    std::vector<bool> good;                      // not a suspect and in no slow pair: the partners to prefer
    std::vector<bool> fine;                      // not a suspect (its best pairs passed): known-good enough
    std::vector<Item> items;
  };

  bool lower(std::size_t b) const { return p.opt_.bases[b].lower_is_better; }
  double scale(std::size_t b) const {
    const double r = p.opt_.bases[b].ratio;
    return r > 0 ? p.opt_.ratio / r : 1.0;
  }
  static bool done_value(const PairResult& r, std::size_t b) {
    return r.completed && b < r.values.size() && std::isfinite(r.values[b]) && r.values[b] > 0;
  }
  double better(std::size_t b, double x, double y) const {
    if (std::isnan(x)) return y;
    if (std::isnan(y)) return x;
    return lower(b) ? std::min(x, y) : std::max(x, y);
  }
  // A value as a factor of how much worse than ref it is (+inf: did not complete).
  double factor(std::size_t b, double v, double ref) const {
    if (!(ref > 0) || !std::isfinite(ref)) return NAN;
    if (!std::isfinite(v) || v <= 0) return kInf;
    return (lower(b) ? v / ref : ref / v) * scale(b);
  }
  bool cross(const Analysis& A, int a, int b) const {
    return A.L->group[static_cast<std::size_t>(a)] != A.L->group[static_cast<std::size_t>(b)];
  }
  int slot_of(const Analysis& A, int e) const { return A.L->group_rail[static_cast<std::size_t>(A.L->group[static_cast<std::size_t>(e)])]; }

  // The cross-group reference is the median of every cross-group measurement, which holds
  // while fewer than half of them are slow. With few groups, faults can make most of them
  // slow (4 leaves, one leaf's uplinks and one leaf pair's path slow: 4 of the 6 leaf pairs),
  // and the median is then a slow value every slow pair matches: they would pass. So the
  // reference is also taken per group pair (each pair's median, one vote each): when the
  // better quarter of group pairs is over `ratio` better than the median, the median is not
  // what the fabric does, and the better quarter is the reference. A healthy fabric's group
  // pairs differ by noise, far below `ratio`, and keep the median.
  double unless_most_group_pairs_slow(std::size_t b, double ref, std::vector<std::pair<std::uint64_t, double>> v) const {
    if (!(ref > 0) || !std::isfinite(ref) || v.size() < 2) return ref;
    std::sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<double> medians;
    for (std::size_t i = 0; i < v.size();) {
      std::size_t j = i;
      std::vector<double> one;
      for (; j < v.size() && v[j].first == v[i].first; ++j) one.push_back(v[j].second);
      medians.push_back(better_median(std::move(one), lower(b)));
      i = j;
    }
    if (medians.size() < 3) return ref;  // two group pairs: no majority to speak of
    // The value a quarter of the group pairs are at least as good as.
    if (lower(b)) std::sort(medians.begin(), medians.end());
    else std::sort(medians.begin(), medians.end(), std::greater<>());
    const double quarter = medians[(medians.size() - 1) / 4];
    const double f = factor(b, ref, quarter);  // how much worse the median is than that quarter
    return std::isfinite(f) && f > p.opt_.ratio ? quarter : ref;
  }

  // An endpoint's factor over a set of its results: its best sending and best receiving pair
  // against the reference, the worse of the two, over every basis.
  double endpoint_factor(const Analysis& A, int e, const std::vector<int>& idx, const std::vector<PairResult>& res) const {
    const int slot = slot_of(A, e);
    double worst = NAN;
    for (std::size_t b = 0; b < A.B; ++b) {
      double out = NAN, in = NAN;
      bool any_out = false, any_in = false;
      for (int i : idx) {
        const auto& r = res[static_cast<std::size_t>(i)];
        const double v = done_value(r, b) ? r.values[b] : (lower(b) ? kInf : 0.0);
        if (r.src == e) out = any_out ? better(b, out, v) : v, any_out = true;
        if (r.dst == e) in = any_in ? better(b, in, v) : v, any_in = true;
      }
      const double ref = A.ref_within[static_cast<std::size_t>(slot)][b];
      for (double v : {any_out ? out : NAN, any_in ? in : NAN}) {
        if (std::isnan(v)) continue;
        const double f = factor(b, v, ref);
        if (!std::isnan(f)) worst = std::isnan(worst) ? f : std::max(worst, f);
      }
    }
    return worst;
  }

  // One directed measurement against what its ends explain (cover-phase bests), over every basis.
  double residual(const Analysis& A, const PairResult& r) const {
    const int slot = slot_of(A, r.src);
    const bool x = cross(A, r.src, r.dst);
    double worst = NAN;
    for (std::size_t b = 0; b < A.B; ++b) {
      if (!p.opt_.bases[b].links) continue;
      const double rw = A.ref_within[static_cast<std::size_t>(slot)][b];
      const double rc = A.ref_cross[static_cast<std::size_t>(slot)][b];
      const double base = x && std::isfinite(rc) ? rc : rw;
      if (!(base > 0) || !std::isfinite(base)) continue;
      const auto& s = static_cast<std::size_t>(r.src);
      const auto& d = static_cast<std::size_t>(r.dst);
      double expected;
      if (lower(b)) {
        auto excess = [&](std::size_t e) {
          const double best = better(b, A.best_out[e][b], A.best_in[e][b]);
          return std::isnan(best) ? 0.0 : std::max(0.0, best - rw);
        };
        expected = base + excess(s) + excess(d);
      } else {
        expected = base;
        if (!std::isnan(A.best_out[s][b])) expected = std::min(expected, A.best_out[s][b]);
        if (!std::isnan(A.best_in[d][b])) expected = std::min(expected, A.best_in[d][b]);
      }
      double f;
      if (!std::isfinite(expected) || expected <= 0) f = 1;  // an end that completed nothing explains it
      else if (!done_value(r, b)) f = kInf;
      else f = (lower(b) ? r.values[b] / expected : expected / r.values[b]) * scale(b);
      worst = std::isnan(worst) ? f : std::max(worst, f);
    }
    return std::isnan(worst) ? 1.0 : worst;
  }

  // A pair's slowness over the results in [from, to): per direction its best-explained
  // measurement, then the worse direction. NaN: not measured there.
  double pair_slowness(const Analysis& A, int a, int b, const std::vector<PairResult>& res, int from, int to) const {
    double ab = NAN, ba = NAN;
    A.res_of_pair.each(pair_key(a, b), [&](int i) {
      const auto& r = res[static_cast<std::size_t>(i)];
      if (r.round < from || r.round >= to) return;
      const double f = A.resid[static_cast<std::size_t>(i)];
      double& d = r.src == std::min(a, b) ? ab : ba;
      d = std::isnan(d) ? f : std::min(d, f);
    });
    if (std::isnan(ab)) return ba;
    if (std::isnan(ba)) return ab;
    return std::max(ab, ba);
  }

  Analysis analyze(const std::vector<PairResult>& res) const {
    Analysis A;
    A.L = layout(res, true);
    A.F0 = A.L->follow_from();
    A.B = p.opt_.bases.size();
    const std::size_t n = p.ep_.size(), slots = p.by_rail_.size();
    A.best_out.assign(n, std::vector<double>(A.B, NAN));
    A.best_in = A.best_out;
    A.res_of.resize(n);
    for (std::size_t i = 0; i < res.size(); ++i) {
      const auto& r = res[i];
      if (r.src < 0 || r.dst < 0 || static_cast<std::size_t>(r.src) >= n || static_cast<std::size_t>(r.dst) >= n ||
          r.src == r.dst)
        throw std::invalid_argument("isolation: a result names endpoints " + std::to_string(r.src) + "->" +
                                    std::to_string(r.dst) + " of " + std::to_string(n));
      A.res_of[static_cast<std::size_t>(r.src)].push_back(static_cast<int>(i));
      A.res_of[static_cast<std::size_t>(r.dst)].push_back(static_cast<int>(i));
      A.res_of_pair.v.emplace_back(pair_key(r.src, r.dst), static_cast<int>(i));
      if (r.round >= A.F0) continue;
      for (std::size_t b = 0; b < A.B; ++b) {
        const double v = done_value(r, b) ? r.values[b] : (lower(b) ? kInf : 0.0);
        auto& o = A.best_out[static_cast<std::size_t>(r.src)][b];
        auto& in = A.best_in[static_cast<std::size_t>(r.dst)][b];
        o = better(b, o, v);
        in = better(b, in, v);
      }
    }
    std::sort(A.res_of_pair.v.begin(), A.res_of_pair.v.end());
    // References per rail and basis.
    A.ref_within.assign(slots, std::vector<double>(A.B, NAN));
    A.ref_cross = A.ref_within;
    for (std::size_t slot = 0; slot < slots; ++slot)
      for (std::size_t b = 0; b < A.B; ++b) {
        std::vector<double> bests, crosses;
        for (int e : p.by_rail_[slot]) {
          bests.push_back(A.best_out[static_cast<std::size_t>(e)][b]);
          bests.push_back(A.best_in[static_cast<std::size_t>(e)][b]);
        }
        A.ref_within[slot][b] = better_median(bests, lower(b));
        std::vector<std::pair<std::uint64_t, double>> by_groups;  // {group pair, value}
        for (int e : p.by_rail_[slot])
          for (int i : A.res_of[static_cast<std::size_t>(e)]) {
            const auto& r = res[static_cast<std::size_t>(i)];
            if (r.src == e && r.round < A.F0 && cross(A, r.src, r.dst) && done_value(r, b)) {
              crosses.push_back(r.values[b]);
              by_groups.emplace_back(pair_key(A.L->group[static_cast<std::size_t>(r.src)], A.L->group[static_cast<std::size_t>(r.dst)]),
                                     r.values[b]);
            }
          }
        A.ref_cross[slot][b] = better_median(crosses, lower(b));
        A.ref_cross[slot][b] = unless_most_group_pairs_slow(b, A.ref_cross[slot][b], std::move(by_groups));
      }
    A.resid.resize(res.size());
    for (std::size_t i = 0; i < res.size(); ++i) A.resid[i] = residual(A, res[i]);
    // Suspect endpoints.
    A.score.assign(n, NAN);
    A.suspect.assign(n, false);
    for (std::size_t e = 0; e < n; ++e) {
      std::vector<int> cov;
      for (int i : A.res_of[e])
        if (res[static_cast<std::size_t>(i)].round < A.F0) cov.push_back(i);
      if (cov.empty()) continue;
      A.score[e] = endpoint_factor(A, static_cast<int>(e), cov, res);
      A.suspect[e] = A.score[e] > p.opt_.ratio;
    }
    // Suspect pairs: slow between two ends that are not suspects.
    std::vector<std::pair<double, std::pair<int, int>>> slow_pairs;
    {
      std::vector<std::uint64_t> keys;
      for (const auto& kv : A.res_of_pair.v)
        if (keys.empty() || keys.back() != kv.first) keys.push_back(kv.first);
      for (auto k : keys) {
        const int a = static_cast<int>(k >> 32), b = static_cast<int>(k & 0xffffffffULL);
        // Ends that are suspects too: the residual already takes their own slowness out, so a
        // pair left slow is worth its re-test (the judge's bar for an end is higher than ours,
        // and a pair it blames must have a re-test to lean on).
        const double f = pair_slowness(A, a, b, res, 0, A.F0);
        if (!std::isnan(f) && f > p.opt_.ratio) slow_pairs.push_back({f, {a, b}});
      }
    }
    A.good.assign(n, false);
    {
      std::vector<bool> in_slow(n, false);
      for (const auto& [f, ab] : slow_pairs) in_slow[static_cast<std::size_t>(ab.first)] = in_slow[static_cast<std::size_t>(ab.second)] = true;
      A.fine.assign(n, false);
      for (std::size_t e = 0; e < n; ++e) {
        A.fine[e] = !std::isnan(A.score[e]) && !A.suspect[e];
        A.good[e] = A.fine[e] && !in_slow[e];
      }
    }
    // Items, worst first.
    for (std::size_t e = 0; e < n; ++e)
      if (A.suspect[e]) {
        Item it;
        it.kind = Kind::endpoint;
        it.factor = A.score[e];
        it.endpoint = static_cast<int>(e);
        A.items.push_back(std::move(it));
      }
    std::map<std::pair<int, int>, std::size_t> group_item;
    for (const auto& [f, ab] : slow_pairs) {
      const bool suspect_end = A.suspect[static_cast<std::size_t>(ab.first)] || A.suspect[static_cast<std::size_t>(ab.second)];
      if (!cross(A, ab.first, ab.second) || suspect_end) {
        Item it;
        it.kind = Kind::link;
        it.factor = f;
        it.link = ab;
        it.suspect_end = suspect_end;
        A.items.push_back(std::move(it));
        continue;
      }
      auto gh = std::minmax(A.L->group[static_cast<std::size_t>(ab.first)], A.L->group[static_cast<std::size_t>(ab.second)]);
      auto [pos, fresh] = group_item.try_emplace(gh, A.items.size());
      if (fresh) {
        Item it;
        it.kind = Kind::group_link;
        it.g = gh.first, it.h = gh.second;
        A.items.push_back(std::move(it));
      }
      auto& it = A.items[pos->second];
      it.factor = std::max(it.factor, f);
      it.suspects.push_back(ab);
    }
    // Worst first, pairs with a suspect end (most likely explained by it) after everything else.
    auto rank = [](const Item& x) { return x.suspect_end ? 1 : 0; };
    std::stable_sort(A.items.begin(), A.items.end(), [&](const Item& x, const Item& y) {
      return rank(x) != rank(y) ? rank(x) < rank(y) : x.factor > y.factor;
    });
    int budget = p.opt_.max_suspects;
    for (auto& it : A.items) {
      if (budget-- <= 0) {
        it.over_budget = true;
        continue;
      }
      plan_item(A, it, res);
    }
    return A;
  }

  bool met_in_cover(const Analysis& A, int a, int b, const std::vector<PairResult>& res) const {
    bool met = false;
    A.res_of_pair.each(pair_key(a, b), [&](int i) { met = met || res[static_cast<std::size_t>(i)].round < A.F0; });
    return met;
  }

  // Known-good endpoints of a group, starting at a position that depends on `spread`, so
  // suspects in one group take different partners: those in no slow pair first, then the
  // other non-suspects (on a noisy fabric nearly everyone is in some slow pair).
  std::vector<int> good_of_group(const Analysis& A, int g, int spread) const {
    const auto& m = A.L->members[static_cast<std::size_t>(g)];
    std::vector<int> out, later;
    if (m.empty()) return out;
    const std::size_t start = static_cast<std::size_t>(spread) % m.size();
    for (std::size_t k = 0; k < m.size(); ++k) {
      const int e = m[(start + k) % m.size()];
      if (A.good[static_cast<std::size_t>(e)]) out.push_back(e);
      else if (A.fine[static_cast<std::size_t>(e)]) later.push_back(e);
    }
    out.insert(out.end(), later.begin(), later.end());
    return out;
  }

  void plan_item(Analysis& A, Item& it, const std::vector<PairResult>& res) const {
    if (it.kind == Kind::endpoint) {
      const int e = it.endpoint;
      const int g = A.L->group[static_cast<std::size_t>(e)];
      const int slot = A.L->group_rail[static_cast<std::size_t>(g)];
      std::vector<int> candidates;
      // Its own group first (no inter-group link in the way), partners it has not met first.
      auto own = good_of_group(A, g, e);
      std::vector<int> fresh, met;
      for (int c : own) (met_in_cover(A, e, c, res) ? met : fresh).push_back(c);
      candidates = fresh;
      candidates.insert(candidates.end(), met.begin(), met.end());
      for (int og : A.L->rail_groups[static_cast<std::size_t>(slot)]) {
        if (og == g) continue;
        for (int c : good_of_group(A, og, e)) candidates.push_back(c);
      }
      for (int c : candidates) {
        if (static_cast<int>(it.plan.size()) >= p.opt_.confirm_partners) break;
        it.plan.push_back(std::minmax(e, c));
      }
      if (it.plan.empty()) it.no_plan = "no known-good partner to re-test against";
      return;
    }
    if (it.kind == Kind::link) {
      it.plan.push_back(it.link);
      return;
    }
    for (const auto& s : it.suspects) it.plan.push_back(s);
    if (fast_other(A, it, res, 0, A.F0)) return;  // another pair between the groups passed: no fresh pairs needed
    const auto gg = good_of_group(A, it.g, it.h), gh = good_of_group(A, it.h, it.g);
    std::set<int> used;
    for (const auto& [a, b] : it.suspects) used.insert(a), used.insert(b);
    int fresh = 0;
    for (std::size_t i = 0, j = 0; i < gg.size() && j < gh.size() && fresh < p.opt_.fresh_group_pairs;) {
      if (used.count(gg[i])) { ++i; continue; }
      if (used.count(gh[j])) { ++j; continue; }
      if (met_in_cover(A, gg[i], gh[j], res)) { ++j; continue; }
      it.plan.push_back(std::minmax(gg[i], gh[j]));
      used.insert(gg[i]), used.insert(gh[j]);
      ++fresh, ++i, ++j;
    }
  }

  // Whether a pair between the item's two groups, other than its suspects, with good ends,
  // passed in rounds [from, to).
  bool fast_other(const Analysis& A, const Item& it, const std::vector<PairResult>& res, int from, int to) const {
    const auto [n_fast, n_slow] = others(A, it, res, from, to);
    return n_fast > 0;
  }

  // Pairs between the item's groups other than its suspects, good ends: {passed, slow}.
  std::pair<int, int> others(const Analysis& A, const Item& it, const std::vector<PairResult>& res, int from, int to) const {
    std::set<std::uint64_t> sus;
    for (const auto& [a, b] : it.suspects) sus.insert(pair_key(a, b));
    std::set<std::uint64_t> seen;
    int fast = 0, slow = 0;
    for (int a : A.L->members[static_cast<std::size_t>(it.g)]) {
      if (!A.fine[static_cast<std::size_t>(a)]) continue;
      for (int i : A.res_of[static_cast<std::size_t>(a)]) {
        const auto& r = res[static_cast<std::size_t>(i)];
        const int b = r.src == a ? r.dst : r.src;
        if (r.round < from || r.round >= to || A.L->group[static_cast<std::size_t>(b)] != it.h || !A.fine[static_cast<std::size_t>(b)])
          continue;
        const auto k = pair_key(a, b);
        if (sus.count(k) || !seen.insert(k).second) continue;
        const double f = pair_slowness(A, a, b, res, from, to);
        if (std::isnan(f)) continue;
        (f > p.opt_.ratio ? slow : fast) += 1;
      }
    }
    return {fast, slow};
  }

  // Pairs still to measure, in item order (worst suspect first).
  std::vector<std::pair<int, int>> pending(const Analysis& A, const std::vector<PairResult>& res) const {
    std::vector<std::pair<int, int>> out;
    std::set<std::uint64_t> seen;
    for (const auto& it : A.items)
      for (const auto& pr : it.plan) {
        const auto k = pair_key(pr.first, pr.second);
        if (!seen.insert(k).second) continue;
        bool measured = false;
        A.res_of_pair.each(k, [&](int i) { measured = measured || res[static_cast<std::size_t>(i)].round >= A.F0; });
        if (!measured) out.push_back(pr);
      }
    return out;
  }

  std::string place_of(int a, int b) const {
    return p.ep_[static_cast<std::size_t>(a)].name + "~" + p.ep_[static_cast<std::size_t>(b)].name;
  }

  std::vector<Evidence> evidence_of(const Analysis& A, const std::vector<int>& idx, const std::vector<PairResult>& res,
                                    bool endpoint_view, int e) const {
    std::vector<Evidence> ev;
    for (int i : idx) {
      const auto& r = res[static_cast<std::size_t>(i)];
      Evidence x;
      x.src = r.src, x.dst = r.dst, x.round = r.round, x.follow_up = r.round >= A.F0;
      x.factor = endpoint_view ? endpoint_factor(A, e, {i}, res) : A.resid[static_cast<std::size_t>(i)];
      ev.push_back(x);
    }
    std::stable_sort(ev.begin(), ev.end(), [](const Evidence& a, const Evidence& b) { return a.round < b.round; });
    return ev;
  }

  std::vector<int> pair_results(const Analysis& A, int a, int b) const {
    return A.res_of_pair.of(pair_key(a, b));
  }

  static std::string num(double f) {
    if (!std::isfinite(f)) return "did not complete";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fx", f);
    return buf;
  }

  Finding link_finding(const Analysis& A, const Item& it, std::pair<int, int> ab, const std::vector<PairResult>& res,
                       int rounds) const {
    Finding f;
    f.kind = Kind::link;
    f.link = ab;
    f.place = place_of(ab.first, ab.second);
    f.rail = p.ep_[static_cast<std::size_t>(ab.first)].rail;
    f.factor = pair_slowness(A, ab.first, ab.second, res, 0, A.F0);
    f.evidence = evidence_of(A, pair_results(A, ab.first, ab.second), res, false, -1);
    const double fu = pair_slowness(A, ab.first, ab.second, res, A.F0, rounds);
    if (it.over_budget) {
      f.status = Status::inconclusive, f.why = "slow (" + num(f.factor) + ") and not re-tested: over the re-test budget";
    } else if (std::isnan(fu)) {
      f.status = Status::inconclusive, f.why = "slow (" + num(f.factor) + ") and not re-tested yet";
    } else if (fu > p.opt_.ratio) {
      f.status = Status::blamed, f.why = "slow (" + num(f.factor) + ") and slow again when re-tested (" + num(fu) + ")";
    } else {
      f.status = Status::cleared, f.why = "slow once (" + num(f.factor) + "), the re-test passed (" + num(fu) + ")";
    }
    return f;
  }
};

Planner::Planner(std::vector<Endpoint> endpoints, Options opt) : ep_(std::move(endpoints)), opt_(std::move(opt)) {
  if (opt_.bases.empty()) throw std::invalid_argument("isolation: no basis to compare pairs on");
  if (opt_.infer_basis >= static_cast<int>(opt_.bases.size()))
    throw std::invalid_argument("isolation: infer_basis " + std::to_string(opt_.infer_basis) + " is not a basis");
  if (!(opt_.ratio > 1)) throw std::invalid_argument("isolation: ratio must be above 1");
  if (opt_.group_partners < 1 || opt_.cross_partners < 0 || opt_.group_pair_samples < 0 || opt_.confirm_partners < 1 ||
      opt_.fresh_group_pairs < 1 || opt_.max_suspects < 0 || opt_.max_followup_rounds < 0 || opt_.max_cross_rounds < 0)
    throw std::invalid_argument("isolation: a round or partner count is out of range");
  std::set<std::string> names;
  std::map<int, std::size_t> slot_of_rail;
  for (std::size_t i = 0; i < ep_.size(); ++i) {
    if (ep_[i].name.empty()) throw std::invalid_argument("isolation: endpoint " + std::to_string(i) + " has no name");
    if (!names.insert(ep_[i].name).second) throw std::invalid_argument("isolation: endpoint " + ep_[i].name + " twice");
    auto [it, fresh] = slot_of_rail.try_emplace(ep_[i].rail, 0);
    (void)it, (void)fresh;
  }
  std::size_t k = 0;
  for (auto& [rail, slot] : slot_of_rail) slot = k++;
  by_rail_.resize(slot_of_rail.size());
  for (std::size_t i = 0; i < ep_.size(); ++i) by_rail_[slot_of_rail[ep_[i].rail]].push_back(static_cast<int>(i));
  for (auto& v : by_rail_)
    std::sort(v.begin(), v.end(), [&](int a, int b) { return natural_less(ep_[static_cast<std::size_t>(a)].name, ep_[static_cast<std::size_t>(b)].name); });
  for (const auto& e : ep_) need_infer_ = need_infer_ || (e.group.empty() && opt_.infer_basis >= 0);
  // Without inference the groups and the cover schedule's shape never change: computed once.
  if (!need_infer_) fixed_layout_ = std::make_shared<const Layout>(Impl(*this).make_layout({}, true));
}

int Planner::max_rounds(const std::vector<PairResult>& results) const {
  Impl im(*this);
  const bool infer_done = Impl::rounds_done(results) >= infer_rounds();
  if (need_infer_ && !infer_done)
    return infer_rounds() + opt_.group_partners + std::max(opt_.cross_partners, opt_.max_cross_rounds) + opt_.max_followup_rounds;
  return im.layout(results, true)->follow_from() + opt_.max_followup_rounds;
}

Grouping Planner::groups(const std::vector<PairResult>& results) const {
  Impl im(*this);
  const auto Lp = im.layout(results, Impl::rounds_done(results) >= infer_rounds());
  const Layout& L = *Lp;
  Grouping g;
  for (std::size_t e = 0; e < ep_.size(); ++e) {
    g.group.push_back(L.group_name[static_cast<std::size_t>(L.group[e])]);
    g.inferred.push_back(L.inferred[e]);
  }
  return g;
}

Step Planner::next(const std::vector<PairResult>& results) const {
  Impl im(*this);
  const int k = Impl::rounds_done(results);
  Step s;
  s.round = k;
  if (k < infer_rounds()) {
    s.phase = Phase::infer;
    s.pairs = im.infer_round(k);
    if (!s.pairs.empty()) return s;
    // Nothing to pair (a rail of one): go on as if the round was measured.
  }
  const auto Lp = im.layout(results, true);
  const Layout& L = *Lp;
  for (int c = std::max(0, k - L.infer); c < L.within + L.cross; ++c) {
    // A cover round may be empty for some rails (a group of one); it is never empty for all
    // unless there is nothing to pair at all, in which case move to the follow-ups.
    s.phase = Phase::cover;
    s.round = L.infer + c;
    if (s.round < k) continue;
    s.pairs = im.cover_round(L, c);
    if (!s.pairs.empty()) return s;
  }
  s.round = std::max(k, L.follow_from());
  if (s.round - L.follow_from() >= opt_.max_followup_rounds) return Step{Phase::done, s.round, {}};
  const auto A = im.analyze(results);
  std::vector<bool> busy(ep_.size(), false);
  s.phase = Phase::follow_up;
  s.pairs.clear();
  for (auto [a, b] : im.pending(A, results)) {
    if (busy[static_cast<std::size_t>(a)] || busy[static_cast<std::size_t>(b)]) continue;
    busy[static_cast<std::size_t>(a)] = busy[static_cast<std::size_t>(b)] = true;
    s.pairs.push_back({a, b});
  }
  if (s.pairs.empty()) s.phase = Phase::done;
  std::sort(s.pairs.begin(), s.pairs.end());
  return s;
}

Verdict Planner::verdict(const std::vector<PairResult>& results) const {
  Impl im(*this);
  Verdict v;
  v.rounds = Impl::rounds_done(results);
  const auto A = im.analyze(results);
  const double ratio = opt_.ratio;
  const int rounds = std::max(v.rounds, A.F0);
  for (const auto& it : A.items) {
    if (it.kind == Kind::endpoint) {
      Finding f;
      f.kind = Kind::endpoint;
      f.endpoint = it.endpoint;
      f.place = ep_[static_cast<std::size_t>(it.endpoint)].name;
      f.rail = ep_[static_cast<std::size_t>(it.endpoint)].rail;
      f.factor = it.factor;
      const auto& all = A.res_of[static_cast<std::size_t>(it.endpoint)];
      f.evidence = im.evidence_of(A, all, results, true, it.endpoint);
      std::vector<int> fu;
      std::set<int> partners;
      for (int i : all)
        if (results[static_cast<std::size_t>(i)].round >= A.F0) {
          const auto& r = results[static_cast<std::size_t>(i)];
          const int other = r.src == it.endpoint ? r.dst : r.src;
          if (!A.fine[static_cast<std::size_t>(other)]) continue;  // only known-good partners confirm
          fu.push_back(i);
          partners.insert(other);
        }
      const double ff = fu.empty() ? NAN : im.endpoint_factor(A, it.endpoint, fu, results);
      if (it.over_budget) {
        f.status = Status::inconclusive, f.why = "best pair " + Impl::num(f.factor) + " the reference; not re-tested: over the re-test budget";
      } else if (!it.no_plan.empty()) {
        f.status = Status::inconclusive, f.why = "best pair " + Impl::num(f.factor) + " the reference; " + it.no_plan;
      } else if (std::isnan(ff)) {
        f.status = Status::inconclusive, f.why = "best pair " + Impl::num(f.factor) + " the reference; not re-tested yet";
      } else if (ff > ratio) {
        f.status = Status::blamed;
        f.why = "best pair " + Impl::num(f.factor) + " the reference, and " + Impl::num(ff) + " in re-tests with " +
                std::to_string(partners.size()) + " known-good partner(s)";
      } else {
        f.status = Status::cleared;
        f.why = "best pair " + Impl::num(f.factor) + " the reference, but a re-test with a known-good partner passed (" +
                Impl::num(ff) + ")";
      }
      v.findings.push_back(std::move(f));
      continue;
    }
    if (it.kind == Kind::link) {
      Finding f = im.link_finding(A, it, it.link, results, rounds);
      // A pair with a blamed end is that end's (the judge's rule too): neither blamed on the
      // pair nor left inconclusive for want of its own re-test.
      for (int e : {it.link.first, it.link.second})
        for (const auto& g : v.findings)
          if (f.status != Status::cleared && g.kind == Kind::endpoint && g.endpoint == e && g.status == Status::blamed) {
            f.status = Status::cleared;
            f.why += "; not blamed on the pair: its end " + g.place + " is blamed";
          }
      v.findings.push_back(std::move(f));
      continue;
    }
    // Two groups: bisect between "every pair between them is slow" (the link between the
    // groups) and "one pair is" (that pair, or a flaky measurement).
    Finding f;
    f.kind = Kind::group_link;
    const auto& gn = A.L->group_name;
    f.groups = {gn[static_cast<std::size_t>(it.g)], gn[static_cast<std::size_t>(it.h)]};
    if (natural_less(f.groups.second, f.groups.first)) std::swap(f.groups.first, f.groups.second);
    f.place = f.groups.first + "~" + f.groups.second;
    f.rail = ep_[static_cast<std::size_t>(it.suspects.front().first)].rail;
    f.factor = it.factor;
    std::vector<int> idx;
    for (const auto& pr : it.plan)
      for (int i : im.pair_results(A, pr.first, pr.second)) idx.push_back(i);
    f.evidence = im.evidence_of(A, idx, results, false, -1);
    const auto [fast, slow] = im.others(A, it, results, 0, rounds);
    const auto [fu_fast, fu_slow] = im.others(A, it, results, A.F0, rounds);
    int retested = 0, retest_fast = 0;
    for (const auto& s : it.suspects) {
      const double fu = im.pair_slowness(A, s.first, s.second, results, A.F0, rounds);
      if (std::isnan(fu)) continue;
      ++retested;
      retest_fast += fu <= ratio;
    }
    const bool all_retests_fast = retested == static_cast<int>(it.suspects.size()) && retest_fast == retested;
    bool links_apart = false;
    if (it.over_budget) {
      f.status = Status::inconclusive, f.why = "pairs between the groups slow (" + Impl::num(f.factor) + "); not re-tested: over the re-test budget";
    } else if (fast > 0) {
      f.status = Status::cleared;
      f.why = std::to_string(fast) + " other pair(s) between the groups passed, so the link between them is not to blame";
      links_apart = true;
    } else if ((fu_fast + fu_slow > 0 || retested - retest_fast >= 2) && !all_retests_fast) {
      // Confirmed by fresh pairs, or (when every endpoint of the two groups is already in a
      // slow pair, so none is fresh) by two or more different pairs slow again.
      f.status = Status::blamed;
      f.why = "both groups pass alone; every pair between them is slow: " + std::to_string(it.suspects.size()) +
              " in the first pass (" + std::to_string(retested - retest_fast) + " slow again when re-tested) and " +
              std::to_string(fu_slow) + " fresh pair(s) of known-good endpoints";
    } else if (fu_fast + fu_slow == 0 && all_retests_fast) {
      f.status = Status::cleared;
      f.why = "the slow pair(s) between the groups passed when re-tested";
      links_apart = true;
    } else {
      f.status = Status::inconclusive;
      f.why = all_retests_fast ? "the slow pairs passed when re-tested but fresh pairs between the groups were slow"
                               : "pairs between the groups slow (" + Impl::num(f.factor) + "); not confirmed by fresh pairs yet";
    }
    v.findings.push_back(std::move(f));
    if (links_apart)
      for (const auto& s : it.suspects) v.findings.push_back(im.link_finding(A, it, s, results, rounds));
  }
  return v;
}

}  // namespace ga::isolation
