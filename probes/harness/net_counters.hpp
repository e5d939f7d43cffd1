// A host's transport and interface counters (issue 33): TCP's from /proc/net/snmp and
// /proc/net/netstat, each interface's errors and drops from /proc/net/dev. All three follow
// the reading process's network namespace (unlike /sys/class/net, which follows the namespace
// sysfs was mounted in: under the fake hosts' nsenter, the machine's own), so on a fake host
// they are that host's. Retransmissions and timeouts are the direct evidence of loss that the
// p2p timings only hint at, and they are counted at the end that drops: a host losing what it
// sends retransmits it; a host losing what it receives makes its peers retransmit to it and
// retransmits its own unacknowledged segments, so in both cases its count stands out against
// the median host's. Pure parsers, so they are unit tested and fuzzed.
#pragma once
#include <map>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ga::net {

// One interface's counters (/proc/net/dev), the ones a bad cable or NIC moves.
struct IfaceCounters {
  double rx_errors = 0, rx_drops = 0, tx_errors = 0, tx_drops = 0;
  // Times the link's carrier came or went (rtnetlink's IFLA_CARRIER_CHANGES, what
  // /sys/class/net/IF/carrier_changes shows): a cable or port that flaps for a fraction of a
  // second moves it while every other counter may stay still. Absent: the kernel did not say.
  std::optional<double> carrier_changes;
};

struct Counters {
  // "Tcp.RetransSegs", "TcpExt.TCPTimeouts" ...: every "Group: names" / "Group: values" pair of
  // lines of /proc/net/snmp and /proc/net/netstat, by "Group.Name".
  std::map<std::string, double> stats;
  std::map<std::string, IfaceCounters> ifaces;  // by interface name, lo left out
};

// The "Group: a b c" / "Group: 1 2 3" line pairs of /proc/net/snmp or /proc/net/netstat into
// `into`. Throws std::runtime_error naming the line when a pair does not match up.
void parse_stat_pairs(const std::string& text, const std::string& file, std::map<std::string, double>& into);
// /proc/net/dev: its two header lines, then "  NAME: rx_bytes rx_packets rx_errs rx_drop ...".
// Throws std::runtime_error naming the line when one is short or not a number.
std::map<std::string, IfaceCounters> parse_proc_net_dev(const std::string& text, const std::string& file);

// The IFLA_CARRIER_CHANGES of each interface in a buffer of RTM_NEWLINK messages (an
// RTM_GETLINK dump's replies), by IFLA_IFNAME. Stops at NLMSG_DONE (and sets *done where
// given); throws std::runtime_error on NLMSG_ERROR or a message or attribute that runs past the
// buffer.
std::map<std::string, double> parse_link_carriers(const void* data, std::size_t n, bool* done = nullptr);
// Asks the kernel (rtnetlink, which follows the process's network namespace as /proc/net does)
// for every interface's carrier changes; throws std::runtime_error saying what failed.
std::map<std::string, double> read_link_carriers();

// Reads all three under proc_root ("/proc"), and the carrier changes from rtnetlink; throws
// std::runtime_error naming the file that could not be read or parsed, or what rtnetlink refused.
Counters read_counters(const std::string& proc_root = "/proc");

// after - before for every counter both hold (a counter that went backwards, a wrap or a
// reset, is left out: no delta is better than a wrong one). Interfaces only in `after`
// (created meanwhile) are left out too.
Counters delta(const Counters& before, const Counters& after);

// The TCP counters recorded as net.tcp.NAME, with the /proc field each comes from.
struct TcpField {
  const char* metric;   // "net.tcp.retrans_segs"
  const char* field;    // "Tcp.RetransSegs"
};
const std::vector<TcpField>& tcp_fields();

}  // namespace ga::net
