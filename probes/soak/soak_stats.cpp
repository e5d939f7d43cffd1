#include "probes/soak/soak_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/quantity.hpp"
#include "base/units.hpp"
#include "topology/place.hpp"

namespace ga::soak {

double percentile(std::vector<double> v, double pct) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = std::clamp(pct, 0.0, 100.0) / 100.0 * double(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = std::min(x.size(), y.size());
  if (n < 2) return 0;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
  mx /= double(n), my /= double(n);
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
  return sxx > 0 ? sxy / sxx : 0;
}

namespace {

double median(std::vector<double> v) { return percentile(std::move(v), 50); }

template <class T>
void put_opt(nlohmann::json& j, const char* k, const std::optional<T>& v) {
  if (v) j[k] = *v;
}
template <class T>
void get_opt(const nlohmann::json& j, const char* k, std::optional<T>& v) {
  if (j.contains(k) && !j.at(k).is_null()) v = j.at(k).get<T>();
}

std::string fmt(double v, const char* unit) { return base::format_quantity(v, unit); }

}  // namespace

nlohmann::json RankInterval::to_json() const {
  nlohmann::json j = {{"rank", rank},         {"place", place},     {"steps", steps},
                      {"step_p50", step_p50}, {"step_p99", step_p99}, {"compute_p50", compute_p50},
                      {"wait_p50", wait_p50}, {"h2d_p50", h2d_p50}, {"gemm_flops", gemm_flops},
                      {"busbw", busbw},       {"h2d_bw", h2d_bw},   {"memory_used", memory_used}};
  put_opt(j, "temperature", temperature);
  put_opt(j, "power", power);
  put_opt(j, "clock_sm", clock_sm);
  put_opt(j, "throttle_mask", throttle_mask);
  put_opt(j, "ecc_uncorrected_rise", ecc_uncorrected_rise);
  put_opt(j, "ecc_corrected_rise", ecc_corrected_rise);
  put_opt(j, "nvlink_errors_rise", nvlink_errors_rise);
  put_opt(j, "xid_rise", xid_rise);
  return j;
}

RankInterval RankInterval::from_json(const nlohmann::json& j) {
  RankInterval r;
  r.rank = j.at("rank").get<int>();
  r.place = j.at("place").get<std::string>();
  r.steps = j.at("steps").get<int>();
  r.step_p50 = j.at("step_p50").get<double>();
  r.step_p99 = j.at("step_p99").get<double>();
  r.compute_p50 = j.at("compute_p50").get<double>();
  r.wait_p50 = j.at("wait_p50").get<double>();
  r.h2d_p50 = j.at("h2d_p50").get<double>();
  r.gemm_flops = j.at("gemm_flops").get<double>();
  r.busbw = j.at("busbw").get<double>();
  r.h2d_bw = j.at("h2d_bw").get<double>();
  r.memory_used = j.at("memory_used").get<double>();
  get_opt(j, "temperature", r.temperature);
  get_opt(j, "power", r.power);
  get_opt(j, "clock_sm", r.clock_sm);
  get_opt(j, "throttle_mask", r.throttle_mask);
  get_opt(j, "ecc_uncorrected_rise", r.ecc_uncorrected_rise);
  get_opt(j, "ecc_corrected_rise", r.ecc_corrected_rise);
  get_opt(j, "nvlink_errors_rise", r.nvlink_errors_rise);
  get_opt(j, "xid_rise", r.xid_rise);
  return r;
}

std::vector<Sample> interval_samples(const std::vector<RankInterval>& ranks, History& h, double t_mid_s,
                                     const std::map<std::string, double>& peak_flops, const AnalysisConfig& cfg) {
  std::vector<Sample> out;
  if (ranks.empty()) return out;
  const int iter = ++h.intervals;
  auto add = [&](const RankInterval& r, const char* metric, double v, const char* unit,
                 nlohmann::json params = nlohmann::json::object()) {
    Sample s = value_sample(r.place, metric, v, unit, std::move(params), iter);
    s.rank = r.rank;
    out.push_back(std::move(s));
  };
  std::vector<double> compute, memory, wait, ratio99;
  for (const auto& r : ranks) {
    compute.push_back(r.compute_p50);
    memory.push_back(r.memory_used);
    wait.push_back(r.wait_p50);
    if (r.step_p50 > 0) ratio99.push_back(r.step_p99 / r.step_p50);
  }
  const double med_compute = median(compute), med_memory = median(memory);
  // The interval's straggler: the GPU with the longest compute, when it is straggler_ratio
  // above the median. Only a job of 3 or more GPUs has a median that one slow GPU cannot move;
  // with 2 the slower of the two is still the one the other waits for.
  const RankInterval* slowest = nullptr;
  for (const auto& r : ranks)
    if (!slowest || r.compute_p50 > slowest->compute_p50) slowest = &r;
  const bool straggles = ranks.size() >= 2 && med_compute > 0 && slowest->compute_p50 >= cfg.straggler_ratio * med_compute;
  if (straggles) h.slowest[slowest->place]++;
  for (const auto& r : ranks) {
    h.rank_of[r.place] = r.rank;
    add(r, "soak.step_time", r.step_p50, unit::seconds);
    add(r, "soak.compute_time", r.compute_p50, unit::seconds);
    add(r, "soak.wait_time", r.wait_p50, unit::seconds);
    add(r, "soak.gemm_flops", r.gemm_flops, unit::flops, {{"dtype", "bf16"}});
    if (auto it = peak_flops.find(r.place); it != peak_flops.end() && it->second > 0)
      add(r, "soak.gemm_of_theory", 100.0 * r.gemm_flops / it->second, unit::percent, {{"dtype", "bf16"}});
    add(r, "soak.allreduce_busbw", r.busbw, unit::bytes_per_second);
    add(r, "soak.h2d_bw", r.h2d_bw, unit::bytes_per_second);
    add(r, "soak.memory_used", r.memory_used, unit::bytes);
    if (med_memory > 0) add(r, "soak.memory_vs_median", 100.0 * std::fabs(r.memory_used - med_memory) / med_memory, unit::percent);
    auto& mem = h.memory[r.place];
    mem.push_back(r.memory_used);
    const auto [lo, hi] = std::minmax_element(mem.begin(), mem.end());
    if (*lo > 0) add(r, "soak.memory_fluctuation", 100.0 * (*hi - *lo) / *lo, unit::percent);
    if (med_compute > 0) {
      const double ratio = r.compute_p50 / med_compute;
      h.compute_ratio[r.place].push_back(ratio);
      add(r, "soak.compute_vs_median", ratio, "x");
    }
    h.own_compute[r.place].push_back(r.compute_p50);
    h.median_compute[r.place].push_back(med_compute);
    h.own_wait[r.place].push_back(r.wait_p50);
    std::vector<double> others;
    for (const auto& o : ranks)
      if (&o != &r) others.push_back(o.wait_p50);
    h.others_wait[r.place].push_back(median(others));
    add(r, "soak.straggler_intervals", h.slowest.count(r.place) ? h.slowest[r.place] : 0, unit::count);
    if (r.temperature) add(r, "soak.temperature", *r.temperature, "degC");
    if (r.power) add(r, "soak.power", *r.power, "W");
    if (r.clock_sm) add(r, "soak.clock_sm", *r.clock_sm, "MHz");
    // Hardware slowdown, thermal and power-brake slowdown: the gpu probe's rule (nvml_api.cpp).
    if (r.throttle_mask) add(r, "soak.throttle_hw", (*r.throttle_mask & (0x8 | 0x40 | 0x80)) ? 1 : 0, unit::boolean,
                             {{"mask", *r.throttle_mask}});
    if (r.ecc_uncorrected_rise) add(r, "soak.ecc_uncorrected_rise", *r.ecc_uncorrected_rise, unit::count);
    if (r.ecc_corrected_rise) add(r, "soak.ecc_corrected_rise", *r.ecc_corrected_rise, unit::count);
    if (r.nvlink_errors_rise) add(r, "soak.nvlink_errors_rise", *r.nvlink_errors_rise, unit::count);
    if (r.xid_rise) add(r, "soak.xid_rise", *r.xid_rise, unit::count);
  }
  // The job's step: ranks move in lock step (every step ends in the all_reduce), so their
  // step times agree; the median over ranks is the job's.
  std::vector<double> steps;
  for (const auto& r : ranks) steps.push_back(r.step_p50);
  h.t_mid.push_back(t_mid_s);
  h.step_p50.push_back(median(steps));
  auto job = [&](const char* metric, double v, const char* unit) {
    out.push_back(value_sample(place::cluster(), metric, v, unit, nlohmann::json::object(), iter));
  };
  job("soak.intervals", h.intervals, unit::count);
  if (!ratio99.empty()) job("soak.step_p99_over_p50", median(ratio99), "x");
  // Drift: the fitted change of the step time over the run so far, in percent of its mean.
  // Three intervals at least: two points always lie on a line.
  if (h.intervals >= 3) {
    const double mean = std::max(1e-12, percentile(h.step_p50, 50));
    const double span = h.t_mid.back() - h.t_mid.front();
    job("soak.step_drift", 100.0 * slope(h.t_mid, h.step_p50) * span / mean, unit::percent);
  }
  return out;
}

std::vector<Sample> final_samples(const History& h, const AnalysisConfig& cfg) {
  std::vector<Sample> out;
  // Named: the GPU that was the interval's straggler in at least half of the intervals. Fewer
  // is noise (a slow moment of a shared host), and its per-interval figures still say so.
  std::string named;
  int most = 0;
  for (const auto& [place, n] : h.slowest)
    if (n > most) most = n, named = place;
  const bool found = !named.empty() && 2 * most >= h.intervals && h.intervals > 0;
  nlohmann::json cp = {{"intervals", h.intervals}, {"ratio", cfg.straggler_ratio}};
  std::string evidence;
  if (found) {
    auto med = [](const std::vector<double>& v) { return percentile(v, 50); };
    const auto& own = h.own_compute.at(named);
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2f", med(h.compute_ratio.at(named)));
    evidence = named + " (rank " + std::to_string(h.rank_of.at(named)) + ") computed " + ratio +
               "x the median GPU (its compute " + fmt(med(own), "s") + " a step against " +
               fmt(med(h.median_compute.at(named)), "s") + ") and was the slowest by " +
               base::format_number(cfg.straggler_ratio) + "x or more in " + std::to_string(most) + " of " +
               std::to_string(h.intervals) + " intervals; the other ranks waited for it inside the all_reduce (their wait " +
               fmt(med(h.others_wait.at(named)), "s") + " a step, its own " + fmt(med(h.own_wait.at(named)), "s") + ")";
    cp["place"] = named;
    cp["rank"] = h.rank_of.at(named);
    cp["slowest_in"] = most;
    cp["reason"] = evidence;
  }
  out.push_back(text_sample(place::cluster(), "soak.straggler", found ? named : "none", cp));
  for (const auto& [place, rank] : h.rank_of) {
    const bool me = found && place == named;
    nlohmann::json p = {{"intervals", h.intervals}};
    if (me) p["reason"] = evidence;
    Sample s = value_sample(place, "soak.straggler_named", me ? 1 : 0, unit::boolean, p);
    s.rank = rank;
    out.push_back(std::move(s));
  }
  return out;
}

std::string live_line(const std::vector<RankInterval>& ranks, const History& h) {
  if (ranks.empty()) return "no GPU";
  const RankInterval *slow = &ranks[0], *low = &ranks[0], *hot = nullptr;
  for (const auto& r : ranks) {
    if (r.compute_p50 > slow->compute_p50) slow = &r;
    if (r.gemm_flops < low->gemm_flops) low = &r;
    if (r.temperature && (!hot || *r.temperature > *hot->temperature)) hot = &r;
  }
  std::vector<double> c;
  for (const auto& r : ranks) c.push_back(r.compute_p50);
  const double med = median(c);
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2f", med > 0 ? slow->compute_p50 / med : 1.0);
  std::string s = "interval " + std::to_string(h.intervals) + ": step " + fmt(h.step_p50.empty() ? 0 : h.step_p50.back(), "s") +
                  ", slowest " + slow->place + " (compute " + ratio + "x the median), lowest " +
                  fmt(low->gemm_flops, unit::flops) + " at " + low->place;
  if (hot) s += ", hottest " + base::format_number(*hot->temperature) + " degC at " + hot->place;
  return s;
}

}  // namespace ga::soak
