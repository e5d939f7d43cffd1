#include "probes/rdma/pair_traffic.hpp"

#include <algorithm>
#include <cstring>

#include "base/units.hpp"
#include "topology/place.hpp"

namespace ga::rdma {
namespace {

constexpr int kTagCtl = 7310;
// The latency ping-pong's share of a direction's time, and its first (warm-up) chunk.
constexpr double kLatencyShare = 0.25;
constexpr int kLatencyChunk = 20;

// Strings of any length between the two ranks of a pair (length first, then bytes).
std::string exchange(Comm& c, int peer, const std::string& mine) {
  std::uint64_t n = mine.size(), m = 0;
  c.sendrecv(&n, sizeof n, peer, &m, sizeof m, peer, kTagCtl);
  std::string theirs(m, '\0');
  c.sendrecv(mine.data(), mine.size(), peer, theirs.data(), theirs.size(), peer, kTagCtl + 1);
  return theirs;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

struct Direction {
  int writer, target;                  // world ranks
  std::string writer_place, target_place, direction;
  unsigned seed;
};

}  // namespace

std::byte pattern_byte(std::size_t i, unsigned seed) {
  return static_cast<std::byte>((i * 2654435761u + seed * 40503u) >> 7);
}

TrafficStats run_pair_traffic(ProbeContext& ctx, const pairs::PairSchedule& sched, Transport& t,
                              const std::optional<PortInfo>& mine, const TrafficConfig& cfg, SampleSink& out) {
  Comm& comm = ctx.comm;
  TrafficStats st;
  // Who has which port: the partner's NIC names the pair's place.
  const auto ports = comm.allgather(mine ? place::nic(ctx.hostname, mine->place_name()) : std::string());
  // Split the budget over the busiest rank's share: pairs of one round run at once.
  const std::size_t nrounds = sched.inter.size() + sched.intra.size();
  const double per_direction = nrounds ? cfg.budget_s / (2.0 * static_cast<double>(nrounds)) : 0;
  unsigned round_no = 0;
  struct {
    int tried = 0, ok = 0;              // pairs this side opened and connected, and how many succeeded
    std::string first_error;
  } own;

  for (const auto* rounds : {&sched.inter, &sched.intra}) {
    for (const auto& r : *rounds) {
      ++round_no;
      const pairs::RankPair* mp = nullptr;
      for (const auto& p : r.pairs)
        if (p.a == ctx.rank || p.b == ctx.rank) mp = &p;
      if (!mp || ports[mp->a].empty() || ports[mp->b].empty()) continue;
      const int peer = mp->a == ctx.rank ? mp->b : mp->a;

      // Open and connect; a failure on either side is reported to both.
      // An error of this side's own names this side's port, so every pair's finding names the
      // host whose queue pair broke.
      std::unique_ptr<Endpoint> ep;
      std::string err;
      bool tried = true;
      try {
        ep = t.open({*mine, cfg.bw_bytes, cfg.gpu_memory, cfg.gpu_pci_bus_id});
      } catch (const std::exception& e) {
        err = ports[ctx.rank] + ": " + e.what();
      }
      const std::string their = exchange(comm, peer, err.empty() ? "ok " + ep->address() : "error " + err);
      if (err.empty() && their.rfind("ok ", 0) == 0) {
        try {
          ep->connect(their.substr(3));
        } catch (const std::exception& e) {
          err = ports[ctx.rank] + ": " + e.what();
        }
      } else if (err.empty()) {
        err = "peer " + ports[peer] + ": " + their.substr(6);
        tried = false;  // the peer broke before this side could try
      }
      if (tried) {
        ++own.tried;
        if (err.empty()) ++own.ok;
        else if (own.first_error.empty()) own.first_error = err;
      }
      const std::string their_connect = exchange(comm, peer, err);
      if (err.empty() && !their_connect.empty()) err = "peer " + ports[peer] + ": " + their_connect;

      for (int d = 0; d < 2; ++d) {
        Direction dir;
        dir.writer = d == 0 ? mp->a : mp->b;
        dir.target = d == 0 ? mp->b : mp->a;
        dir.writer_place = ports[dir.writer];
        dir.target_place = ports[dir.target];
        // Hosts name the direction between hosts; inside one host only the NICs tell it.
        dir.direction = mp->intra_host ? dir.writer_place + "->" + dir.target_place
                                       : ctx.rank_hosts[dir.writer] + "->" + ctx.rank_hosts[dir.target];
        dir.seed = round_no * 2 + static_cast<unsigned>(d);
        const bool writer = dir.writer == ctx.rank;
        std::string derr = err;
        std::vector<double> rtt;
        double bw = 0;
        int iters = 0;
        const double timeout = std::max(2.0, 4 * per_direction);
        // Four phases (latency calibration, latency, bandwidth calibration, bandwidth), each
        // closed by an exchange of status strings: whichever side breaks, both leave the phase
        // and agree that the direction failed, so no rank waits for a message never sent.
        auto phase = [&](auto&& body, const int* writer_payload) -> std::string {
          std::string mine_status;
          if (derr.empty()) {
            try {
              body();
            } catch (const std::exception& e) {
              derr = e.what();
            }
          }
          if (!derr.empty()) mine_status = "error " + derr;
          else mine_status = "ok " + (writer && writer_payload ? std::to_string(*writer_payload) : std::string());
          const std::string theirs = exchange(comm, peer, mine_status);
          if (derr.empty() && theirs.rfind("error ", 0) == 0) derr = theirs.substr(6);
          return theirs.rfind("ok ", 0) == 0 ? theirs.substr(3) : std::string();
        };
        auto as_int = [](const std::string& s, int dflt) {
          try {
            return std::stoi(s);
          } catch (const std::exception&) {
            return dflt;
          }
        };
        // GPU buffers cannot be polled by the CPU: no ping-pong there (both sides know cfg).
        // Latency is bounded by time, not by a count sized once: chunks of round trips, the
        // first a warm-up, each next one sized from the mean round trip of the last and never
        // more than 4x it, until the latency's share of the direction's time is spent or
        // max_lat_iters are measured. A calibration of 20 fast round trips followed by a run of
        // slow ones (a 4 ms scheduler tick on an oversubscribed host) used to size 2000 round
        // trips and run past the phase's timeout; now a chunk can overrun its share by at most
        // a few times the chunk before it. The writer decides; the next count (0: done) reaches
        // the target through the phase's closing exchange.
        if (!cfg.gpu_memory) {
          const double lat_share = per_direction * kLatencyShare;
          int next = std::min(kLatencyChunk, cfg.max_lat_iters);
          double spent = 0, slowest = 0;
          bool warmup = true;
          while (next > 0 && derr.empty()) {
            const int n = next;
            int announce = 0;
            const std::string got = phase([&] {
              if (!writer) {
                ep->pong(cfg.lat_bytes, n, timeout);
                return;
              }
              const double t0 = comm.wtime();
              const auto r = ep->ping(cfg.lat_bytes, n, timeout);
              const double took = comm.wtime() - t0;
              spent += took;
              for (double x : r) slowest = std::max(slowest, x);
              if (!warmup) rtt.insert(rtt.end(), r.begin(), r.end());
              const int left = cfg.max_lat_iters - static_cast<int>(rtt.size());
              const double mean = std::max(took / n, 1e-7);
              const double time_left = lat_share - spent;
              // At most 4x the last chunk, and never so many that the slowest round trip seen
              // so far, repeated, would take a quarter of the call's timeout.
              const int cap = std::max(1, std::min({left, 4 * n, static_cast<int>(0.25 * timeout / std::max(slowest, 1e-7))}));
              if (left <= 0) announce = 0;
              else if (warmup) announce = std::min(cap, std::max(kLatencyChunk, static_cast<int>(time_left / mean)));
              else if (time_left <= 0) announce = 0;
              else announce = std::clamp(static_cast<int>(time_left / mean), 1, cap);
            }, &announce);
            warmup = false;
            next = writer ? announce : as_int(got, 0);
          }
        }
        auto sb = derr.empty() ? ep->send_buffer() : std::span<std::byte>();
        if (writer && !sb.empty())
          for (std::size_t i = 0; i < cfg.bw_bytes; ++i) sb[i] = pattern_byte(i, dir.seed);
        int bw_n = 4;
        const std::string got_bw = phase([&] {
          if (writer) {
            const double t0 = comm.wtime();
            ep->write(cfg.bw_bytes, 2, timeout);
            const double one = std::max((comm.wtime() - t0) / 2, 1e-7);
            bw_n = std::clamp(static_cast<int>(per_direction * 0.5 / one), 4, cfg.max_bw_iters);
          } else {
            ep->await_writes(cfg.bw_bytes, 2, timeout);
          }
        }, &bw_n);
        iters = writer ? bw_n : as_int(got_bw, 4);
        phase([&] {
          if (writer) {
            const double t1 = comm.wtime();
            ep->write(cfg.bw_bytes, iters, timeout);
            bw = static_cast<double>(cfg.bw_bytes) * iters / std::max(comm.wtime() - t1, 1e-9);
          } else {
            ep->await_writes(cfg.bw_bytes, iters, timeout);
            // The target checks what landed (a lost or misplaced write shows here).
            auto rb = ep->recv_buffer();
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < rb.size() && i < cfg.bw_bytes; ++i)
              if (rb[i] != pattern_byte(i, dir.seed)) ++wrong;
            if (wrong)
              throw TransportError("data check: " + std::to_string(wrong) + " of " + std::to_string(cfg.bw_bytes) +
                                   " bytes wrong at " + dir.target_place);
          }
        }, nullptr);
        if (!writer) continue;

        const std::string where = place::pair(ports[mp->a], ports[mp->b]);
        nlohmann::json common = {{"direction", dir.direction}, {"transport", t.name()},
                                 {"memory", cfg.gpu_memory ? "gpu" : "host"}};
        ++st.pairs_measured;
        if (!derr.empty()) {
          ++st.pairs_failed;
          auto p = common;
          p["error"] = derr;
          out.value(where, "rdma.pair_ok", 0, unit::boolean, p);
          continue;
        }
        out.value(where, "rdma.pair_ok", 1, unit::boolean, common);
        if (!rtt.empty()) {
          auto lp = common;
          lp["bytes"] = cfg.lat_bytes;
          // One-way latency: half the round trip, as ib_write_lat reports it.
          out.value(where, "rdma.write_lat", quantile(rtt, 0.5) / 2, unit::seconds, lp);
          out.value(where, "rdma.write_lat_p99", quantile(rtt, 0.99) / 2, unit::seconds, lp);
        }
        auto bp = common;
        bp["bytes"] = cfg.bw_bytes;
        out.value(where, "rdma.write_bw", bw, unit::bytes_per_second, bp);
      }
    }
  }
  // The port's own verdict: its queue pairs reached RTS with some partner, or with none (a
  // local fault, not a skip, with the first error). A peer that broke first is not counted.
  if (mine && own.tried > 0) {
    nlohmann::json p = nlohmann::json::object();
    if (own.ok == 0) p["reason"] = own.first_error;
    out.value(place::nic(ctx.hostname, mine->place_name()), "rdma.port_qp_ok", own.ok > 0 ? 1 : 0, unit::boolean, p);
  }
  return st;
}

}  // namespace ga::rdma
