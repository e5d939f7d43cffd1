#include "probes/p2p/p2p_params.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ga::p2p {

const char* to_string(Test t) { return t == Test::latency ? "latency" : "bw"; }

std::vector<Measurement> P2pParams::measurements() const {
  std::vector<Measurement> m;
  if (sweep.empty()) {
    m.push_back({Test::latency, latency_size, true});
    m.push_back({Test::bandwidth, bw_size, true});
    return m;
  }
  for (auto s : sweep) m.push_back({Test::latency, s, s == latency_size});
  for (auto s : sweep) m.push_back({Test::bandwidth, s, s == bw_size});
  return m;
}

std::size_t P2pParams::max_size() const {
  std::size_t mx = std::max(latency_size, bw_size);
  for (auto s : sweep) mx = std::max(mx, s);
  return mx;
}

namespace {

constexpr std::size_t kMaxSize = std::size_t(1) << 30;  // one MPI message of int count, with room

[[noreturn]] void bad(const std::string& key, const std::string& what) {
  throw std::invalid_argument("p2p param " + key + ": " + what);
}

double positive(const nlohmann::json& p, const char* key, double def) {
  if (!p.contains(key)) return def;
  if (!p[key].is_number() || p[key].get<double>() <= 0) bad(key, "must be a positive number, got " + p[key].dump());
  return p[key].get<double>();
}

std::size_t size_of(const nlohmann::json& v, const std::string& key) {
  if (!v.is_number_integer() || v.get<long long>() < 8 || static_cast<std::size_t>(v.get<long long>()) > kMaxSize)
    bad(key, "must be a whole number of bytes from 8 to 1 GiB, got " + v.dump());
  return v.get<std::size_t>();
}

int whole(const nlohmann::json& p, const char* key, int def, int lo) {
  if (!p.contains(key)) return def;
  if (!p[key].is_number_integer() || p[key].get<long long>() < lo || p[key].get<long long>() > 1000000000)
    bad(key, "must be a whole number >= " + std::to_string(lo) + ", got " + p[key].dump());
  return p[key].get<int>();
}

bool flag(const nlohmann::json& p, const char* key, bool def) {
  if (!p.contains(key)) return def;
  if (!p[key].is_boolean()) bad(key, "must be true or false, got " + p[key].dump());
  return p[key].get<bool>();
}

}  // namespace

