#include <algorithm>
#include <cctype>

#include "topology/model.hpp"

namespace ga::topo {

const char* to_string(PathClass c) {
  switch (c) {
    case PathClass::PIX: return "PIX";
    case PathClass::PXB: return "PXB";
    case PathClass::PHB: return "PHB";
    case PathClass::NODE: return "NODE";
    case PathClass::SYS: return "SYS";
    case PathClass::Unknown: return "Unknown";
  }
  return "Unknown";
}

// Case-insensitive because recorded files and hand-written expectations differ in case.
std::optional<PathClass> path_class_from_string(const std::string& s) {
  std::string u(s);
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char ch) { return char(std::toupper(ch)); });
  for (PathClass c : {PathClass::PIX, PathClass::PXB, PathClass::PHB, PathClass::NODE, PathClass::SYS})
    if (u == to_string(c)) return c;
  if (u == "UNKNOWN") return PathClass::Unknown;
  return std::nullopt;
}

const HostTopology* ClusterTopology::find(const std::string& hostname) const {
  for (const auto& h : hosts)
    if (h.hostname == hostname) return &h;
  return nullptr;
}

}  // namespace ga::topo
