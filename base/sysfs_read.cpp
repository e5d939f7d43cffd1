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

}  // namespace ga::sysfs
