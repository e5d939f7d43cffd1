// The culprit analysis of the p2p pair matrices; see fabric_analysis.hpp for what it derives
// and why. Deterministic: ordered containers only, no clock, no environment.
#include "suites/fabric_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include "base/both.hpp"
#include "base/quantity.hpp"
#include "suites/judge_parts.hpp"
#include "topology/place.hpp"

namespace ga::judging {

// params' canonical text, made once per distinct object (probes/params.hpp), not dumped again:
// the verdicts' lookups are ~200 k at 4096 hosts.
std::string evidence_key(const std::string& metric, const std::string& place, const Params& params) {
  return metric + "|" + place + "|" + params.dump();
}

namespace {

// A ratio is nullopt when its measurement never completed: "infinitely slow" is a fact about
// the pair, not a number, and the report says "did not complete" rather than inventing one.
using Ratio = std::optional<double>;

struct Pair {
  std::string place;
  std::vector<FabricObservation> obs;
};

// Where pair measurements come from: the fabric's p2p probe (latency and bandwidth, each
// direction on its own) or the nccl probe's isolation pass (busbw of a 2-GPU all_reduce, which
// moves the same bytes both ways at once: one figure per pair, undirected).
struct Group {
  std::string prefix = "p2p";           // the probe: the derived metrics are PREFIX.host_slowdown ...
  bool lower = true;                    // lower is better (latencies)
  bool undirected = false;              // one figure per pair: no sending/receiving split
  std::string basis, path;
  long long size = 0;
  std::optional<long long> rail;
  std::map<std::pair<std::string, std::string>, Pair> directed;  // {src, dst}
};

// Latencies (the median and the tail): lower is better. Bandwidth: higher is better.
bool lat(const Group& g) { return g.lower; }
// An endpoint is judged on its best pair either way (latency: a round trip; NCCL: both ways).
bool either_way(const Group& g) { return g.lower || g.undirected; }

// The better of two middle values: half the endpoints may be bad and it is still a good one's.
double better_median(std::vector<double> v, bool lower_is_better) {
  if (v.empty()) return NAN;
  if (lower_is_better) std::sort(v.begin(), v.end());
  else std::sort(v.begin(), v.end(), std::greater<>());
  return v[(v.size() - 1) / 2];
}

double best_of(const Group& g, const std::vector<FabricObservation>& obs) {
  double b = lat(g) ? INFINITY : 0;
  for (const auto& o : obs) b = lat(g) ? std::min(b, o.value) : std::max(b, o.value);
  return b;
}

bool completed(const Group& g, double v) { return lat(g) ? std::isfinite(v) : v > 0; }

// How much worse than `ref` a value is, >= 1 when worse; none when it never completed.
Ratio worse(const Group& g, double v, double ref) {
  if (!completed(g, v)) return std::nullopt;
  return lat(g) ? v / ref : ref / v;
}

// Why an endpoint's or pair's derived value is absent: what did not complete, in the
// probe's words, each reason once.
std::string incomplete_why(const std::vector<FabricObservation>& obs) {
  std::vector<std::string> whys;
  for (const auto& o : obs)
    if (!o.why.empty() && std::find(whys.begin(), whys.end(), o.why) == whys.end()) whys.push_back(o.why);
  std::string s = "no measurement completed";
  for (std::size_t i = 0; i < whys.size(); ++i) s += (i ? "; " : ": ") + whys[i];
  return s;
}

nlohmann::json derived_params(const Group& g, const std::string& direction) {
  nlohmann::json p = {{"basis", g.basis}, {"size", g.size}, {"path", g.path}, {"direction", direction}};
  if (g.rail) p["rail"] = *g.rail;
  return p;
}

std::map<std::string, Group> collect(const base::ByName<Metric>& by_name) {
  std::map<std::string, Group> groups;
  for (const Metric* mp : base::items_named(by_name, {"nccl.pair_busbw", "nccl.pair_completed", "p2p.latency_p50",
                                                       "p2p.latency_p99", "p2p.bw", "p2p.completed"})) {
    const Metric& m = *mp;
    std::vector<std::string> bases;
    const bool nccl = m.metric == "nccl.pair_busbw" || m.metric == "nccl.pair_completed";
    if (nccl) {
      if (m.metric == "nccl.pair_busbw" || (m.value && *m.value == 0)) bases = {"busbw"};
    } else if (m.metric == "p2p.latency_p50") bases = {"latency"};
    else if (m.metric == "p2p.latency_p99") bases = {"latency_p99"};
    else if (m.metric == "p2p.bw") bases = {"bw"};
    else if (m.metric == "p2p.completed" && m.value && *m.value == 0 && m.params.contains("test")) {
      const std::string t = m.params["test"].is_string() ? m.params["test"].get<std::string>() : "";
      if (t == "latency") bases = {"latency", "latency_p99"};
      if (t == "bw") bases = {"bw"};
    }
    if (bases.empty()) continue;
    const bool completion = m.metric == "p2p.completed" || m.metric == "nccl.pair_completed";
    if (!completion && !m.value) continue;
    const auto& p = m.params;
    if (!p.contains("direction") || !p["direction"].is_string() || !p.contains("size") ||
        !p["size"].is_number_integer())
      continue;
    const std::string dir = p["direction"].get<std::string>();
    const auto arrow = dir.find("->");
    if (arrow == std::string::npos) continue;
    for (const auto& basis : bases) {
      Group proto;
      proto.basis = basis;
      if (nccl) proto.prefix = "nccl", proto.lower = false, proto.undirected = true;
      else proto.lower = basis != "bw";
      proto.size = p["size"].get<long long>();
      proto.path = p.contains("path") && p["path"].is_string() ? p["path"].get<std::string>() : "inter";
      if (p.contains("rail") && p["rail"].is_number_integer()) proto.rail = p["rail"].get<long long>();
      const std::string gk = proto.prefix + "|" + basis + "|" + std::to_string(proto.size) + "|" + proto.path + "|" +
                             (proto.rail ? std::to_string(*proto.rail) : "-");
      auto& g = groups.try_emplace(gk, proto).first->second;
      FabricObservation o;
      o.src = dir.substr(0, arrow);
      o.dst = dir.substr(arrow + 2);
      o.pass_label = p.contains("pass") ? p["pass"].dump() : "1";
      if (completion) {
        o.value = proto.lower ? INFINITY : 0;
        o.why = p.contains("why") && p["why"].is_string() ? p["why"].get<std::string>() : "did not complete";
      } else {
        o.value = *m.value;
      }
      auto& pr = g.directed[{o.src, o.dst}];
      pr.place = m.place;
      pr.obs.push_back(std::move(o));
    }
  }
  // The tail comes from the same exchange as the median: without any measured p99 (an older
  // journal, a hand-made one) the median's group already says what did not complete.
  for (auto it = groups.begin(); it != groups.end();) {
    bool measured = false;
    for (const auto& [sd, pr] : it->second.directed)
      for (const auto& o : pr.obs) measured = measured || o.why.empty();
    it = it->second.basis == "latency_p99" && !measured ? groups.erase(it) : std::next(it);
  }
  return groups;
}

struct Out {
  FabricAnalysis& a;
  void add(const Group& g, const std::string& metric, const std::string& place, const std::string& direction,
           Ratio value, FabricEvidence ev) {
    Metric m;
    m.metric = metric;
    m.place = place;
    m.params = derived_params(g, direction);
    m.probe = g.prefix;  // derived from that probe's samples
    m.unit = "x";
    if (value) m.value = m.min = m.max = *value;
    else m.not_completed = incomplete_why(ev.observations);
    m.count = static_cast<int>(ev.observations.size());
    a.evidence[evidence_key(metric, place, m.params)] = std::move(ev);
    a.derived.push_back(std::move(m));
  }
};

FabricEvidence evidence(const Group& g, double ref) {
  FabricEvidence ev;
  ev.basis = g.basis;
  ev.unit = lat(g) ? "s" : "B/s";
  ev.reference = ref;
  ev.higher_is_worse = lat(g);
  return ev;
}

struct Bests {
  std::map<std::string, double> any, out, in;  // per endpoint: best pair, best sending, best receiving
  // Per endpoint, its typical pair (the better middle of its pairs' values): what a healthy
  // pair with this end measures. Links are held against these, not against the best pairs:
  // where pairs spread (fake hosts on two cores spread 3x), the best pair is far from what a
  // healthy pair gives and every ordinary pair would look like a slow link.
  std::map<std::string, double> typ_any, typ_out, typ_in;
};

// pass_only: the first pass alone ("1"), or every pass ("").
Bests bests_of(const Group& g, const std::string& pass_only) {
  Bests r;
  std::map<std::string, std::vector<double>> v_any, v_out, v_in;
  for (const auto& [sd, pr] : g.directed) {
    std::vector<FabricObservation> obs;
    for (const auto& o : pr.obs)
      if (pass_only.empty() || o.pass_label == pass_only) obs.push_back(o);
    if (obs.empty()) continue;
    const double b = best_of(g, obs);
    for (const auto& e : {sd.first, sd.second}) {
      auto [it, fresh] = r.any.try_emplace(e, b);
      if (!fresh) it->second = lat(g) ? std::min(it->second, b) : std::max(it->second, b);
    }
    auto upd = [&](std::map<std::string, double>& m, const std::string& e) {
      auto [it, fresh] = m.try_emplace(e, b);
      if (!fresh) it->second = std::max(it->second, b);
    };
    upd(r.out, sd.first);
    upd(r.in, sd.second);
    v_any[sd.first].push_back(b);
    if (sd.second != sd.first) v_any[sd.second].push_back(b);
    v_out[sd.first].push_back(b);
    v_in[sd.second].push_back(b);
  }
  // A value that never completed is infinitely slow: latency +inf, bandwidth 0, both of which
  // better_median orders last, so a typical pair is one that completed wherever most did.
  auto typical = [&](const std::map<std::string, std::vector<double>>& from, std::map<std::string, double>& to) {
    for (const auto& [e, v] : from) to[e] = better_median(v, lat(g));
  };
  typical(v_any, r.typ_any);
  typical(v_out, r.typ_out);
  typical(v_in, r.typ_in);
  return r;
}

// The cluster's reference from per-endpoint figures: the better middle of either-direction
// figures (latency) or of the sending and receiving ones together (bandwidth).
double reference_of(const Group& g, const std::map<std::string, double>& any,
                    const std::map<std::string, double>& out, const std::map<std::string, double>& in) {
  std::vector<double> v;
  if (either_way(g)) {
    for (const auto& [e, x] : any) v.push_back(x);
  } else {
    for (const auto& [e, x] : out) v.push_back(x);
    for (const auto& [e, x] : in) v.push_back(x);
  }
  return better_median(v, lat(g));
}

void analyze_inter(const Group& g, Out& out) {
  const Bests all = bests_of(g, ""), first = bests_of(g, "1");
  const auto& best_any = all.any;
  const auto& best_out = all.out;
  const auto& best_in = all.in;
  const double ref = reference_of(g, best_any, best_out, best_in);
  std::size_t unreachable = 0;
  for (const auto& [e, b] : best_any) unreachable += lat(g) ? std::isinf(b) : b <= 0;

  // The cluster: the reference, and how many endpoints reached nobody at all.
  {
    Metric m;
    m.metric = g.prefix + "." + g.basis + "_median";
    m.probe = g.prefix;
    m.place = place::cluster();
    m.params = {{"size", g.size}, {"path", g.path}};
    if (g.rail) m.params = m.params.with("rail", *g.rail);
    m.unit = lat(g) ? "s" : "B/s";
    m.count = static_cast<int>(best_any.size());
    if (std::isfinite(ref) && ref > 0) m.value = m.min = m.max = ref;
    else m.not_completed = "no reference: most endpoints completed no pair";
    out.a.derived.push_back(m);
    m.metric = g.prefix + ".unreachable_fraction";
    m.params = m.params.with("basis", g.basis);
    m.unit = "";
    m.value = m.min = m.max = best_any.empty() ? 0.0 : double(unreachable) / double(best_any.size());
    m.not_completed.reset();
    out.a.derived.push_back(std::move(m));
  }
  if (!(std::isfinite(ref) && ref > 0)) return;

  // Hosts: their best pair against the reference.
  // Each endpoint's pairs, sending, receiving and either, in the order of g.directed: found
  // once here rather than by a scan of every pair for every endpoint.
  std::map<std::string, std::vector<const Pair*>> pairs_out, pairs_in, pairs_any;
  for (const auto& [sd, pr] : g.directed) {
    pairs_out[sd.first].push_back(&pr);
    pairs_in[sd.second].push_back(&pr);
    pairs_any[sd.first].push_back(&pr);
    if (sd.second != sd.first) pairs_any[sd.second].push_back(&pr);
  }
  // The first pass alone, as its own reference: the re-tests run later, when the machine may
  // be quieter or busier (fake hosts: a compile finishing), and a host measured only in the
  // first pass must not be held against a reference that the re-tests of others raised.
  const double ref_first = reference_of(g, first.any, first.out, first.in);
  auto host = [&](const std::string& e, const std::string& direction, double best) {
    // Its best pair over every pass against the reference of every pass, or its best pair of
    // the first pass against the first pass's reference, whichever is kinder: like against like.
    Ratio r = worse(g, best, ref);
    double used_ref = ref;
    const auto& fm = direction == "in" ? first.in : direction == "out" ? first.out : first.any;
    if (auto f = fm.find(e); f != fm.end() && std::isfinite(ref_first) && ref_first > 0)
      if (Ratio r1 = worse(g, f->second, ref_first); r1 && (!r || *r1 < *r)) r = r1, used_ref = ref_first;
    FabricEvidence ev = evidence(g, used_ref);
    const auto& index = direction == "in" ? pairs_in : direction == "out" ? pairs_out : pairs_any;
    if (auto it = index.find(e); it != index.end())
      for (const Pair* pr : it->second) ev.observations.insert(ev.observations.end(), pr->obs.begin(), pr->obs.end());
    out.add(g, g.prefix + ".host_slowdown", e, direction, r, std::move(ev));
  };
  if (either_way(g)) {
    for (const auto& [e, b] : best_any) host(e, "both", b);
  } else {
    for (const auto& [e, b] : best_out) host(e, "out", b);
    for (const auto& [e, b] : best_in) host(e, "in", b);
  }

  // Tails are a property of the hosts (a lossy NIC delays some messages of every pair it is
  // in, at random), not of links: a pair's own p99 is too noisy to blame a link on.
  if (g.basis == "latency_p99") return;

  // Links: what is left after each end's own slowness is accounted for. Each measurement is
  // held against its ends as they were in the same pass (a host slow in the first pass and
  // healthy in its re-tests explains its first-pass pairs), and the link is only as bad as its
  // best-explained measurement.
  // The typical pair of the cluster: the better middle of the endpoints' typical pairs.
  auto typical_ref = [&](const Bests& b) { return reference_of(g, b.typ_any, b.typ_out, b.typ_in); };
  const double typ_first = typical_ref(first), typ_all = typical_ref(all);
  // A latency is a round trip: the ping-pong that one end starts and the one the other end
  // starts cross the same wire both ways and differ only in which process keeps the time, so
  // a link's latency is judged on both together, one place with direction "both" (as a host's
  // is on its best pair either way). Judged apart, one rank that the scheduler kept waiting
  // ~2 ms in both passes made a healthy link a confirmed fault (4 fake hosts with one busy
  // core: an extra link named in 4 of 5 runs); a slow wire is slow in both round trips.
  const bool round_trip = lat(g);
  for (const auto& [sd, pr] : g.directed) {
    const auto& [s, d] = sd;
    std::vector<FabricObservation> both_ways;
    const std::vector<FabricObservation>* obs = &pr.obs;
    if (round_trip)
      if (auto rev = g.directed.find({d, s}); s != d && rev != g.directed.end()) {
        if (d < s) continue;  // judged with its reverse, under the pair's first name
        both_ways = pr.obs;
        both_ways.insert(both_ways.end(), rev->second.obs.begin(), rev->second.obs.end());
        obs = &both_ways;
      }
    // The best-explained completed measurement; none when nothing completed that its ends
    // do not already explain.
    Ratio residual;
    double expected_used = 0;
    for (const auto& o : *obs) {
      const Bests& b = o.pass_label == "1" ? first : all;
      auto at = [](const std::map<std::string, double>& m, const std::string& e, double def) {
        auto it = m.find(e);
        return it == m.end() ? def : it->second;
      };
      const double typ = o.pass_label == "1" ? typ_first : typ_all;
      const double base = std::isfinite(typ) && typ > 0 ? typ : ref;
      double expected;
      Ratio r;
      if (lat(g)) {
        auto excess = [&](const std::string& e) { return std::max(0.0, at(b.typ_any, e, base) - base); };
        expected = base + excess(s) + excess(d);
        // An end that completed nothing explains this pair not completing either.
        if (std::isinf(expected)) r = 1.0;
        else if (completed(g, o.value)) r = o.value / expected;
      } else if (g.undirected) {
        expected = std::min({base, at(b.typ_any, s, base), at(b.typ_any, d, base)});
        if (expected <= 0) r = 1.0;
        else if (completed(g, o.value)) r = expected / o.value;
      } else {
        expected = std::min({base, at(b.typ_out, s, base), at(b.typ_in, d, base)});
        if (expected <= 0) r = 1.0;
        else if (completed(g, o.value)) r = expected / o.value;
      }
      if (r && (!residual || *r < *residual)) residual = r, expected_used = expected;
    }
    FabricEvidence ev = evidence(g, ref);
    ev.expected = expected_used;
    ev.observations = *obs;
    out.add(g, g.prefix + ".link_slowdown", pr.place, round_trip ? "both" : s + "->" + d, residual, std::move(ev));
  }
}

// Inside a host the unit is the host's pair (both directions: a shared-memory path has no
// direction worth blaming), held against the same pairs of the other hosts.
void analyze_intra(const Group& g, Out& out) {
  std::map<std::string, std::vector<FabricObservation>> by_place;
  for (const auto& [sd, pr] : g.directed) {
    auto& v = by_place[pr.place];
    v.insert(v.end(), pr.obs.begin(), pr.obs.end());
  }
  std::vector<double> all;
  for (const auto& [place, obs] : by_place) all.push_back(best_of(g, obs));
  const double ref = better_median(all, lat(g));
  if (!(std::isfinite(ref) && ref > 0)) return;
  for (const auto& [place, obs] : by_place) {
    FabricEvidence ev = evidence(g, ref);
    ev.observations = obs;
    out.add(g, g.prefix + ".intra_slowdown", place, "both", worse(g, best_of(g, obs), ref), std::move(ev));
  }
}

// What a link's ends explain is infinite when an end completed nothing: say so in words.
std::string explained_text(double v, const std::string& unit) {
  return std::isfinite(v) && v > 0 ? base::format_quantity(v, unit) : "nothing (an end completed no measurement)";
}

std::string value_of(const FabricEvidence& ev, const FabricObservation& o) {
  if (!o.why.empty()) return "did not complete (" + o.why + ")";
  return base::format_quantity(o.value, ev.unit);
}

// "host_slowdown", "link_slowdown" or "intra_slowdown" for p2p's and nccl's derived metrics, "".
// Views into the metric's name, no copies: the loops below see every verdict (2 million at 4096 hosts).
std::string_view analysis_kind(std::string_view metric) {
  for (const std::string_view pre : {std::string_view("p2p."), std::string_view("nccl.")})
    if (metric.substr(0, pre.size()) == pre) {
      const std::string_view rest = metric.substr(pre.size());
      if (rest == "host_slowdown" || rest == "link_slowdown" || rest == "intra_slowdown") return rest;
    }
  return {};
}

std::string_view prefix_of(std::string_view metric) { return metric.substr(0, metric.find('.')); }

}  // namespace

FabricAnalysis analyze_fabric(const std::vector<Metric>& metrics) { return analyze_fabric(metrics_by_name(metrics)); }

FabricAnalysis analyze_fabric(const base::ByName<Metric>& by_name) {
  FabricAnalysis a;
  Out out{a};
  for (const Metric* m : base::items_named(by_name, {"nccl.rail_devices"}))
    if (m->text) a.described[m->place] = *m->text;
  for (const auto& [k, g] : collect(by_name)) {
    if (g.path != "intra") analyze_inter(g, out);
    else if (g.basis != "latency_p99") analyze_intra(g, out);
  }
  analyze_tail_events(by_name, a);
  return a;
}

namespace {

const TailStanding* standing_of(const FabricAnalysis& a, const std::string& place, const Params& params) {
  auto it = a.tails.find(tail_key(place, param_text(params, "path", "inter"), param_text(params, "rail", "-")));
  return it == a.tails.end() ? nullptr : &it->second;
}

std::string tail_text(const TailStanding& t) {
  auto n = [](double x) { return base::format_number(x); };
  std::string s = n(t.events) + " tail event(s) in " + n(t.exchanges) + " round trips (first pass " + n(t.first_events) +
                  " in " + n(t.first_exchanges) + ", re-tests " + n(t.events - t.first_events) + " in " +
                  n(t.exchanges - t.first_exchanges) + ")";
  if (t.inside) return s;
  if (!t.explained_by.empty()) return s + ", explained by its end " + t.explained_by;
  if (t.no_rest) return s + ", and no other pair measured to hold them against";
  if (!t.set_aside.empty()) s += ", its worst link " + t.set_aside + " (" + n(t.set_aside_events) + " event(s)) set aside for the link's own test";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", t.p);
  s += " against " + n(t.expected) + " expected at the rest's rate (Poisson upper tail at " + n(kTailTolerance) + " x that rate, x " +
       std::to_string(t.tests) + " places tested: p = " + buf + ")";
  if (!t.sizing.empty()) s += "; " + t.sizing;
  return t.counters.empty() ? s : s + "; " + t.counters;
}

// What the re-tests say of the first pass's rate, for a place no test against the rest covers.
std::string retest_text(const TailStanding& t) {
  if (!(t.first_events > 0) || !(t.exchanges > t.first_exchanges)) return "";
  const double expected = (t.exchanges - t.first_exchanges) * t.first_events / t.first_exchanges;
  char p[32];
  std::snprintf(p, sizeof p, "%.2g", t.retest_p);
  return std::string("; at the first pass's rate the re-tests would have shown ") + base::format_number(expected) +
         " event(s): P = " + p + " of as few as they showed, " +
         (t.retest_p < kRetestClears ? "so that rate is ruled out" : "which does not rule it out");
}

// The tail-event verdicts (p2p.host_tail_p, p2p.link_tail_p): their counts in words; a pass
// whose events are not cleared (p under kTailStandOut) is inconclusive, not a pass.
void explain_tail(const FabricAnalysis& a, Verdict& v) {
  if (v.status != VerdictStatus::pass && v.status != VerdictStatus::fail) return;
  const TailStanding* t = standing_of(a, v.place, v.params);
  if (!t) return;
  const bool link = v.metric == "p2p.link_tail_p";
  if (v.status == VerdictStatus::fail) {
    v.reason += "; suspect " + std::string(link ? "link " : "") + v.place + " (intermittent: tail events): " + tail_text(*t) +
                "; sure: high (more events than the rest shows on as many round trips, corrected for every place tested)";
  } else if (t->p < kTailStandOut) {
    v.status = VerdictStatus::inconclusive;
    v.reason += "; " + tail_text(*t) + ": more than the rest shows, but not beyond the criterion's bound, so neither "
                "confirmed nor cleared: inconclusive";
  } else if (t->events > 0) {
    v.reason += "; " + tail_text(*t) + ": cleared";
  }
}

// One verdict's evidence and how sure it is, added to its reason (a fail not confirmed by
// re-tests becomes inconclusive). Reads only `a` and writes only `v`.
void explain_one(const FabricAnalysis& a, Verdict& v) {
  if (v.metric == "p2p.host_tail_p" || v.metric == "p2p.link_tail_p") return explain_tail(a, v);
  const std::string_view kind = analysis_kind(v.metric);
  // Only a pass or a fail gets words added below.
  if (kind.empty() || (v.status != VerdictStatus::pass && v.status != VerdictStatus::fail)) return;
  auto it = a.evidence.find(evidence_key(v.metric, v.place, v.params));
  const bool bounded = v.bounds.contains("value") && v.bounds["value"].is_number();
  if (it == a.evidence.end() || (!bounded && !v.not_completed)) return;
  const FabricEvidence& ev = it->second;
  // Without a bound (nothing completed, so nothing was compared) every observation that did
  // complete counts as not slow: only what did not complete is evidence.
  const double bound = bounded ? v.bounds["value"].get<double>() : INFINITY;
  const bool link = kind == "link_slowdown";
  const double base = link ? ev.expected : ev.reference;
  // Slow: worse than the bound, or never completed at all.
  auto slow_obs = [&](const FabricObservation& o) {
    if (!o.why.empty()) return true;
    return (ev.higher_is_worse ? o.value / base : base / o.value) > bound;
  };
  int retests = 0, slow_retests = 0, slow_first = 0;
  for (const auto& o : ev.observations) {
    const bool slow = slow_obs(o);
    const bool retest = o.pass_label != "1";
    retests += retest;
    (retest ? slow_retests : slow_first) += slow;
  }
  // The evidence in words, made only for the verdicts that print it: at 4096 hosts most of
  // ~200 k fabric verdicts pass and say nothing of it.
  auto evidence = [&] {
    std::vector<std::string> shown;
    for (const auto& o : ev.observations)
      shown.push_back((o.pass_label != "1" ? "re-test " : "") + o.src + "->" + o.dst + " " + value_of(ev, o));
    const std::string against = link ? "what its ends explain, " + explained_text(base, ev.unit) + " (cluster median " +
                                           base::format_quantity(ev.reference, ev.unit) + ")"
                                     : "the cluster median " + base::format_quantity(ev.reference, ev.unit);
    return "evidence against " + against + ": " + list_text(shown, 6);
  };
  if (v.status == VerdictStatus::pass) {
    if (slow_first > 0 && retests > 0 && slow_retests < retests) {
      // "Not blamed" only where the tail-event test cleared the place (issue 33): a slowness
      // seen once and not again is the signature of an intermittent fault, not of health. A
      // link is cleared by its own test, or explained by an end whose own verdict carries it.
      const TailStanding* t = v.metric.rfind("p2p.", 0) == 0 ? standing_of(a, v.place, v.params) : nullptr;
      bool incomplete = false;
      for (const auto& o : ev.observations) incomplete = incomplete || !o.why.empty();
      // Where no test against the rest covers the place (a pair inside a host, two hosts), its
      // re-tests clear it when, sized to see the first pass's events, they saw too few of them.
      const bool untested = !t || t->inside || t->no_rest;
      const bool by_retest = t && untested && t->retest_p < kRetestClears;
      const bool cleared = untested ? (t && t->no_rest ? by_retest : !incomplete || by_retest)
                                    : t->p >= kTailStandOut && (t->explained_by.empty() || link);
      if (!cleared) {
        v.status = VerdictStatus::inconclusive;
        v.reason += "; slow in the first pass but not in " + std::to_string(retests - slow_retests) + " of " +
                    std::to_string(retests) + " re-tests, and " +
                    (t && !t->inside ? "its tail events are not cleared (" + tail_text(*t) + retest_text(*t) + ")"
                       : "an exchange of it did not complete and no tail-event test covers it" +
                             (t ? " (" + tail_text(*t) + retest_text(*t) + ")" : std::string())) +
                    ", so inconclusive, not a pass (" + evidence() + ")";
        return;
      }
      v.reason += "; slow in the first pass but not in " + std::to_string(retests - slow_retests) + " of " +
                  std::to_string(retests) + " re-tests" +
                  (by_retest ? ", and its re-tests clear its tail events (" + tail_text(*t) + retest_text(*t) + ")"
                   : t && !untested ? ", and its tail events are cleared (" + tail_text(*t) + ")"
                                    : "") +
                  ", so not blamed (" + evidence() + ")";
    }
    return;
  }
  if (v.status != VerdictStatus::fail) return;
  std::set<std::string> partners;
  for (const auto& o : ev.observations) partners.insert(o.src == v.place ? o.dst : o.src);
  const std::string list = evidence();
  // A failure stands only where re-tests confirmed it: every re-test of this place was slow
  // too (for a host, against partners that passed). Anything less is a suspicion, reported
  // as inconclusive with its evidence: the first pass alone cannot tell a slow place from
  // an unlucky window, and a re-test that disagrees is a contradiction, not a proof.
  const int distinct = static_cast<int>(partners.size());
  const bool confirmed = retests > 0 && slow_retests == retests;
  std::string sure;
  if (!confirmed) {
    v.status = VerdictStatus::inconclusive;
    sure = retests == 0 ? "unconfirmed (not re-tested"
                        : "contradicted (slow in " + std::to_string(slow_retests) + " of " + std::to_string(retests) +
                              " re-tests";
    sure += link                                  ? ": re-test the pair"
            : kind == "intra_slowdown" ? ": one pair inside the host; re-test the host"
            : distinct < 2                      ? ": a single partner, the fault may be the other end"
                                                : "; slow with all " + std::to_string(distinct) + " partners";
    sure += "), so inconclusive, not failed";
  } else if (link) {
    sure = "high (slow in the first pass and in " + std::to_string(retests) + " re-test(s) of the same pair)";
  } else if (kind == "intra_slowdown") {
    sure = "high (slow in the first pass and in " + std::to_string(retests) + " re-test(s) of the pair inside the host)";
  } else if (distinct >= 2) {
    sure = "high (slow with all " + std::to_string(distinct) + " partners, and in " + std::to_string(retests) +
           " re-test(s) against hosts that passed)";
  } else {
    sure = "medium (slow in " + std::to_string(retests) + " re-test(s), but with a single partner)";
  }
  const std::string basis_label = ev.basis == "latency_p99" ? "latency tail, p99" : ev.basis;
  const auto& dir = v.params.contains("direction") ? v.params["direction"].get<std::string>() : "";
  std::string what = link ? "suspect link " + v.place + " (" + (dir == "both" ? "both ways" : dir) + ", " + ev.basis + ")"
                          : kind == "intra_slowdown" ? "suspect path inside host " + place::host_of(v.place)
                                                             : "suspect " + v.place + " (" + basis_label +
                                                                   (dir == "both" ? "" : dir == "out" ? ", sending" : ", receiving") + ")";
  if (auto d = a.described.find(v.place); d != a.described.end()) what += " [" + d->second + "]";
  v.reason += "; " + what + ": " + list + "; sure: " + sure;
}

}  // namespace

bool explains_passes(std::string_view metric) {
  return !analysis_kind(metric).empty() || metric == "p2p.host_tail_p" || metric == "p2p.link_tail_p";
}

void explain_fabric_verdicts(const FabricAnalysis& a, std::vector<Verdict>& verdicts) {
  // Each verdict on its own, in two halves side by side: at 4096 hosts this pass looks up
  // ~200 k fabric verdicts' evidence among 2 M verdicts, ~0.5 s of one core.
  const auto mid = verdicts.begin() + std::ptrdiff_t(verdicts.size() / 2);
  base::both([&] { std::for_each(mid, verdicts.end(), [&](Verdict& v) { explain_one(a, v); }); },
             [&] { std::for_each(verdicts.begin(), mid, [&](Verdict& v) { explain_one(a, v); }); });
  // "A slow pair between otherwise healthy hosts is a suspect link": an unconfirmed slow pair
  // with a suspect end is that end's doing (a lossy host slows some of its pairs at random),
  // so the link is not blamed. A link its own re-tests confirmed stays a fault whatever its
  // ends' host verdicts are (issue 32): the re-tests measured the link, and a suspect end,
  // confirmed or not, does not make them untrue.
  std::set<std::string> suspects;  // PREFIX|place
  for (const auto& v : verdicts)
    if (analysis_kind(v.metric) == "host_slowdown" && v.fails_run()) suspects.insert(std::string(prefix_of(v.metric)) + "|" + v.place);
  // An end whose tail events stand out (issue 33) loses packets on every link it is in, at
  // random: one of its links slow in the first pass and again in its re-test is its doing too,
  // confirmed or not, and blaming the link would drain its healthy other end.
  std::set<std::string> lossy;  // p2p|place
  for (const auto& v : verdicts)
    if (v.metric == "p2p.host_tail_p" && v.fails_run()) lossy.insert("p2p|" + v.place);
  // An end whose interface lost carrier during the run (net.iface.carrier fails there) drops
  // everything in flight on all of its links while it is down: a link of it that did not
  // complete, in the first pass and in its re-test, is its doing too (a flap every few seconds
  // hits a 1 s bandwidth window twice by chance), and the link's healthy other end stays out.
  std::map<std::string, std::string> flapping;  // host -> the carrier verdict's figure
  for (const auto& v : verdicts)
    if (v.metric == "net.iface.carrier_changes" && v.fails_run() && v.value)
      flapping[place::host_of(v.place)] = base::format_number(*v.value);
  for (auto& v : verdicts) {
    if (analysis_kind(v.metric) != "link_slowdown") continue;
    if (v.status != VerdictStatus::inconclusive && v.status != VerdictStatus::fail) continue;
    auto ends = place::split_pair(v.place);
    if (!ends) continue;
    const std::string pre = std::string(prefix_of(v.metric)) + "|";
    if (std::string end = flapping.count(place::host_of(ends->first))    ? ends->first
                          : flapping.count(place::host_of(ends->second)) ? ends->second
                                                                         : "";
        !end.empty()) {
      v.status = VerdictStatus::skipped;
      v.reason += "; not blamed on the link: its end " + end + " lost carrier " + flapping[place::host_of(end)] +
                  " time(s) during the run (net.iface.carrier fails there, see its verdict)";
      continue;
    }
    if (std::string end = lossy.count(pre + ends->first) ? ends->first : lossy.count(pre + ends->second) ? ends->second : "";
        !end.empty()) {
      v.status = VerdictStatus::skipped;
      v.reason += "; not blamed on the link: its end " + end + " loses packets (its tail events stand out, see its verdict)";
      continue;
    }
    if (v.status != VerdictStatus::inconclusive) continue;
    std::string end = suspects.count(pre + ends->first) ? ends->first : suspects.count(pre + ends->second) ? ends->second : "";
    if (end.empty()) continue;
    v.status = VerdictStatus::skipped;
    v.reason += "; not blamed on the link: its end " + end + " is a suspect host (see its verdict)";
  }
  // NCCL: a scope across hosts that fell short is its culprit's doing where the isolation pass
  // blamed one of its endpoints or links (confirmed by re-tests): the verdict belongs to that
  // place, not to `cluster`. By rail for the inter-host scope; any culprit for the cluster scope,
  // whose ring crosses every rail.
  std::map<long long, std::vector<std::string>> culprits;  // rail -> places
  std::vector<std::string> any_culprit;
  for (const auto& v : verdicts) {
    const std::string_view kind = analysis_kind(v.metric);
    if (prefix_of(v.metric) != "nccl" || (kind != "host_slowdown" && kind != "link_slowdown") ||
        v.status != VerdictStatus::fail)
      continue;
    if (v.params.contains("rail") && v.params["rail"].is_number_integer())
      culprits[v.params["rail"].get<long long>()].push_back(v.place);
    any_culprit.push_back(v.place);
  }
  if (any_culprit.empty()) return;
  for (auto& v : verdicts) {
    if (prefix_of(v.metric) != "nccl" || v.place != place::cluster() || v.status != VerdictStatus::fail) continue;
    const std::string scope = v.params.contains("scope") && v.params["scope"].is_string() ? v.params["scope"].get<std::string>() : "";
    const std::vector<std::string>* by = nullptr;
    if (scope == "cluster") by = &any_culprit;
    else if (scope == "inter-host" && v.params.contains("rail") && v.params["rail"].is_number_integer())
      if (auto it = culprits.find(v.params["rail"].get<long long>()); it != culprits.end()) by = &it->second;
    if (!by) continue;
    v.status = VerdictStatus::skipped;
    v.reason += "; not blamed on the cluster: the isolation pass blamed " + list_text(*by, 4) + " (see their verdicts)";
  }
}

}  // namespace ga::judging
