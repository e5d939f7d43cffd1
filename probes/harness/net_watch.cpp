// The counters the harness takes around each fabric probe (probes/harness/net_watch.hpp).
#include "probes/harness/net_watch.hpp"

#include <set>

#include "base/units.hpp"

namespace ga::net {

bool watched(const std::string& probe) {
  static const std::set<std::string> fabric = {"p2p", "rdma", "mpi-coll", "nccl"};
  return fabric.count(probe) > 0;
}

void Watch::begin() {
  try {
    before_ = read_counters(proc_root_);
  } catch (const std::exception& e) {
    before_.reset();
    why_not_ = e.what();
  }
}

void Watch::end(const std::string& host, const std::string& during, SampleSink& out) {
  std::optional<Counters> after;
  std::string why = why_not_;
  if (before_) {
    try {
      after = read_counters(proc_root_);
    } catch (const std::exception& e) {
      why = e.what();
    }
  }
  nlohmann::json at = {{"during", during}};
  if (!before_ || !after) {
    nlohmann::json p = at;
    p["why"] = "not read: " + why;
    out.value(host, "net.counters_read", 0, unit::boolean, p);
    return;
  }
  out.value(host, "net.counters_read", 1, unit::boolean, at);
  const Counters d = delta(*before_, *after);
  for (const auto& f : tcp_fields())
    if (auto it = d.stats.find(f.field); it != d.stats.end()) out.value(host, f.metric, it->second, unit::count, at);
  // Retransmitted segments per segment sent: comparable between hosts that sent different
  // amounts, and what an absolute ceiling can be stated for.
  auto out_segs = d.stats.find("Tcp.OutSegs"), retrans = d.stats.find("Tcp.RetransSegs");
  if (out_segs != d.stats.end() && retrans != d.stats.end() && out_segs->second > 0)
    out.value(host, "net.tcp.retrans_rate", retrans->second / out_segs->second, "", at);
  for (const auto& [name, c] : d.ifaces) {
    nlohmann::json p = at;
    p["iface"] = name;
    out.value(host, "net.iface.rx_errors", c.rx_errors, unit::count, p);
    out.value(host, "net.iface.rx_drops", c.rx_drops, unit::count, p);
    out.value(host, "net.iface.tx_errors", c.tx_errors, unit::count, p);
    out.value(host, "net.iface.tx_drops", c.tx_drops, unit::count, p);
    if (c.carrier_changes) out.value(host, "net.iface.carrier_changes", *c.carrier_changes, unit::count, p);
  }
}

}  // namespace ga::net