const std::vector<ParamDecl>& p2p_param_decls() {
  static const std::vector<ParamDecl> decls = [] {
    const P2pParams d;
    constexpr double kMaxWhole = 1e9;
    const double max_size = double(kMaxSize);
    return std::vector<ParamDecl>{
        {"unit", ParamType::string, d.schedule.unit == pairs::PairUnit::rail ? "rail" : "host", {}, {}, {"host", "rail"},
         "host: one rank per host (its first); rail: every local rank, as a NIC rail"},
        {"max_rails", ParamType::integer, d.schedule.max_rails, 0, kMaxWhole, {}, "rail mode: at most this many rails (0 = all)"},
        {"intra_host", ParamType::boolean, d.schedule.intra_host, {}, {}, {}, "also pairs of ranks inside each host"},
        {"latency_size", ParamType::integer, d.latency_size, 8, max_size, {}, "bytes of the latency ping-pong"},
        {"bw_size", ParamType::integer, d.bw_size, 8, max_size, {}, "bytes per message of the bandwidth window"},
        {"sweep", ParamType::boolean, false, {}, {}, {}, "latency and bandwidth at every power of two from 8 B to 64 MiB"},
        {"sizes", ParamType::list, nullptr, {}, {}, {},
         "an explicit sweep instead: byte counts from 8 to 1 GiB (latency_size and bw_size are always added)"},
        {"measure_s", ParamType::number, d.limits.target_s, {}, {}, {},
         "measured seconds per measurement, > 0 and at most limit_s (the iterations adapt to fit)"},
        {"limit_s", ParamType::number, d.limits.limit_s, {}, {}, {},
         "hard limit per measurement in seconds, > 0, from when both ends have met: past it the pair did not complete"},
        {"warmup", ParamType::integer, d.limits.warmup, 0, kMaxWhole, {},
         "latency iterations not recorded (bandwidth: a tenth, at least 1)"},
        {"max_iters", ParamType::integer, d.limits.max_iters, 1, kMaxWhole, {},
         "latency iterations at most (bandwidth windows: a hundredth, at least 3)"},
        {"budget_fraction", ParamType::number, d.budget_fraction, {}, 0.95, {},
         "share of the probe's deadline the measurements may plan to use, > 0"},
        {"tail_event_factor", ParamType::number, d.tail_event_factor, {}, {}, {},
         "a round trip over this many times its measurement's median is a tail event (> 1), counted per "
         "measurement for the judge's test of intermittent faults"},
        {"retest", ParamType::boolean, d.retest, {}, {}, {}, "a second pass re-measures suspects against healthy hosts"},
        {"retest_ratio", ParamType::number, d.retest_options.ratio, {}, {}, {},
         "worse than this times the cluster reference is re-tested (> 0)"},
        {"retest_partners", ParamType::integer, d.retest_options.partners, 1, kMaxWhole, {},
         "healthy partners per suspect host"},
        {"retest_max", ParamType::integer, d.retest_options.max_suspects, 0, kMaxWhole, {},
         "suspects re-tested at most (worst first)"},
        {"retest_events", ParamType::integer, d.retest_options.sizing.events_wanted, 1, 100, {},
         "a re-test of a suspect that showed tail events is sized so that, still present at its first-pass "
         "rate, its fault shows this many events (docs/fabric.md#re-tests-long-enough)"},
        {"retest_confidence", ParamType::number, d.retest_options.sizing.confidence, {}, 0.9999, {},
         "with this probability (> 0)"},
        {"retest_max_exchanges", ParamType::integer, d.retest_options.sizing.max_exchanges, 1, kMaxWhole, {},
         "round trips per sized re-test measurement at most"},
        {"retest_max_s", ParamType::number, d.retest_max_s, {}, {}, {},
         "measured seconds per sized re-test measurement at most (> 0); less where the probe's deadline "
         "leaves less"},
        {"min_exchanges", ParamType::integer, d.min_exchanges, 0, kMaxWhole, {},
         "every headline latency measurement of the first pass times at least this many round trips, within "
         "its time limit (rerun-plan sets it from the run it re-tests; 0: by time alone)"},
        {"adaptive_min_hosts", ParamType::integer, d.adaptive_min_hosts, 2, kMaxWhole, {},
         "from this many hosts on, the adaptive schedule (within leaf groups, sampled across them, suspects "
         "re-tested) replaces all pairs"},
        {"switch_map", ParamType::string, d.switch_map, {}, {}, {},
         "leaf switch of each host: a file of HOSTS LEAF [UPLINK...] lines or a Slurm topology.conf (--switch-map); "
         "empty: Slurm's topology.conf when found, else inferred from neighbour latencies"},
    };
  }();
  return decls;
}

