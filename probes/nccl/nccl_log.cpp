#include "probes/nccl/nccl_log.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace ga::nccl_log {
namespace {

// "[0]mlx5_0:1/IB/SHARP", "[4]mlx5_2:1/RoCE", "[0]ib0:192.168.11.1<0>", "[1]virbr0:<0>"
std::vector<NetDevice> devices(const std::string& list, bool verbs) {
  static const std::regex item(R"(\[(\d+)\]([^:\s\[]+):([^\s\[]*))");
  std::vector<NetDevice> out;
  for (auto it = std::sregex_iterator(list.begin(), list.end(), item); it != std::sregex_iterator(); ++it) {
    NetDevice d;
    d.index = std::stoi((*it)[1].str());
    d.name = (*it)[2].str();
    if (verbs) {
      const std::string rest = (*it)[3].str();  // "1/IB/SHARP"
      const auto slash = rest.find('/');
      d.port = std::atoi(rest.substr(0, slash).c_str());
      if (slash != std::string::npos) d.link = rest.substr(slash + 1, rest.find('/', slash + 1) - slash - 1);
    }
    out.push_back(d);
  }
  return out;
}

}  // namespace

std::string normalize_network(const std::string& n) {
  if (n.rfind("IB", 0) == 0) return "IB";
  return n;
}

std::string Summary::network() const {
  if (!channel_networks.empty()) {
    // Several names in one communicator (IB to some peers, sockets to others) is itself a
    // finding: the sockets are named, since that is the slow path.
    std::set<std::string> norm;
    for (const auto& n : channel_networks) norm.insert(normalize_network(n));
    if (norm.size() == 1) return *norm.begin();
    return norm.count("Socket") ? "Socket" : *norm.begin();
  }
  if (!channel_transports.empty()) return "";
  if (!network_said.empty()) return normalize_network(network_said);
  if (!ib_devices.empty()) return "IB";
  if (!socket_devices.empty()) return "Socket";
  return "";
}

std::vector<std::string> Summary::nics_used() const {
  const std::string net = network();
  const auto& list = net == "IB" ? ib_devices : net == "Socket" ? socket_devices : std::vector<NetDevice>{};
  std::vector<std::string> out;
  for (int k : net_devices_used) {
    std::string name = "NET/" + std::to_string(k);  // unnamed when the Using line was not seen
    for (const auto& d : list)
      if (d.index == k) name = d.port > 1 ? d.name + ":" + std::to_string(d.port) : d.name;
    out.push_back(name);
  }
  return out;
}

std::vector<std::string> off_switch(const std::vector<std::string>& used, const std::vector<std::string>& nearest) {
  auto bare = [](const std::string& n) { return n.substr(0, n.find(':')); };
  std::vector<std::string> out;
  for (const auto& u : used) {
    const bool near = std::any_of(nearest.begin(), nearest.end(), [&](const std::string& n) { return bare(n) == bare(u); });
    if (!near) out.push_back(u);
  }
  return out;
}

Summary parse(const std::vector<std::string>& lines) {
  // NCCL's line shape: "host:pid:tid [dev] NCCL INFO <message>"; some reports strip the prefix,
  // so a line without it is read as the message.
  static const std::regex version(R"(NCCL version (\S+))");
  static const std::regex using_net(R"(Using network (.+?)\s*$)");
  static const std::regex ib_using(R"(NET/IB\s*: Using (.*?)(?:;\s*OOB.*)?$)");
  static const std::regex sock_using(R"(NET/Socket\s*: Using (.*)$)");
  static const std::regex via(R"(->\s*\d+\[[^\]]*\]\s*(?:\[(?:send|receive)\]\s*)?via (\S+))");
  static const std::regex gdr(R"(GPU Direct RDMA (Enabled|Disabled) for (?:GPU \S+ / )?HCA (\d+)(?: '([^']+)')?)");
  static const std::regex chans(R"((\d+) coll channels, (?:(\d+) collnet channels, )?(?:(\d+) nvls channels)?)");
  Summary s;
  for (const auto& raw : lines) {
    const auto at = raw.find("NCCL INFO ");
    if (at != std::string::npos) ++s.info_lines;
    const std::string l = at == std::string::npos ? raw : raw.substr(at + 10);
    std::smatch m;
    if (std::regex_search(l, m, via)) {
      const std::string path = m[1].str();  // NET/IB/0/GDRDMA, NET/IB/0(1)/GDRDMA, P2P/IPC, SHM/direct/direct
      std::vector<std::string> parts;
      std::stringstream ss(path);
      for (std::string p; std::getline(ss, p, '/');) parts.push_back(p);
      if (parts.size() >= 2 && parts[0] == "NET") {
        s.channel_networks.insert(parts[1]);
        ++s.net_channels;
        if (parts.size() >= 3 && !parts[2].empty() && std::isdigit(static_cast<unsigned char>(parts[2][0])))
          s.net_devices_used.insert(std::stoi(parts[2]));
        if (path.find("/GDRDMA") != std::string::npos) ++s.gdr_channels;
      } else if (!parts.empty()) {
        s.channel_transports.insert(parts[0]);
      }
      continue;
    }
    if (std::regex_search(l, m, ib_using)) {
      s.ib_devices = devices(m[1].str(), true);
    } else if (std::regex_search(l, m, sock_using)) {
      s.socket_devices = devices(m[1].str(), false);
    } else if (l.find("NET/IB : No device found") != std::string::npos) {
      s.ib_no_device = true;
    } else if (std::regex_search(l, m, using_net)) {
      s.network_said = m[1].str();
    } else if (std::regex_search(l, m, gdr)) {
      const std::string dev = m[3].matched ? m[3].str() : "HCA " + m[2].str();
      (m[1].str() == "Enabled" ? s.gdr_enabled : s.gdr_disabled).push_back(dev);
    } else if (std::regex_search(l, m, chans)) {
      if (m[2].matched) s.collnet_channels = std::stoi(m[2].str());
      if (m[3].matched) s.nvls_channels = std::stoi(m[3].str());
    } else if (l.find("NVLS multicast support is available") != std::string::npos) {
      s.nvls_multicast = true;
    } else if (s.version.empty() && std::regex_search(l, m, version)) {
      s.version = m[1].str();
    }
  }
  return s;
}

Summary parse_text(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  return parse(lines);
}

}  // namespace ga::nccl_log
