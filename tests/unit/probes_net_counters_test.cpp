// The net counters taken around the fabric probes (probes/harness/net_counters, net_watch): the /proc parsers, deltas, and
// the Watch's samples, on recorded /proc text (Debian 12's kernel 6.1 layout).
#include <gtest/gtest.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "probes/harness/net_counters.hpp"
#include "probes/harness/net_watch.hpp"
#include "scratch_dir.hpp"

using namespace ga;
using namespace ga::net;

namespace {

const char* kSnmp =
    "Ip: Forwarding DefaultTTL InReceives\n"
    "Ip: 2 64 5575\n"
    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
    "Tcp: 1 200 120000 -1 13 2 0 0 0 5548 3810 7 0 2 0\n";
const char* kNetstat =
    "TcpExt: SyncookiesSent TCPTimeouts TCPLostRetransmit TCPOFOQueue\n"
    "TcpExt: 0 3 1 12\n";
const char* kDev =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
    "    lo:    3267      29    0    0    0     0          0         0     3267      29    0    0    0     0       0          0\n"
    "  eth0: 1000 10 1 2 0 0 0 0 2000 20 3 4 0 0 0 0\n";

void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

struct Sink : SampleSink {
  std::vector<Sample> got;
  void emit(Sample s) override { got.push_back(std::move(s)); }
  std::optional<double> value(const std::string& metric, const std::string& iface = "") const {
    for (const auto& s : got)
      if (s.metric == metric && (iface.empty() || (s.params.contains("iface") && s.params["iface"] == iface))) return s.value;
    return std::nullopt;
  }
};

}  // namespace

TEST(NetCounters, ParsesSnmpAndNetstatPairsByGroupAndName) {
  std::map<std::string, double> c;
  parse_stat_pairs(kSnmp, "snmp", c);
  parse_stat_pairs(kNetstat, "netstat", c);
  EXPECT_EQ(c.at("Tcp.RetransSegs"), 7);
  EXPECT_EQ(c.at("Tcp.OutSegs"), 3810);
  EXPECT_EQ(c.at("Tcp.MaxConn"), -1);
  EXPECT_EQ(c.at("TcpExt.TCPTimeouts"), 3);
  EXPECT_EQ(c.at("TcpExt.TCPOFOQueue"), 12);
}

TEST(NetCounters, ABadLineIsNamedWithItsFileAndLine) {
  std::map<std::string, double> c;
  try {
    parse_stat_pairs("Tcp: A B\nTcp: 1\n", "/proc/net/snmp", c);
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "/proc/net/snmp:2: Tcp has 2 names but 1 values");
  }
  EXPECT_THROW(parse_stat_pairs("Tcp: A\nUdp: 1\n", "f", c), std::runtime_error);
  EXPECT_THROW(parse_stat_pairs("Tcp: A\nTcp: x\n", "f", c), std::runtime_error);
  EXPECT_THROW(parse_stat_pairs("Tcp: A\n", "f", c), std::runtime_error);
  EXPECT_THROW(parse_proc_net_dev("  eth0: 1 2 3\n", "f"), std::runtime_error);
}

TEST(NetCounters, ProcNetDevGivesErrorsAndDropsPerInterfaceWithoutLoopback) {
  const auto d = parse_proc_net_dev(kDev, "dev");
  ASSERT_EQ(d.size(), 1u);
  const auto& e = d.at("eth0");
  EXPECT_EQ(e.rx_errors, 1);
  EXPECT_EQ(e.rx_drops, 2);
  EXPECT_EQ(e.tx_errors, 3);
  EXPECT_EQ(e.tx_drops, 4);
}

TEST(NetCounters, DeltaLeavesOutWhatWentBackwardsOrAppeared) {
  Counters a, b;
  a.stats = {{"Tcp.RetransSegs", 5}, {"Tcp.OutSegs", 100}};
  b.stats = {{"Tcp.RetransSegs", 9}, {"Tcp.OutSegs", 50}, {"Tcp.InErrs", 1}};
  a.ifaces["eth0"] = {1, 1, 1, 1, 4};
  b.ifaces["eth0"] = {1, 3, 1, 1, 6};
  b.ifaces["eth1"] = {0, 0, 0, 0, {}};
  const Counters d = delta(a, b);
  EXPECT_EQ(d.stats.at("Tcp.RetransSegs"), 4);
  EXPECT_EQ(d.stats.count("Tcp.OutSegs"), 0u);  // reset or wrapped: no delta rather than a wrong one
  EXPECT_EQ(d.stats.count("Tcp.InErrs"), 0u);
  EXPECT_EQ(d.ifaces.at("eth0").rx_drops, 2);
  EXPECT_EQ(d.ifaces.at("eth0").carrier_changes, 2);
  EXPECT_EQ(d.ifaces.count("eth1"), 0u);
}