P2pParams parse_p2p_params(const nlohmann::json& p) {
  static const std::set<std::string> known = [] {
    std::set<std::string> k;
    for (const auto& d : p2p_param_decls()) k.insert(d.name);
    return k;
  }();
  static const std::string known_text = [] {
    std::string t;
    for (const auto& d : p2p_param_decls()) t += (t.empty() ? "" : ", ") + d.name;
    return t;
  }();
  P2pParams r;
  if (p.is_null()) return r;
  if (!p.is_object()) throw std::invalid_argument("p2p params must be a mapping, got " + p.dump());
  for (const auto& [k, v] : p.items())
    if (!known.count(k)) bad(k, "unknown (known: " + known_text + ")");
  if (p.contains("unit")) {
    const auto u = p["unit"].is_string() ? p["unit"].get<std::string>() : std::string();
    if (u == "host") r.schedule.unit = pairs::PairUnit::host;
    else if (u == "rail") r.schedule.unit = pairs::PairUnit::rail;
    else bad("unit", "must be host or rail, got " + p["unit"].dump());
  }
  r.schedule.max_rails = whole(p, "max_rails", 0, 0);
  r.schedule.intra_host = flag(p, "intra_host", true);
  if (p.contains("latency_size")) r.latency_size = size_of(p["latency_size"], "latency_size");
  if (p.contains("bw_size")) r.bw_size = size_of(p["bw_size"], "bw_size");
  if (p.contains("sizes")) {
    if (!p["sizes"].is_array() || p["sizes"].empty()) bad("sizes", "must be a non-empty list of byte counts");
    for (const auto& s : p["sizes"]) r.sweep.push_back(size_of(s, "sizes"));
    std::sort(r.sweep.begin(), r.sweep.end());
    r.sweep.erase(std::unique(r.sweep.begin(), r.sweep.end()), r.sweep.end());
  } else if (flag(p, "sweep", false)) {
    for (std::size_t s = 8; s <= (std::size_t(64) << 20); s *= 2) r.sweep.push_back(s);
  }
  // The headline sizes are always measured, so the culprit analysis has them.
  if (!r.sweep.empty()) {
    for (auto s : {r.latency_size, r.bw_size})
      if (std::find(r.sweep.begin(), r.sweep.end(), s) == r.sweep.end()) r.sweep.push_back(s);
    std::sort(r.sweep.begin(), r.sweep.end());
  }
  r.limits.target_s = positive(p, "measure_s", r.limits.target_s);
  r.limits.limit_s = positive(p, "limit_s", r.limits.limit_s);
  if (r.limits.target_s > r.limits.limit_s) bad("measure_s", "must not exceed limit_s");
  r.limits.warmup = whole(p, "warmup", r.limits.warmup, 0);
  r.limits.max_iters = whole(p, "max_iters", r.limits.max_iters, 1);
  r.budget_fraction = positive(p, "budget_fraction", r.budget_fraction);
  r.tail_event_factor = positive(p, "tail_event_factor", r.tail_event_factor);
  if (r.tail_event_factor <= 1) bad("tail_event_factor", "must be above 1 (a round trip over its own median is no event)");
  if (r.budget_fraction > 0.95) bad("budget_fraction", "must leave time for gathering (at most 0.95)");
  r.retest = flag(p, "retest", true);
  r.retest_options.ratio = positive(p, "retest_ratio", r.retest_options.ratio);
  r.retest_options.partners = whole(p, "retest_partners", r.retest_options.partners, 1);
  r.retest_options.max_suspects = whole(p, "retest_max", r.retest_options.max_suspects, 0);
  r.retest_options.sizing.events_wanted = whole(p, "retest_events", r.retest_options.sizing.events_wanted, 1);
  if (r.retest_options.sizing.events_wanted > 100) bad("retest_events", "must be at most 100");
  r.retest_options.sizing.confidence = positive(p, "retest_confidence", r.retest_options.sizing.confidence);
  if (r.retest_options.sizing.confidence > 0.9999) bad("retest_confidence", "must be below 1 (at most 0.9999)");
  r.retest_options.sizing.max_exchanges = whole(p, "retest_max_exchanges", r.retest_options.sizing.max_exchanges, 1);
  r.retest_max_s = positive(p, "retest_max_s", r.retest_max_s);
  r.min_exchanges = whole(p, "min_exchanges", r.min_exchanges, 0);
  r.adaptive_min_hosts = whole(p, "adaptive_min_hosts", r.adaptive_min_hosts, 2);
  if (p.contains("switch_map")) {
    if (!p["switch_map"].is_string()) bad("switch_map", "must be a file name, got " + p["switch_map"].dump());
    r.switch_map = p["switch_map"].get<std::string>();
  }
  return r;
}

}  // namespace ga::p2p
