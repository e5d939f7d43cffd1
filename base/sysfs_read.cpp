#include "base/sysfs_read.hpp"

#include <cctype>
#include <fstream>

namespace ga::sysfs {

std::optional<std::string> read_line(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::string s;
  if (!f || !std::getline(f, s)) return std::nullopt;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

std::optional<std::string> boot_id() {
  auto id = read_line("/proc/sys/kernel/random/boot_id");
  if (id && id->empty()) return std::nullopt;
  return id;
}

}  // namespace ga::sysfs
