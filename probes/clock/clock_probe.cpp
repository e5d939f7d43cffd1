// clock: how far each host's clock is from the cluster's median clock, whether the kernel
// and the time daemon say the clock is synchronised, and each host's time zone. Field notes
// (../shared/docs/field-notes.md): "NCCL timeouts" that were clocks out of sync, logs that
// disagreed by a minute and a half. docs/clock.md explains the method.
#include <algorithm>
#include <chrono>
#include <thread>

#include "base/units.hpp"
#include "probes/clock/offset_math.hpp"
#include "probes/clock/ping_pong.hpp"
#include "probes/clock/witnesses.hpp"
#include "probes/probe.hpp"
#include "topology/place.hpp"

namespace ga {
namespace {

constexpr const char* kPpm = "ppm";
constexpr int kExchanges = 64, kKeep = 8;
constexpr double kGapS = 1.0, kCommandTimeoutS = 2.0;

// One rank per host: the first rank on each host, hosts in order of their first rank (the
// harness's host order, so the reference, rank 0, leads host 0).
std::vector<int> host_leaders(const std::vector<std::string>& rank_hosts, std::vector<std::string>& hosts) {
  std::vector<int> leaders;
  for (std::size_t r = 0; r < rank_hosts.size(); ++r) {
    if (std::find(hosts.begin(), hosts.end(), rank_hosts[r]) != hosts.end()) continue;
    hosts.push_back(rank_hosts[r]);
    leaders.push_back(static_cast<int>(r));
  }
  return leaders;
}

// Rank 0's analysis of both rounds: one JSON object per host, plus the cluster's skew.
nlohmann::json analyse(const std::vector<std::string>& hosts, const std::vector<std::vector<clock::Exchange>>& first,
                       const std::vector<std::vector<clock::Exchange>>& second, int keep, double gap_mono) {
  nlohmann::json out = {{"hosts", nlohmann::json::array()}};
  std::vector<std::optional<clock::Estimate>> e1, e2;
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    if (h == 0) {
      // The reference reads its own clock: offset 0 exactly, at the rounds' own times.
      clock::Estimate self;
      self.mid_mono = 0;
      e1.push_back(self);
      self.mid_mono = gap_mono;
      e2.push_back(self);
      continue;
    }
    e1.push_back(clock::estimate_offset(first[h], keep));
    e2.push_back(clock::estimate_offset(second[h], keep));
  }
  // Hosts without a usable final estimate are left out of the median and reported as errors.
  std::vector<double> offs, uncs, drifts, drift_uncs;
  std::vector<std::size_t> measured;
  std::vector<std::optional<clock::Drift>> drift(hosts.size());
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    if (!e2[h]) continue;
    measured.push_back(h);
    offs.push_back(e2[h]->offset);
    uncs.push_back(e2[h]->uncertainty);
    if (e1[h] && (h == 0 || e2[h]->mid_mono > e1[h]->mid_mono)) {
      drift[h] = h == 0 ? clock::Drift{0, 0, gap_mono} : clock::drift(*e1[h], *e2[h]);
      drifts.push_back(drift[h]->ppm);
      drift_uncs.push_back(drift[h]->uncertainty_ppm);
    }
  }
  const auto cluster = clock::relative_to_median(offs, uncs);
  std::optional<clock::Cluster> drift_cluster;
  if (!drifts.empty()) drift_cluster = clock::relative_to_median(drifts, drift_uncs);
  std::size_t di = 0;
  for (std::size_t h = 0, mi = 0; h < hosts.size(); ++h) {
    nlohmann::json j = {{"host", hosts[h]}};
    if (!e2[h]) {
      j["error"] = "no usable exchange with the reference: every one saw the realtime clock step";
      out["hosts"].push_back(j);
      continue;
    }
    const auto& r = cluster.hosts[mi++];
    const auto& e = *e2[h];
    j.update({{"offset", r.offset}, {"uncertainty", r.uncertainty}, {"low", r.low}, {"high", r.high},
              {"abs_bound", r.abs_bound}, {"to_reference", e.offset}, {"own_uncertainty", e.uncertainty},
              {"rtt", e.rtt}, {"exchanges", e.used + e.rejected}, {"rejected", e.rejected}, {"kept", e.kept},
              {"kept_spread", e.kept_spread}});
    if (e1[h]) j["to_reference_first"] = e1[h]->offset;
    if (drift[h] && drift_cluster) {
      const auto& d = drift_cluster->hosts[di++];
      j["drift_ppm"] = d.offset;
      j["drift_uncertainty_ppm"] = d.uncertainty;
      j["drift_interval"] = drift[h]->interval;
    }
    out["hosts"].push_back(j);
  }
  const auto skew = clock::max_skew(offs, uncs);
  out["skew"] = {{"value", skew.value}, {"uncertainty", skew.uncertainty},
                 {"fast", hosts[measured[static_cast<std::size_t>(skew.fast)]]},
                 {"slow", hosts[measured[static_cast<std::size_t>(skew.slow)]]},
                 {"median_to_reference", cluster.median}, {"hosts_measured", measured.size()}};
  return out;
}

class ClockProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "clock";
    i.summary =
        "each host's clock offset from the cluster median (MPI ping-pong, lowest round trips), skew, drift; "
        "kernel and time-daemon sync state; time zone";
    i.caveat =
        "offsets are bounded by half the MPI round trip; PTP-grade (sub-microsecond) agreement cannot be shown "
        "this way";
    using K = place::Kind;
    i.metrics = {
        MetricDecl{"clock.offset", unit::seconds, Better::lower,
         "the host clock's offset from the cluster's median clock (signed; params give its interval)"}
            .at({K::host})
            .carries({"uncertainty", "low", "high", "to_reference", "reference_host", "rtt", "exchanges", "rejected",
                      "kept_spread"}),
        MetricDecl{"clock.offset_abs", unit::seconds, Better::lower,
         "the largest absolute offset from the cluster median that the measured interval allows"}
            .at({K::host}).carries({"offset", "uncertainty"}),
        MetricDecl{"clock.offset_uncertainty", unit::seconds, Better::lower, "half-width of the offset's interval"}
            .at({K::host}).carries({"rtt"}),
        MetricDecl{"clock.max_skew", unit::seconds, Better::lower, "the largest offset between two hosts (place cluster)"}
            .at({K::cluster}).carries({"uncertainty", "fast_host", "slow_host", "hosts"}),
        MetricDecl{"clock.drift_ppm", kPpm, Better::lower, "the host clock's rate against the cluster median between the two rounds"}
            .at({K::host}).carries({"uncertainty_ppm", "interval"}),
        MetricDecl{"clock.synchronized", unit::boolean, Better::higher,
         "the kernel and the time daemon say the clock is synchronised (params: reason, daemon)"}
            .at({K::host}).carries({"reason", "daemon"}),
        MetricDecl{"clock.kernel_synchronized", unit::boolean, Better::higher, "the kernel (adjtimex) says the clock is synchronised"}
            .at({K::host}).carries({"state", "status"}),
        MetricDecl{"clock.kernel_maxerror", unit::seconds, Better::lower, "the kernel's maximum error of the clock (adjtimex)"}
            .at({K::host}).carries({"state", "status"}),
        MetricDecl{"clock.kernel_esterror", unit::seconds, Better::lower, "the kernel's estimated error of the clock (adjtimex)"}
            .at({K::host}).carries({"state", "status"}),
        MetricDecl{"clock.chrony_offset", unit::seconds, Better::lower, "chrony's offset of the system clock from its source"}
            .at({K::host})
            .carries({"reference_id", "reference", "stratum", "leap_status", "selected_source", "sources"}),
        MetricDecl{"clock.daemon", unit::text, Better::none, "the time daemon that keeps the clock: chrony, systemd-timesyncd or \"none found\""}
            .at({K::host}).carries({}),
        MetricDecl{"clock.rtc_local_tz", unit::boolean, Better::lower, "the hardware clock keeps local time instead of UTC"}
            .at({K::host}).carries({}),
        MetricDecl{"clock.timezone", unit::text, Better::none, "the host's time zone"}.at({K::host}).carries({}),
    };
    i.params = {
        {"exchanges", ParamType::integer, kExchanges, 1, {}, {},
         "ping-pong exchanges per host and round (at least 4 are made); the lowest round trips are kept"},
        {"keep", ParamType::integer, kKeep, 1, {}, {}, "lowest-round-trip exchanges kept per host for the offset"},
        {"gap_s", ParamType::number, kGapS, 0, {}, {}, "seconds between the two rounds (sets the drift's resolution)"},
        {"command_timeout_s", ParamType::number, kCommandTimeoutS, 0, {}, {},
         "time limit for each time tool (chronyc, timedatectl ...)"},
    };
    return i;
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    const int exchanges = std::max(4, ctx.params.value("exchanges", kExchanges));
    const int keep = std::max(1, ctx.params.value("keep", kKeep));
    const double gap_s = std::max(0.0, ctx.params.value("gap_s", kGapS));
    const double cmd_timeout = ctx.params.value("command_timeout_s", kCommandTimeoutS);

    std::vector<std::string> hosts;
    const auto leaders = host_leaders(ctx.rank_hosts, hosts);
    const bool leader = std::find(leaders.begin(), leaders.end(), ctx.rank) != leaders.end();
    // Rounds must leave time for the gap, the tools and gathering: a fifth of what is left each.
    clock::RoundPlan plan;
    plan.leaders = leaders;
    plan.exchanges = exchanges;
    plan.seconds_per_host = std::max(0.01, std::min(1.0, ctx.seconds_left() * 0.2 / static_cast<double>(hosts.size())));

    const double t_first = clock::now_mono();
    auto first = clock::measure_round(ctx.comm, plan);

    // The kernel and daemon view fills the gap between the rounds.
    std::optional<clock::HostTimeView> view;
    if (leader) view = clock::collect_host_time_view(cmd_timeout);
    const double gap = hosts.size() > 1 ? std::min(gap_s, ctx.seconds_left() * 0.25) : 0.0;
    const double left = gap - (clock::now_mono() - t_first);
    if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
    ctx.comm.barrier();
    auto second = clock::measure_round(ctx.comm, plan);
    const double gap_mono = clock::now_mono() - t_first;

    std::string result;
    if (ctx.rank == 0) {
      try {
        result = analyse(hosts, first, second, keep, gap_mono).dump();
      } catch (const std::exception& e) {
        result = nlohmann::json{{"error", std::string("offset analysis: ") + e.what()}}.dump();
      }
    }
    const auto analysis = nlohmann::json::parse(ctx.comm.broadcast(result, 0));
    if (!leader) return Outcome::ok();

    const auto host = place::host(ctx.hostname);

    // The kernel and daemon view first: it does not depend on the offsets.
    const auto& w = view->witnesses;
    const auto verdict = clock::decide_synchronized(w);
    out.value(host, "clock.synchronized", verdict.synchronized ? 1 : 0, unit::boolean,
              {{"reason", verdict.reason}, {"daemon", verdict.daemon}});
    out.text(host, "clock.daemon", verdict.daemon);
    if (w.kernel) {
      const nlohmann::json kp = {{"state", w.kernel->state_name()}, {"status", w.kernel->status_flags()}};
      out.value(host, "clock.kernel_synchronized", w.kernel->synchronized() ? 1 : 0, unit::boolean, kp);
      out.value(host, "clock.kernel_maxerror", w.kernel->maxerror, unit::seconds, kp);
      out.value(host, "clock.kernel_esterror", w.kernel->esterror, unit::seconds, kp);
    }
    if (w.chrony && w.chrony->system_offset) {
      nlohmann::json cp = {{"reference_id", w.chrony->reference_id}, {"reference", w.chrony->reference_name},
                           {"stratum", w.chrony->stratum}, {"leap_status", w.chrony->leap_status}};
      if (view->chrony_selected) cp["selected_source"] = view->chrony_selected->name;
      if (view->chrony_sources >= 0) cp["sources"] = view->chrony_sources;
      out.value(host, "clock.chrony_offset", *w.chrony->system_offset, unit::seconds, cp);
    }
    std::optional<bool> local_rtc;
    if (w.timedatectl_show) local_rtc = w.timedatectl_show->local_rtc;
    else if (w.timedatectl_status) local_rtc = w.timedatectl_status->rtc_in_local_tz;
    if (local_rtc) out.value(host, "clock.rtc_local_tz", *local_rtc ? 1 : 0, unit::boolean);
    out.text(host, "clock.timezone", clock::host_time_zone());

    if (analysis.contains("error")) return Outcome::failed(analysis["error"].get<std::string>());
    const auto& hj = analysis["hosts"];
    auto mine = std::find_if(hj.begin(), hj.end(), [&](const nlohmann::json& j) { return j["host"] == ctx.hostname; });
    if (mine == hj.end()) return Outcome::failed("the reference's analysis has no entry for host " + ctx.hostname);
    if (mine->contains("error")) return Outcome::failed((*mine)["error"].get<std::string>());
    const auto& m = *mine;
    const std::string ref_host = hosts.front();
    out.value(host, "clock.offset", m["offset"], unit::seconds,
              {{"uncertainty", m["uncertainty"]}, {"low", m["low"]}, {"high", m["high"]},
               {"to_reference", m["to_reference"]}, {"reference_host", ref_host}, {"rtt", m["rtt"]},
               {"exchanges", m["exchanges"]}, {"rejected", m["rejected"]}, {"kept_spread", m["kept_spread"]}});
    out.value(host, "clock.offset_abs", m["abs_bound"], unit::seconds,
              {{"offset", m["offset"]}, {"uncertainty", m["uncertainty"]}});
    out.value(host, "clock.offset_uncertainty", m["uncertainty"], unit::seconds, {{"rtt", m["rtt"]}});
    if (m.contains("drift_ppm"))
      out.value(host, "clock.drift_ppm", m["drift_ppm"], kPpm,
                {{"uncertainty_ppm", m["drift_uncertainty_ppm"]}, {"interval", m["drift_interval"]}});
    if (ctx.rank == 0) {
      const auto& s = analysis["skew"];
      out.value(place::cluster(), "clock.max_skew", s["value"], unit::seconds,
                {{"uncertainty", s["uncertainty"]}, {"fast_host", s["fast"]}, {"slow_host", s["slow"]},
                 {"hosts", s["hosts_measured"]}});
    }
    return Outcome::ok();
  }
};

}  // namespace

std::unique_ptr<Probe> make_clock_probe() { return std::make_unique<ClockProbe>(); }

}  // namespace ga
