#include "probes/harness/net_counters.hpp"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "base/file_io.hpp"

namespace ga::net {

namespace {

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Counters are unsigned 64-bit integers; some (Tcp.MaxConn) are -1. A double holds both well
// enough for deltas of the sizes a probe sees.
std::optional<double> number(const std::string& w) {
  long long v = 0;
  const auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (ec == std::errc() && p == w.data() + w.size()) return static_cast<double>(v);
  unsigned long long u = 0;
  const auto [q, ec2] = std::from_chars(w.data(), w.data() + w.size(), u);
  if (ec2 == std::errc() && q == w.data() + w.size()) return static_cast<double>(u);
  return std::nullopt;
}

std::string text_of(const std::string& path) {
  const auto v = base::read_whole_file(path);
  return std::string(v.begin(), v.end());
}

[[noreturn]] void bad(const std::string& file, int line, const std::string& what) {
  throw std::runtime_error(file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace

void parse_stat_pairs(const std::string& text, const std::string& file, std::map<std::string, double>& into) {
  std::istringstream in(text);
  std::string names, values;
  int line = 0;
  while (std::getline(in, names)) {
    ++line;
    if (names.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (!std::getline(in, values)) bad(file, line, "a line of names with no line of values after it");
    ++line;
    const auto n = words(names), v = words(values);
    if (n.empty() || n[0].empty() || n[0].back() != ':' || v.empty() || v[0] != n[0])
      bad(file, line, "expected \"" + (n.empty() ? std::string("Group:") : n[0]) + " values...\" after the names");
    const std::string group = n[0].substr(0, n[0].size() - 1);
    if (n.size() != v.size())
      bad(file, line, group + " has " + std::to_string(n.size() - 1) + " names but " + std::to_string(v.size() - 1) + " values");
    for (std::size_t i = 1; i < n.size(); ++i) {
      const auto x = number(v[i]);
      if (!x) bad(file, line, group + "." + n[i] + " is not a number: \"" + v[i] + "\"");
      into[group + "." + n[i]] = *x;
    }
  }
}

std::map<std::string, IfaceCounters> parse_proc_net_dev(const std::string& text, const std::string& file) {
  std::map<std::string, IfaceCounters> out;
  std::istringstream in(text);
  std::string s;
  int line = 0;
  while (std::getline(in, s)) {
    ++line;
    const auto colon = s.find(':');
    // The two header lines have '|' and no "NAME:" before it.
    if (colon == std::string::npos || s.find('|') != std::string::npos) continue;
    const auto w0 = s.find_first_not_of(" \t");
    const std::string name = s.substr(w0, colon - w0);
    if (name.empty()) bad(file, line, "an interface line with no name");
    const auto v = words(s.substr(colon + 1));
    // rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes packets errs drop ...
    if (v.size() < 12) bad(file, line, name + ": " + std::to_string(v.size()) + " fields, expected 16");
    std::vector<double> x;
    for (const auto& w : v) {
      const auto n = number(w);
      if (!n) bad(file, line, name + ": not a number: \"" + w + "\"");
      x.push_back(*n);
    }
    if (name == "lo") continue;
    out[name] = {x[2], x[3], x[10], x[11], {}};
  }
  return out;
}

std::map<std::string, double> parse_link_carriers(const void* data, std::size_t n, bool* done) {
  std::map<std::string, double> out;
  if (done) *done = false;
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t at = 0;
  while (at + sizeof(nlmsghdr) <= n) {
    nlmsghdr h;
    std::memcpy(&h, p + at, sizeof h);
    if (h.nlmsg_len < sizeof h || h.nlmsg_len > n - at) throw std::runtime_error("rtnetlink: a message runs past the reply");
    if (h.nlmsg_type == NLMSG_DONE) {
      if (done) *done = true;
      break;
    }
    if (h.nlmsg_type == NLMSG_ERROR) {
      int err = 0;
      if (h.nlmsg_len >= sizeof h + sizeof err) std::memcpy(&err, p + at + NLMSG_HDRLEN, sizeof err);
      throw std::runtime_error("rtnetlink: RTM_GETLINK refused: " + base::errno_text(-err));
    }
    if (h.nlmsg_type == RTM_NEWLINK && h.nlmsg_len >= NLMSG_LENGTH(sizeof(ifinfomsg))) {
      std::string name;
      std::optional<double> changes;
      std::size_t a = at + NLMSG_LENGTH(sizeof(ifinfomsg));
      const std::size_t end = at + h.nlmsg_len;
      while (a + sizeof(rtattr) <= end) {
        rtattr r;
        std::memcpy(&r, p + a, sizeof r);
        if (r.rta_len < sizeof r || r.rta_len > end - a) throw std::runtime_error("rtnetlink: an attribute runs past its message");
        const unsigned char* v = p + a + RTA_LENGTH(0);
        const std::size_t vn = r.rta_len - RTA_LENGTH(0);
        if (r.rta_type == IFLA_IFNAME) name.assign(reinterpret_cast<const char*>(v), strnlen(reinterpret_cast<const char*>(v), vn));
        if (r.rta_type == IFLA_CARRIER_CHANGES && vn >= sizeof(std::uint32_t)) {
          std::uint32_t c;
          std::memcpy(&c, v, sizeof c);
          changes = c;
        }
        a += RTA_ALIGN(r.rta_len);
      }
      if (!name.empty() && changes) out[name] = *changes;
    }
    at += NLMSG_ALIGN(h.nlmsg_len);
  }
  return out;
}

std::map<std::string, double> read_link_carriers() {
  base::UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (!fd) throw std::runtime_error("rtnetlink: socket: " + base::errno_text(errno));
  struct {
    nlmsghdr h;
    ifinfomsg i;
  } req{};
  req.h.nlmsg_len = NLMSG_LENGTH(sizeof(ifinfomsg));
  req.h.nlmsg_type = RTM_GETLINK;
  req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.h.nlmsg_seq = 1;
  req.i.ifi_family = AF_UNSPEC;
  if (::send(fd.get(), &req, req.h.nlmsg_len, 0) < 0) throw std::runtime_error("rtnetlink: send: " + base::errno_text(errno));
  // A dump comes in several datagrams, the last ending in NLMSG_DONE.
  std::map<std::string, double> out;
  std::vector<unsigned char> buf(1 << 16);
  for (int guard = 0; guard < 10000; ++guard) {
    const ssize_t got = ::recv(fd.get(), buf.data(), buf.size(), 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("rtnetlink: recv: " + base::errno_text(errno));
    }
    bool done = false;
    auto part = parse_link_carriers(buf.data(), static_cast<std::size_t>(got), &done);
    out.insert(part.begin(), part.end());
    if (done || got == 0) return out;
  }
  throw std::runtime_error("rtnetlink: the link dump did not end");
}

Counters read_counters(const std::string& proc_root) {
  Counters c;
  for (const char* f : {"/net/snmp", "/net/netstat"}) {
    const std::string path = proc_root + f;
    parse_stat_pairs(text_of(path), path, c.stats);
  }
  const std::string dev = proc_root + "/net/dev";
  c.ifaces = parse_proc_net_dev(text_of(dev), dev);
  for (const auto& [name, changes] : read_link_carriers())
    if (auto it = c.ifaces.find(name); it != c.ifaces.end()) it->second.carrier_changes = changes;
  return c;
}

Counters delta(const Counters& before, const Counters& after) {
  Counters d;
  for (const auto& [k, v] : after.stats)
    if (auto it = before.stats.find(k); it != before.stats.end() && v >= it->second) d.stats[k] = v - it->second;
  for (const auto& [name, a] : after.ifaces) {
    auto it = before.ifaces.find(name);
    if (it == before.ifaces.end()) continue;
    const auto& b = it->second;
    if (a.rx_errors < b.rx_errors || a.rx_drops < b.rx_drops || a.tx_errors < b.tx_errors || a.tx_drops < b.tx_drops)
      continue;
    IfaceCounters x{a.rx_errors - b.rx_errors, a.rx_drops - b.rx_drops, a.tx_errors - b.tx_errors, a.tx_drops - b.tx_drops, {}};
    if (a.carrier_changes && b.carrier_changes && *a.carrier_changes >= *b.carrier_changes)
      x.carrier_changes = *a.carrier_changes - *b.carrier_changes;
    d.ifaces[name] = x;
  }
  return d;
}

const std::vector<TcpField>& tcp_fields() {
  static const std::vector<TcpField> f = {
      {"net.tcp.out_segs", "Tcp.OutSegs"},
      {"net.tcp.retrans_segs", "Tcp.RetransSegs"},
      {"net.tcp.in_errs", "Tcp.InErrs"},
      {"net.tcp.timeouts", "TcpExt.TCPTimeouts"},
      {"net.tcp.lost_retransmit", "TcpExt.TCPLostRetransmit"},
      {"net.tcp.ofo_queued", "TcpExt.TCPOFOQueue"},
      {"net.tcp.loss_probes", "TcpExt.TCPLossProbes"},
  };
  return f;
}

}  // namespace ga::net
