#include "topology/place.hpp"

namespace ga::place {

const char* to_string(Kind k) {
  switch (k) {
    case Kind::host: return "host";
    case Kind::numa: return "numa";
    case Kind::gpu: return "gpu";
    case Kind::nic: return "nic";
    case Kind::pair: return "pair";
    case Kind::cluster: return "cluster";
    case Kind::other: return "other";
  }
  return "other";
}

std::optional<Kind> kind_from_string(const std::string& s) {
  for (Kind k : {Kind::host, Kind::numa, Kind::gpu, Kind::nic, Kind::pair, Kind::cluster})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

std::string host(const std::string& h) { return h; }
std::string numa(const std::string& h, int n) { return h + "/numa:" + std::to_string(n); }
std::string gpu(const std::string& h, int i) { return h + "/gpu:" + std::to_string(i); }
std::string nic(const std::string& h, const std::string& name) { return h + "/nic:" + name; }
std::string pair(const std::string& a, const std::string& b) { return a + "~" + b; }

Kind kind(const std::string& p) {
  if (p == "cluster") return Kind::cluster;
  if (p.find('~') != std::string::npos) return Kind::pair;
  auto slash = p.find('/');
  if (slash == std::string::npos) return p.empty() ? Kind::other : Kind::host;
  auto rest = p.substr(slash + 1);
  if (rest.rfind("numa:", 0) == 0) return Kind::numa;
  if (rest.rfind("gpu:", 0) == 0) return Kind::gpu;
  if (rest.rfind("nic:", 0) == 0) return Kind::nic;
  return Kind::other;
}

std::optional<std::pair<std::string, std::string>> split_pair(const std::string& p) {
  auto t = p.find('~');
  if (t == std::string::npos) return std::nullopt;
  return std::make_pair(p.substr(0, t), p.substr(t + 1));
}

std::string host_of(const std::string& p) {
  if (p == "cluster") return {};
  if (auto pr = split_pair(p)) {
    auto a = host_of(pr->first), b = host_of(pr->second);
    return a == b ? a : std::string{};
  }
  return p.substr(0, p.find('/'));
}

}  // namespace ga::place
