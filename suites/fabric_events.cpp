// Evidence that adds up instead of a vote (issue 33). A host that drops a few packets in a
// hundred is slow only now and then: one re-test that happens to miss a loss made the old rule
// ("slow in the first pass but not in 7 of 8 re-tests, so not blamed") pass it. Here every
// latency measurement's tail events (round trips over tail_event_factor x its median, and a
// measurement that did not complete) are added up per endpoint and per link over the first
// pass and every re-test, and held against what the rest of the cluster shows on as many round
// trips:
//   rate of the rest   r = (events + 1) / (round trips + 1) over the pairs of neither the place
//                      nor a place already found to stand out (the one added event: a rest that
//                      showed none still has a rate, so one event is never infinitely surprising)
//   the test           P(N >= k), N ~ Poisson(kTailTolerance x n x r), k and n the place's own
//                      events and round trips (Poisson for a binomial of small rate and large
//                      n): how likely k events are even if the place's healthy rate were
//                      kTailTolerance times the rest's (hosts are not identical: on fake hosts
//                      the first host's rank 0 also writes the journal)
//   the correction     x the number of endpoints and links tested (Bonferroni), at most 1.
// Worst first: an endpoint whose corrected p is under kTailStandOut stands out, and its pairs are
// then taken out of its peers' counts (a lossy host's peers see its losses) and out of the rest,
// and the others are tested again, until none more stands out. Each end is tested without its
// one worst link, which is left to the link test (a lossy cable is not its ends' fault). Links are tested last, each
// without the pairs of a standing-out end (explained by it). Pure over the metrics, so the live
// run and `gpuaccept judge DIR` agree.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#include "base/poisson.hpp"
#include "base/quantity.hpp"
#include "suites/fabric_analysis.hpp"
#include "suites/judge_parts.hpp"