// One RTM_NEWLINK message as the kernel sends it: header, ifinfomsg, then attributes.
std::vector<unsigned char> link_message(const std::string& name, std::optional<std::uint32_t> changes) {
  std::vector<unsigned char> m(NLMSG_LENGTH(sizeof(ifinfomsg)), 0);
  auto attr = [&](unsigned short type, const void* v, std::size_t n) {
    rtattr r{static_cast<unsigned short>(RTA_LENGTH(n)), type};
    const std::size_t at = m.size();
    m.resize(at + RTA_ALIGN(r.rta_len), 0);
    std::memcpy(m.data() + at, &r, sizeof r);
    std::memcpy(m.data() + at + RTA_LENGTH(0), v, n);
  };
  attr(IFLA_IFNAME, name.c_str(), name.size() + 1);
  if (changes) attr(IFLA_CARRIER_CHANGES, &*changes, sizeof *changes);
  nlmsghdr h{};
  h.nlmsg_len = static_cast<std::uint32_t>(m.size());
  h.nlmsg_type = RTM_NEWLINK;
  std::memcpy(m.data(), &h, sizeof h);
  return m;
}

TEST(NetCounters, CarrierChangesComeFromTheLinkDumpByInterfaceName) {
  auto buf = link_message("eth0", 7);
  auto more = link_message("eth1", std::nullopt);  // a kernel that does not say: left out
  buf.insert(buf.end(), more.begin(), more.end());
  nlmsghdr done{};
  done.nlmsg_len = NLMSG_LENGTH(0), done.nlmsg_type = NLMSG_DONE;
  buf.insert(buf.end(), reinterpret_cast<unsigned char*>(&done), reinterpret_cast<unsigned char*>(&done) + sizeof done);
  const auto c = parse_link_carriers(buf.data(), buf.size());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c.at("eth0"), 7);
}

TEST(NetCounters, ALinkDumpThatRunsPastItsBufferIsRefusedNotRead) {
  auto buf = link_message("eth0", 7);
  EXPECT_THROW(parse_link_carriers(buf.data(), buf.size() - 3), std::runtime_error);
  nlmsghdr h{};
  std::memcpy(&h, buf.data(), sizeof h);
  h.nlmsg_len = 4;  // shorter than its own header
  std::memcpy(buf.data(), &h, sizeof h);
  EXPECT_THROW(parse_link_carriers(buf.data(), buf.size()), std::runtime_error);
}

TEST(NetCounters, TheKernelsLinkDumpNamesTheLoopback) {
  // rtnetlink needs no privilege and every namespace has lo: what a host is asked in a run.
  const auto c = read_link_carriers();
  EXPECT_EQ(c.count("lo"), 1u);
}

TEST(NetWatch, RecordsTheDeltasAtTheHostForTheProbeItSurrounds) {
  ScratchDir dir;
  write(dir.p / "net/snmp", kSnmp);
  write(dir.p / "net/netstat", kNetstat);
  write(dir.p / "net/dev", kDev);
  Watch w(dir.str());
  w.begin();
  std::string snmp = kSnmp;
  snmp.replace(snmp.find("3810 7"), 6, "4810 57");  // 1000 more sent, 50 retransmitted
  write(dir.p / "net/snmp", snmp);
  write(dir.p / "net/dev", std::string(kDev).replace(std::string(kDev).find("2000 20 3 4"), 11, "2000 20 3 9"));
  Sink out;
  w.end("h1", "p2p", out);
  EXPECT_EQ(out.value("net.counters_read"), 1);
  EXPECT_EQ(out.value("net.tcp.retrans_segs"), 50);
  EXPECT_EQ(out.value("net.tcp.out_segs"), 1000);
  EXPECT_DOUBLE_EQ(*out.value("net.tcp.retrans_rate"), 0.05);
  EXPECT_EQ(out.value("net.tcp.timeouts"), 0);
  EXPECT_EQ(out.value("net.iface.tx_drops", "eth0"), 5);
  for (const auto& s : out.got) {
    EXPECT_EQ(s.place, "h1");
    EXPECT_EQ(s.params["during"], "p2p");
  }
}

TEST(NetWatch, CountersThatCannotBeReadAreRecordedAsNotReadNeverAsAFault) {
  ScratchDir dir;
  Watch w((dir.p / "absent").string());
  w.begin();
  Sink out;
  w.end("h1", "p2p", out);
  ASSERT_EQ(out.got.size(), 1u);
  EXPECT_EQ(out.got[0].metric, "net.counters_read");
  EXPECT_EQ(out.got[0].value, 0);
  EXPECT_NE(out.got[0].params["why"].get<std::string>().find("not read: "), std::string::npos);
}
