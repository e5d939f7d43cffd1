#include "probes/rdma/pair_traffic.hpp"

#include <algorithm>
#include <cstring>

#include "base/units.hpp"
#include "topology/place.hpp"

namespace ga::rdma {
namespace {

constexpr int kTagCtl = 7310;

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

  for (const auto* rounds : {&sched.inter, &sched.intra}) {
    for (const auto& r : *rounds) {
      ++round_no;
      const pairs::RankPair* mp = nullptr;
      for (const auto& p : r.pairs)
        if (p.a == ctx.rank || p.b == ctx.rank) mp = &p;
      if (!mp || ports[mp->a].empty() || ports[mp->b].empty()) continue;
      const int peer = mp->a == ctx.rank ? mp->b : mp->a;

      // Open and connect; a failure on either side is reported to both.
      std::unique_ptr<Endpoint> ep;
      std::string err;
      try {
        ep = t.open({*mine, cfg.bw_bytes, cfg.gpu_memory, cfg.gpu_pci_bus_id});
      } catch (const std::exception& e) {
        err = e.what();
      }
      const std::string their = exchange(comm, peer, err.empty() ? "ok " + ep->address() : "error " + err);
      if (err.empty() && their.rfind("ok ", 0) == 0) {
        try {
          ep->connect(their.substr(3));
        } catch (const std::exception& e) {
          err = e.what();
        }
      } else if (err.empty()) {
        err = "peer " + ports[peer] + ": " + their.substr(6);
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
        if (!cfg.gpu_memory) {
          int lat_iters = 20;
          int lat_n = 20;
          const std::string got = phase([&] {
            if (writer) {
              const auto cal = ep->ping(cfg.lat_bytes, 20, timeout);
              const double one = std::max(quantile(cal, 0.5), 1e-7);
              lat_n = std::clamp(static_cast<int>(per_direction * 0.25 / one), 20, cfg.max_lat_iters);
            } else {
              ep->pong(cfg.lat_bytes, 20, timeout);
            }
          }, &lat_n);
          // The writer's count reached the target through the exchange (computed before it).
          lat_iters = writer ? lat_n : as_int(got, 20);
          phase([&] {
            if (writer) rtt = ep->ping(cfg.lat_bytes, lat_iters, timeout);
            else ep->pong(cfg.lat_bytes, lat_iters, timeout);
          }, nullptr);
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
  return st;
}

}  // namespace ga::rdma