namespace ga::judging {

std::string tail_key(const std::string& place, const std::string& path, const std::string& rail) {
  return place + "|" + path + "|" + rail;
}

std::string param_text(const Params& p, const char* key, const std::string& def) {
  if (!p.contains(key)) return def;
  const auto& v = p[key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

namespace {

struct Count {
  double events = 0, exchanges = 0, first_events = 0, first_exchanges = 0;
  void add(const Count& o) {
    events += o.events, exchanges += o.exchanges, first_events += o.first_events, first_exchanges += o.first_exchanges;
  }
};

// The re-test measurements of a pair sized from a rate (p2p.planned_exchanges, issue 33).
struct Sized {
  int measurements = 0;
  double planned = 0, ran = 0;     // round trips: the most one asked for; all they made
  double rate = NAN, p_seen = NAN, cap_s = 0, events_wanted = 0;
  bool capped = false;
  void add(const Sized& o) {
    measurements += o.measurements, ran += o.ran;
    if (o.planned > planned) planned = o.planned, rate = o.rate, p_seen = o.p_seen, cap_s = o.cap_s,
                             events_wanted = o.events_wanted, capped = o.capped;
  }
};

struct PairCount {
  std::string a, b, place;
  Count c;
  Sized sized;
};

// Named apart from fabric_analysis.cpp's Group: the fuzz tree's unity build compiles both together.
struct EventGroup {
  std::string path, rail;
  std::map<std::pair<std::string, std::string>, PairCount> pairs;  // {a, b}, a < b
};

// The host's TCP counters during p2p (probes/harness/net_watch.cpp) beside the median host's:
// the direct trace of loss that the tail events infer (a host that drops what it sends
// retransmits; one that drops what it receives makes its peers retransmit). Evidence, not a
// rule: on fake hosts a clean run retransmits 0.3-1.3% of its segments.
std::map<std::string, std::string> tcp_counters_in_words(const base::ByName<Metric>& by_name) {
  const std::pair<const char*, const char*> shown[] = {{"net.tcp.retrans_segs", "segments retransmitted"},
                                                      {"net.tcp.timeouts", "retransmission timeouts"}};
  std::map<std::string, std::map<std::string, double>> by_host;  // host -> metric -> value
  for (const auto& [metric, words] : shown)
    for (const Metric* m : base::items_named(by_name, {metric}))
      if (m->value && param_text(m->params, "during", "") == "p2p") by_host[m->place][metric] += *m->value;
  std::map<std::string, std::string> text;
  for (const auto& [metric, words] : shown) {
    std::vector<double> all;
    for (const auto& [h, v] : by_host)
      if (auto it = v.find(metric); it != v.end()) all.push_back(it->second);
    if (all.empty()) continue;
    std::sort(all.begin(), all.end());
    const double median = all[(all.size() - 1) / 2];
    for (const auto& [h, v] : by_host)
      if (auto it = v.find(metric); it != v.end())
        text[h] += std::string(text[h].empty() ? "" : ", ") + base::format_number(it->second) + " " + words + " (host median " +
                   base::format_number(median) + ")";
  }
  for (auto& [h, t] : text) t = "its TCP counters during p2p: " + t;
  return text;
}

// How likely the re-tests show as few tail events as they did, were the first pass's rate
// still there: P(N <= k2), N ~ Poisson(n2 x r1), r1 = the first pass's events per round trip,
// k2 and n2 the re-tests' events and round trips. 1 where the first pass saw none.
double retest_p(const TailStanding& t) {
  if (!(t.first_events > 0) || !(t.first_exchanges > 0)) return 1;
  const double n2 = t.exchanges - t.first_exchanges, k2 = t.events - t.first_events;
  if (!(n2 > 0)) return 1;
  return base::poisson_lower_tail(k2, n2 * t.first_events / t.first_exchanges);
}

// The re-tests' length as the probe chose it, in words (nothing where none was sized).
std::string sizing_in_words(const Sized& z) {
  if (z.measurements == 0) return "";
  auto n = [](double x) { return base::format_number(x); };
  std::string s = "re-tests sized ";
  if (std::isfinite(z.rate)) {
    char p[32];
    std::snprintf(p, sizeof p, "%.3g", z.p_seen);
    s += "from its first-pass rate (" + n(z.rate * 100) + "% of round trips): " + n(z.planned) + " round trips per measurement, so a fault still present shows " +
         n(z.events_wanted) + " event(s) with probability " + p + (z.capped ? " (cut by retest_max_exchanges)" : "");
  } else {
    s += "by min_exchanges: " + n(z.planned) + " round trips per measurement";
  }
  return s + ", at most " + n(z.cap_s) + " s each; " + std::to_string(z.measurements) + " measurement(s) ran " + n(z.ran) +
         " round trips";
}

}  // namespace

void analyze_tail_events(const base::ByName<Metric>& by_name, FabricAnalysis& a) {
  // (metric, place, params without the metric) -> value: the two counts of one measurement.
  std::map<std::string, EventGroup> groups;
  std::map<std::string, TailStanding> inside;  // tail_key -> the counts of a pair inside a host
  // Sized measurements, by place|direction|pass|path|rail, and what they ran (p2p.exchanges).
  std::map<std::string, Sized> sized;
  auto measurement_key = [](const Metric& m) {
    return m.place + "|" + param_text(m.params, "direction", "") + "|" + param_text(m.params, "pass", "1") + "|" +
           param_text(m.params, "path", "inter") + "|" + param_text(m.params, "rail", "-") + "|" +
           param_text(m.params, "size", "");
  };
  for (const Metric* m : base::items_named(by_name, {"p2p.planned_exchanges"})) {
    if (!m->value) continue;
    Sized z;
    z.measurements = 1, z.planned = *m->value;
    auto num = [&](const char* k) { return m->params.contains(k) && m->params[k].is_number() ? m->params[k].get<double>() : NAN; };
    z.rate = num("rate"), z.p_seen = num("p_seen"), z.cap_s = num("time_cap_s"), z.events_wanted = num("events");
    z.capped = m->params.contains("capped") && m->params["capped"].is_boolean() && m->params["capped"].get<bool>();
    sized[measurement_key(*m)] = z;
  }
  for (const Metric* m : base::items_named(by_name, {"p2p.exchanges", "p2p.tail_events"})) {
    if (!m->value) continue;
    const auto& p = m->params;
    const std::string dir = param_text(p, "direction", "");
    const auto arrow = dir.find("->");
    if (arrow == std::string::npos) continue;
    const std::string path = param_text(p, "path", "inter");
    const std::string rail = param_text(p, "rail", "-");
    const bool first = param_text(p, "pass", "1") == "1";
    if (path != "inter") {
      // Pairs inside a host: one pair each, nothing to hold it against but itself (its re-tests).
      auto& t = inside[tail_key(m->place, path, rail)];
      t.inside = true;
      if (m->metric == "p2p.exchanges") t.exchanges += *m->value, t.first_exchanges += first ? *m->value : 0;
      else t.events += *m->value, t.first_events += first ? *m->value : 0;
      continue;
    }
    auto& g = groups[path + "|" + rail];
    g.path = path, g.rail = rail;
    std::string x = dir.substr(0, arrow), y = dir.substr(arrow + 2);
    if (y < x) std::swap(x, y);
    auto& pc = g.pairs[{x, y}];
    pc.a = x, pc.b = y, pc.place = m->place;
    const double v = *m->value;
    if (m->metric == "p2p.exchanges") {
      pc.c.exchanges += v, pc.c.first_exchanges += first ? v : 0;
      // Only runs with sized re-tests build the key: at 4096 hosts most measurements have none.
      if (auto it = sized.empty() ? sized.end() : sized.find(measurement_key(*m)); it != sized.end()) {
        Sized z = it->second;
        z.ran = v;
        pc.sized.add(z);
      }
    }
    else pc.c.events += v, pc.c.first_events += first ? v : 0;
  }
  for (auto& [k, t] : inside) {
    t.retest_p = retest_p(t);
    a.tails[k] = t;
  }
  const auto counters = tcp_counters_in_words(by_name);
  // Not a structured binding: the lambdas below capture g, which clang 14 (the fuzz build) refuses.
  for (auto& group : groups) {
    auto& g = group.second;
    std::set<std::string> ends;
    for (const auto& [k, pc] : g.pairs) ends.insert(pc.a), ends.insert(pc.b);
    const int tests = static_cast<int>(ends.size() + g.pairs.size());
    std::set<std::string> out;  // ends that stand out, in the order found
    // The counts of `e` without pairs whose other end stands out, and of the rest: pairs of
    // neither `e` nor a standing-out end.
    // Its link with the most events is set aside (`worst`): a lossy cable between two healthy
    // hosts puts all its events on one link, a lossy host spreads them over all of its links,
    // so an end stands out only on what its other links show, and the cable is left to the
    // link test.
    auto counts = [&](const std::string& e, Count& own, Count& rest, const PairCount** worst) {
      *worst = nullptr;
      for (const auto& [k, pc] : g.pairs) {
        const bool mine = pc.a == e || pc.b == e;
        const std::string& other = pc.a == e ? pc.b : pc.a;
        if (mine) {
          if (out.count(other)) continue;
          own.add(pc.c);
          if (!*worst || pc.c.events > (*worst)->c.events) *worst = &pc;
        } else if (!out.count(pc.a) && !out.count(pc.b)) {
          rest.add(pc.c);
        }
      }
      if (*worst && (*worst)->c.events > 0) {
        const Count& w = (*worst)->c;
        own.events -= w.events, own.exchanges -= w.exchanges;
        own.first_events -= w.first_events, own.first_exchanges -= w.first_exchanges;
      } else {
        *worst = nullptr;
      }
    };
    auto standing = [&](const Count& own, const Count& rest) {
      TailStanding t;
      t.events = own.events, t.exchanges = own.exchanges;
      t.first_events = own.first_events, t.first_exchanges = own.first_exchanges;
      t.rest_rate = (rest.events + 1) / (rest.exchanges + 1);
      t.expected = own.exchanges * t.rest_rate;
      t.tests = tests;
      t.p = own.events > 0 ? std::min(1.0, tests * base::poisson_upper_tail(own.events, kTailTolerance * t.expected)) : 1.0;
      // Nothing else measured (two hosts, one link): no rate to hold its events against, so
      // they are neither confirmed nor cleared (no metric; explain_fabric_verdicts reads it).
      t.no_rest = own.events > 0 && rest.exchanges <= 0;
      t.retest_p = retest_p(t);
      return t;
    };
    auto end_standing = [&](const std::string& e) {
      Count own, rest;
      const PairCount* aside = nullptr;
      counts(e, own, rest, &aside);
      TailStanding t = standing(own, rest);
      if (aside) t.set_aside = aside->place, t.set_aside_events = aside->c.events;
      // Its only link set aside (two hosts): nothing of its own left to test, and the link's
      // events are not cleared by that.
      if (aside && own.exchanges <= 0) t.no_rest = true;
      return t;
    };
    std::map<std::string, TailStanding> by_end;
    for (;;) {
      std::string worst;
      double worst_p = 2;
      for (const auto& e : ends) {
        if (out.count(e)) continue;
        by_end[e] = end_standing(e);
        if (by_end[e].p < worst_p) worst_p = by_end[e].p, worst = e;
      }
      if (worst.empty() || worst_p >= kTailStandOut) break;
      by_end[worst].stands_out = true;
      out.insert(worst);
    }
    // The ones that stand out, each against the final rest (its peers that stand out left out).
    for (const auto& e : out) {
      TailStanding t = end_standing(e);
      t.stands_out = true;
      by_end[e] = t;
    }
    Params derived = {{"path", g.path}};
    if (g.rail != "-") derived = derived.with("rail", std::stoll(g.rail));
    for (auto& [e, t] : by_end) {
      if (auto it = counters.find(e); it != counters.end()) t.counters = it->second;
      Sized z;
      for (const auto& [k, pc] : g.pairs)
        if (pc.a == e || pc.b == e) z.add(pc.sized);
      t.sizing = sizing_in_words(z);
      a.tails[tail_key(e, g.path, g.rail)] = t;
      if (t.no_rest) continue;
      Metric m;
      m.metric = "p2p.host_tail_p", m.probe = "p2p", m.place = e, m.params = derived, m.unit = "";
      m.value = m.min = m.max = t.p;
      m.count = static_cast<int>(t.exchanges);
      a.derived.push_back(std::move(m));
    }
    Count all_rest;
    for (const auto& [k, pc] : g.pairs)
      if (!out.count(pc.a) && !out.count(pc.b)) all_rest.add(pc.c);
    for (const auto& [k, pc] : g.pairs) {
      TailStanding t;
      if (out.count(pc.a) || out.count(pc.b)) {
        t.explained_by = out.count(pc.a) ? pc.a : pc.b;
        t.events = pc.c.events, t.exchanges = pc.c.exchanges;
        a.tails[tail_key(pc.place, g.path, g.rail)] = t;
        continue;  // no test of its own: its end's losses are its events
      }
      Count rest = all_rest;
      rest.events -= pc.c.events, rest.exchanges -= pc.c.exchanges;
      t = standing(pc.c, rest);
      t.sizing = sizing_in_words(pc.sized);
      t.stands_out = !t.no_rest && t.p < kTailStandOut;
      a.tails[tail_key(pc.place, g.path, g.rail)] = t;
      if (t.no_rest) continue;
      Metric m;
      m.metric = "p2p.link_tail_p", m.probe = "p2p", m.place = pc.place, m.params = derived, m.unit = "";
      m.value = m.min = m.max = t.p;
      m.count = static_cast<int>(t.exchanges);
      a.derived.push_back(std::move(m));
    }
  }
}

}  // namespace ga::judging
