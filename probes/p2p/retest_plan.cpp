#include "probes/p2p/retest_plan.hpp"

#include <algorithm>
#include <map>
#include <set>


namespace ga::p2p {

double better_median(std::vector<double> v, bool lower_is_better) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  if (v.empty()) return NAN;
  if (lower_is_better) std::sort(v.begin(), v.end());
  else std::sort(v.begin(), v.end(), std::greater<>());
  return v[(v.size() - 1) / 2];
}

namespace {

struct Endpoint {
  double lat = INFINITY;           // best latency over its pairs, either direction
  double tail = INFINITY;          // best p99 over its pairs (INFINITY: none measured)
  double out = 0, in = 0;          // best bandwidth sending, receiving
  int rail = 0;
  // Typical pairs (the better middle of its pairs): what a healthy pair with this end gives.
  std::vector<double> lats, outs, ins;
  double typ_lat = INFINITY, typ_out = 0, typ_in = 0;
  double events = 0, exchanges = 0;  // tail events over its pairs, either direction
};

double worse_lat(double x) { return std::isnan(x) ? INFINITY : x; }
double worse_bw(double x) { return std::isnan(x) ? 0 : x; }

}  // namespace

RetestPlan plan_retests(const std::vector<DirectedResult>& all, const RetestOptions& opt) {
  std::vector<DirectedResult> results, intra;
  for (const auto& r : all) (r.intra ? intra : results).push_back(r);
  std::map<int, Endpoint> ep;
  bool any_tail = false;
  for (const auto& r : results) {
    for (int e : {r.src, r.dst}) {
      auto& x = ep[e];
      x.rail = r.rail;
      x.lat = std::min(x.lat, worse_lat(r.latency));
      if (!std::isnan(r.tail)) x.tail = std::min(x.tail, r.tail), any_tail = true;
      x.events += r.events, x.exchanges += r.exchanges;
    }
    ep[r.src].out = std::max(ep[r.src].out, worse_bw(r.bw));
    ep[r.dst].in = std::max(ep[r.dst].in, worse_bw(r.bw));
    ep[r.src].lats.push_back(worse_lat(r.latency));
    ep[r.dst].lats.push_back(worse_lat(r.latency));
    ep[r.src].outs.push_back(worse_bw(r.bw));
    ep[r.dst].ins.push_back(worse_bw(r.bw));
  }
  std::map<int, std::pair<double, double>> typ_ref;  // rail -> typical {latency, bw}
  {
    std::map<int, std::vector<double>> lat, bw;
    for (auto& [e, x] : ep) {
      x.typ_lat = better_median(x.lats, true);
      x.typ_out = better_median(x.outs, false);
      x.typ_in = better_median(x.ins, false);
      lat[x.rail].push_back(x.typ_lat);
      bw[x.rail].push_back(x.typ_out);
      bw[x.rail].push_back(x.typ_in);
    }
    for (auto& [rail, v] : lat) typ_ref[rail] = {better_median(v, true), better_median(bw[rail], false)};
  }
  std::map<int, std::pair<double, double>> ref;  // rail -> {latency, bw}
  std::map<int, double> tail_ref;                 // rail -> p99
  {
    std::map<int, std::vector<double>> lat, bw, tail;
    for (const auto& [e, x] : ep) {
      lat[x.rail].push_back(x.lat);
      bw[x.rail].push_back(x.out);
      bw[x.rail].push_back(x.in);
      if (std::isfinite(x.tail)) tail[x.rail].push_back(x.tail);
    }
    for (auto& [rail, v] : lat) ref[rail] = {better_median(v, true), better_median(bw[rail], false)};
    for (auto& [rail, v] : tail) tail_ref[rail] = better_median(v, true);
  }
  // How much worse than the reference, as one factor >= 1 (infinite when it never completed).
  auto lat_factor = [&](double v, int rail) { return ref[rail].first > 0 ? v / ref[rail].first : 1.0; };
  auto bw_factor = [&](double v, int rail) { return v > 0 ? ref[rail].second / v : INFINITY; };
  // The tail counts only past tail_ratio, scaled onto the same scale as the median's ratio.
  auto tail_factor = [&](const Endpoint& x) {
    if (!any_tail || !std::isfinite(x.tail) || !(tail_ref[x.rail] > 0)) return 1.0;
    const double f = x.tail / tail_ref[x.rail];
    return f > opt.tail_ratio ? f / opt.tail_ratio * opt.ratio : 1.0;
  };
  auto endpoint_factor = [&](const Endpoint& x) {
    return std::max({lat_factor(x.lat, x.rail), bw_factor(x.out, x.rail), bw_factor(x.in, x.rail), tail_factor(x)});
  };

  RetestPlan plan;
  std::vector<std::pair<double, int>> bad_ep;
  std::set<int> healthy_set;
  for (const auto& [e, x] : ep) {
    const double f = endpoint_factor(x);
    if (f > opt.ratio) bad_ep.emplace_back(f, e);
    else healthy_set.insert(e);
  }
  // Links as the judge sees them (suites/fabric_analysis.cpp): against the typical pair, what
  // is left after each end's own slowness is accounted for, whatever the ends' health. A link
  // with a slow end is then about 1 (its end explains it), and a link the judge could blame is
  // re-tested even when one of its ends is a little slow itself.
  std::vector<std::tuple<double, int, int>> bad_link;
  for (const auto& r : results) {
    const Endpoint& s = ep[r.src];
    const Endpoint& d = ep[r.dst];
    const auto [ref_lat, ref_bw] = typ_ref[r.rail];
    double f = 1;
    if (ref_lat > 0 && std::isfinite(ref_lat)) {
      const double expected =
          ref_lat + std::max(0.0, s.typ_lat - ref_lat) + std::max(0.0, d.typ_lat - ref_lat);  // inf: an end reached nobody
      if (std::isfinite(expected)) f = std::max(f, worse_lat(r.latency) / expected);
    }
    if (ref_bw > 0) {
      const double expected = std::min({ref_bw, s.typ_out, d.typ_in});
      if (expected > 0) f = std::max(f, worse_bw(r.bw) > 0 ? expected / r.bw : INFINITY);
    }
    if (f > opt.ratio) bad_link.emplace_back(f, r.src, r.dst);
  }
  std::sort(bad_ep.begin(), bad_ep.end(), std::greater<>());
  std::sort(bad_link.begin(), bad_link.end(), std::greater<>());

  // Pairs inside hosts, against the same pairs of the other hosts (both directions, best of,
  // as the judge's p2p.intra_slowdown): only the pair itself can confirm a slow one.
  std::vector<std::tuple<double, int, int>> bad_intra;
  {
    struct Best { double lat = INFINITY, bw = 0; };
    std::map<std::pair<int, int>, Best> best;
    for (const auto& r : intra) {
      auto& b = best[std::minmax(r.src, r.dst)];
      b.lat = std::min(b.lat, worse_lat(r.latency));
      b.bw = std::max(b.bw, worse_bw(r.bw));
    }
    std::vector<double> lat, bw;
    for (const auto& [k, b] : best) lat.push_back(b.lat), bw.push_back(b.bw);
    const double rl = better_median(lat, true), rb = better_median(bw, false);
    if (best.size() >= 2)
      for (const auto& [k, b] : best) {
        const double f = std::max(rl > 0 ? b.lat / rl : 1.0, b.bw > 0 ? rb / b.bw : INFINITY);
        if (f > opt.ratio) bad_intra.emplace_back(f, k.first, k.second);
      }
    std::sort(bad_intra.begin(), bad_intra.end(), std::greater<>());
  }

  // Healthy partners, best first, per rail; each suspect takes the next ones in turn so the
  // re-tests spread over the healthy hosts.
  std::map<int, std::vector<int>> healthy;
  {
    std::vector<std::pair<double, int>> h;
    for (int e : healthy_set) {
      const auto& x = ep[e];
      h.emplace_back(endpoint_factor(x), e);
    }
    std::sort(h.begin(), h.end());
    for (auto [f, e] : h) healthy[ep[e].rail].push_back(e);
  }
  std::vector<std::pair<int, int>> pairs;
  std::set<std::pair<int, int>> seen;
  // The tail events of a pair, both directions: what a link or a pair inside a host showed.
  std::map<std::pair<int, int>, std::pair<double, double>> pair_events;  // {a, b} -> {events, exchanges}
  for (const auto& r : all) {
    auto& pe = pair_events[std::minmax(r.src, r.dst)];
    pe.first += r.events, pe.second += r.exchanges;
  }
  // `length`: the re-test this pair makes of a suspect; the longest a pair is asked for wins.
  auto add = [&](int a, int b, const isolation::RetestLength& length) {
    auto p = std::minmax(a, b);
    if (seen.insert(p).second) pairs.push_back(p);
    if (length.planned > 0 && length.planned > plan.lengths[p].planned) plan.lengths[p] = length;
  };
  // One list, worst first, whatever the kind: a link that never completed outranks a host a
  // little slow, so the re-tests go where the judge's suspicion is strongest.
  enum Kind { endpoint, link, inside };
  std::vector<std::tuple<double, Kind, int, int>> all_suspects;
  for (auto [f, e] : bad_ep) all_suspects.emplace_back(f, endpoint, e, e);
  for (auto [f, a, b] : bad_link) all_suspects.emplace_back(f, link, a, b);
  for (auto [f, a, b] : bad_intra) all_suspects.emplace_back(f, inside, a, b);
  std::stable_sort(all_suspects.begin(), all_suspects.end(),
                   [](const auto& x, const auto& y) { return std::get<0>(x) > std::get<0>(y); });
  if (static_cast<int>(all_suspects.size()) > opt.max_suspects) all_suspects.resize(static_cast<std::size_t>(opt.max_suspects));
  // Where every endpoint of a rail is a suspect (a busy machine spreads every figure), the
  // least suspect others stand in as partners: a re-test against them still tells a host slow
  // with everyone from one that was unlucky once.
  std::map<int, std::vector<int>> fallback;
  {
    std::vector<std::pair<double, int>> all_eps;
    for (const auto& [e, x] : ep) all_eps.emplace_back(endpoint_factor(x), e);
    std::sort(all_eps.begin(), all_eps.end());
    for (auto [f, e] : all_eps) fallback[ep[e].rail].push_back(e);
  }
  std::map<int, std::size_t> next;
  for (auto [f, kind, a, b] : all_suspects) {
    if (kind == endpoint) {
      plan.suspect_endpoints.push_back(a);
      const int rail = ep[a].rail;
      const isolation::RetestLength len = isolation::retest_length(ep[a].events, ep[a].exchanges, opt.sizing);
      if (!healthy[rail].empty()) {
        auto& h = healthy[rail];
        for (int k = 0; k < opt.partners && k < static_cast<int>(h.size()); ++k) add(a, h[next[rail]++ % h.size()], len);
      } else {
        int taken = 0;
        for (int o : fallback[rail])
          if (o != a && taken < opt.partners) add(a, o, len), ++taken;
      }
    } else {
      (kind == link ? plan.suspect_links : plan.suspect_intra).emplace_back(a, b);
      const auto [ev, ex] = pair_events[std::minmax(a, b)];
      add(a, b, isolation::retest_length(ev, ex, opt.sizing));
    }
  }
  // Greedy edge colouring: each pair in the first round where both ends are free.
  std::vector<std::set<int>> busy;
  for (auto [a, b] : pairs) {
    std::size_t r = 0;
    while (r < busy.size() && (busy[r].count(a) || busy[r].count(b))) ++r;
    if (r == busy.size()) busy.emplace_back(), plan.rounds.emplace_back();
    busy[r].insert(a), busy[r].insert(b);
    plan.rounds[r].emplace_back(a, b);
  }
  return plan;
}

}  // namespace ga::p2p
