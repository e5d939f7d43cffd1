#include "probes/devices/xid_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>

#include "probes/vendor/cuda_driver.hpp"

namespace ga::gpu {

std::map<std::string, XidEvents> count_xids(const std::vector<std::string>& lines) {
  // Newer drivers write "Xid (PCI:0000:1b:00)", older ones "Xid (0000:1b:00)"; domains may
  // have 8 digits.
  static const std::regex re(R"(NVRM: Xid \((?:PCI:)?([0-9a-fA-F]{4,8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\): (\d+))");
  std::map<std::string, XidEvents> out;
  for (const auto& l : lines) {
    std::smatch m;
    if (!std::regex_search(l, m, re)) continue;
    const std::string key = xid_key(m[1].str() + ":" + m[2].str() + ":" + m[3].str() + ".0");
    auto& e = out[key];
    ++e.count;
    e.codes.push_back(std::stoi(m[4].str()));
  }
  return out;
}

std::string xid_key(const std::string& pci_bus_id) {
  std::string s = normalize_pci_bus_id(pci_bus_id);
  return s.substr(0, s.rfind('.'));
}

std::optional<std::vector<std::string>> read_kernel_log(const std::string& path, std::string* why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (why) *why = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::vector<std::string> lines;
  // /dev/kmsg returns one record per read and EAGAIN at the end; a plain file reads in blocks.
  std::string pending;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      pending.append(buf, static_cast<std::size_t>(n));
      std::size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        lines.push_back(pending.substr(0, nl));
        pending.erase(0, nl + 1);
      }
      continue;
    }
    if (n < 0 && errno == EPIPE) continue;  // records overwritten while reading: go on
    if (n < 0 && errno != EAGAIN) {
      if (why) *why = path + ": " + std::strerror(errno);
      ::close(fd);
      return std::nullopt;
    }
    break;
  }
  if (!pending.empty()) lines.push_back(pending);
  ::close(fd);
  return lines;
}

}  // namespace ga::gpu
