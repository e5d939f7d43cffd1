#include "probes/devices/port_inventory.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <system_error>

#include "base/natural_order.hpp"
#include "base/sysfs_read.hpp"

namespace ga::rdma {
namespace {

namespace fs = std::filesystem;

using sysfs::read_line;

std::optional<long long> read_int(const fs::path& p) {
  auto s = read_line(p);
  if (!s || s->empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    long long v = std::stoll(*s, &used, 0);
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}


bool gid_nonzero(const std::string& g) {
  return std::any_of(g.begin(), g.end(), [](char c) { return c != '0' && c != ':'; }) && !g.empty();
}

// ports/N/gid_attrs/types/I says "RoCE v2" for v2 entries; unused entries read "" or fail
// with EINVAL on a live system, and their gids/I is all zeros.
std::optional<int> find_roce_v2_gid(const fs::path& port_dir) {
  std::error_code ec;
  const fs::path types = port_dir / "gid_attrs/types";
  if (!fs::is_directory(types, ec)) return std::nullopt;
  std::vector<int> idx;
  for (const auto& e : fs::directory_iterator(types, ec)) {
    try {
      idx.push_back(std::stoi(e.path().filename().string()));
    } catch (const std::exception&) {
    }
  }
  std::sort(idx.begin(), idx.end());
  for (int i : idx) {
    auto t = read_line(types / std::to_string(i));
    if (!t || *t != "RoCE v2") continue;
    auto g = read_line(port_dir / "gids" / std::to_string(i));
    if (g && gid_nonzero(*g)) return i;
  }
  return std::nullopt;
}

}  // namespace

std::string parse_state(const std::string& s) {
  auto colon = s.find(':');
  std::string v = colon == std::string::npos ? s : s.substr(colon + 1);
  v.erase(0, v.find_first_not_of(" \t"));
  return v;
}

Rate parse_rate(const std::string& s) {
  Rate r;
  static const std::regex re(R"(^\s*([0-9.]+)\s*Gb/sec(?:\s*\((\d+)X\s*([A-Za-z0-9]*)\))?)");
  std::smatch m;
  if (!std::regex_search(s, m, re)) return r;
  try {
    r.gbps = std::stod(m[1].str());
    if (m[2].matched) r.width = std::stoi(m[2].str());
  } catch (const std::exception&) {
  }
  if (m[3].matched) r.speed = m[3].str();
  return r;
}

std::optional<int> parse_mtu(const std::string& s) {
  try {
    int v = std::stoi(s);
    if (v >= 1 && v <= 5) return 128 << v;  // enum ibv_mtu: 1 = 256 ... 5 = 4096
    if (v >= 256) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

const std::vector<std::string>& error_counter_names() {
  // The IB PortCounters that mean a sick link or cable (symbol errors, retrains, receive
  // errors, discards); data and packet counts are not errors and are left out.
  static const std::vector<std::string> names = {
      "symbol_error", "link_downed", "link_error_recovery", "port_rcv_errors",
      "port_rcv_remote_physical_errors", "port_xmit_discards", "local_link_integrity_errors",
      "excessive_buffer_overrun_errors", "port_rcv_constraint_errors", "port_xmit_constraint_errors",
      "VL15_dropped"};
  return names;
}

const std::vector<std::string>& hw_error_counter_names() {
  // mlx5's per-port transport counters (drivers/infiniband/hw/mlx5/counters.c) that mean lost
  // or damaged packets: out_of_sequence and packet_seq_err (a PSN gap: a packet dropped on
  // the way), implied_nak_seq_err, local_ack_timeout_err (a retransmission after no ACK),
  // rx_icrc_encapsulated (RoCE packets with a bad ICRC). Left out: request and traffic counts,
  // and rnr_nak_retry_err / out_of_buffer (a receiver without a posted WQE: the application's
  // doing, not the port's).
  static const std::vector<std::string> names = {
      "out_of_sequence", "packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err", "rx_icrc_encapsulated"};
  return names;
}

std::vector<PortInfo> read_ports(const std::string& root_s) {
  std::vector<PortInfo> out;
  std::error_code ec;
  const fs::path root = root_s.empty() ? fs::path("/") : fs::path(root_s);
  const fs::path cls = root / "sys/class/infiniband";
  if (!fs::is_directory(cls, ec)) return out;
  std::vector<std::string> devs;
  for (const auto& e : fs::directory_iterator(cls, ec))
    if (e.path().filename().string().rfind('.', 0) != 0) devs.push_back(e.path().filename().string());
  std::sort(devs.begin(), devs.end(), [](const std::string& a, const std::string& b) { return ga::natural_less(a, b); });
  static const std::regex bdf(R"(^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$)");
  for (const auto& name : devs) {
    const fs::path d = cls / name;
    const fs::path dev = d / "device";
    PortInfo base;
    base.device = name;
    base.fw_ver = read_line(d / "fw_ver").value_or("");
    base.node_guid = read_line(d / "node_guid").value_or("");
    base.is_vf = fs::exists(fs::symlink_status(dev / "physfn", ec));
    ec.clear();
    if (auto n = read_int(dev / "numa_node"); n && *n >= 0) base.numa_node = static_cast<int>(*n);
    fs::path target = fs::canonical(dev, ec);
    if (!ec && std::regex_match(target.filename().string(), bdf)) base.pci_bus_id = target.filename().string();
    ec.clear();
    std::vector<int> ports;
    if (fs::is_directory(d / "ports", ec))
      for (const auto& p : fs::directory_iterator(d / "ports", ec)) {
        try {
          ports.push_back(std::stoi(p.path().filename().string()));
        } catch (const std::exception&) {
        }
      }
    std::sort(ports.begin(), ports.end());
    for (int pn : ports) {
      PortInfo p = base;
      p.port = pn;
      const fs::path pd = d / "ports" / std::to_string(pn);
      p.state = parse_state(read_line(pd / "state").value_or(""));
      p.phys_state = parse_state(read_line(pd / "phys_state").value_or(""));
      const Rate r = parse_rate(read_line(pd / "rate").value_or(""));
      p.rate_gbps = r.gbps;
      p.width = r.width;
      p.speed_name = r.speed;
      p.link_layer = read_line(pd / "link_layer").value_or("");
      if (auto m = read_line(pd / "active_mtu")) p.active_mtu = parse_mtu(*m);
      p.roce_v2_gid_index = find_roce_v2_gid(pd);
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::map<std::string, std::uint64_t> read_error_counters(const std::string& root_s, const PortInfo& p) {
  const fs::path root = root_s.empty() ? fs::path("/") : fs::path(root_s);
  const fs::path port = root / "sys/class/infiniband" / p.device / "ports" / std::to_string(p.port);
  std::map<std::string, std::uint64_t> out;
  for (const auto& n : error_counter_names())
    if (auto v = read_int(port / "counters" / n); v && *v >= 0) out[n] = static_cast<std::uint64_t>(*v);
  for (const auto& n : hw_error_counter_names())
    if (auto v = read_int(port / "hw_counters" / n); v && *v >= 0) out[n] = static_cast<std::uint64_t>(*v);
  return out;
}

}  // namespace ga::rdma
