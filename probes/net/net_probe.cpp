// net: the declarations of the counters the harness takes around the fabric probes
// (probes/harness/net_watch.hpp). It has no run of its own: a suite that lists it is refused before
// the run, since counters around nothing would measure nothing.
#include "base/units.hpp"
#include "probes/probe.hpp"

namespace ga {

namespace {

class NetProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "net";
    i.summary =
        "TCP and interface counters as deltas around each fabric probe (p2p, rdma, mpi-coll, nccl), one reading "
        "per host: retransmissions, timeouts, drops and errors at the end that loses packets";
    using K = place::Kind;
    const std::vector<std::string> at = {"during"};
    const std::vector<std::string> iface = {"during", "iface"};
    auto count = [&](const char* id, const char* what) {
      return MetricDecl{id, unit::count, Better::lower, what}.at({K::host}).carries(at).own_network();
    };
    auto per_iface = [&](const char* id, const char* what) {
      return MetricDecl{id, unit::count, Better::lower, what}.at({K::host}).carries(iface).own_network();
    };
    i.metrics = {
        MetricDecl{"net.counters_read", unit::boolean, Better::higher,
                   "1 when the host's counters were read before and after the probe (params: during, why)"}
            .at({K::host}).carries({"during", "why"}),
        MetricDecl{"net.tcp.out_segs", unit::count, Better::none, "TCP segments the host sent during the probe (Tcp.OutSegs)"}
            .at({K::host}).carries(at).own_network(),
        count("net.tcp.retrans_segs", "TCP segments the host retransmitted during the probe (Tcp.RetransSegs)"),
        MetricDecl{"net.tcp.retrans_rate", "", Better::lower,
                   "retransmitted TCP segments per segment sent during the probe (RetransSegs / OutSegs)"}
            .at({K::host}).carries(at).own_network(),
        count("net.tcp.in_errs", "TCP segments received in error during the probe (Tcp.InErrs)"),
        count("net.tcp.timeouts", "TCP retransmission timeouts during the probe (TcpExt.TCPTimeouts)"),
        count("net.tcp.lost_retransmit", "retransmissions lost again during the probe (TcpExt.TCPLostRetransmit)"),
        count("net.tcp.loss_probes",
              "tail loss probes sent during the probe (TcpExt.TCPLossProbes): how Linux recovers a lost last "
              "segment, as a ping-pong's is, before any retransmission timeout"),
        count("net.tcp.ofo_queued", "TCP segments received out of order during the probe (TcpExt.TCPOFOQueue)"),
        per_iface("net.iface.rx_errors", "receive errors on one interface during the probe (/proc/net/dev)"),
        per_iface("net.iface.rx_drops", "received packets dropped on one interface during the probe (/proc/net/dev)"),
        per_iface("net.iface.tx_errors", "transmit errors on one interface during the probe (/proc/net/dev)"),
        per_iface("net.iface.carrier_changes",
                  "times one interface's carrier came or went during the probe (rtnetlink IFLA_CARRIER_CHANGES, as "
                  "/sys/class/net/IF/carrier_changes): a link that flaps"),
        per_iface("net.iface.tx_drops", "packets to send dropped on one interface during the probe (/proc/net/dev)"),
    };
    return i;
  }

  std::optional<ParamProblem> check_config(const nlohmann::json&) const override {
    return ParamProblem{"", "net is not a suite entry: its counters are taken around the fabric probes (p2p, rdma, "
                            "mpi-coll, nccl) of the suite; list those instead"};
  }

  Outcome run(ProbeContext&, SampleSink&) override {
    return Outcome::tool_error("net has no run of its own (its counters are taken around the fabric probes)");
  }
};

}  // namespace

std::unique_ptr<Probe> make_net_probe() { return std::make_unique<NetProbe>(); }

}  // namespace ga
