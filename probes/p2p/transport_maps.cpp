#include "probes/p2p/transport_maps.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace ga::p2p {
namespace {
// Byte transfer layers that carry data between hosts without TCP (verbs, UCX's UCT, libfabric,
// Cisco usNIC, Portals, Cray uGNI).
const std::set<std::string> kRdmaBtls = {"openib", "uct", "ofi", "usnic", "portals4", "ugni"};
}  // namespace

MpiTransport mpi_transport_from_maps(const std::string& text) {
  static const std::regex comp(R"(/mca_(pml|btl|mtl)_([A-Za-z0-9]+)\.so\b)");
  MpiTransport t;
  std::set<std::string> btls, mtls;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) {
    std::smatch m;
    if (std::regex_search(l, m, comp)) {
      const std::string kind = m[1].str(), name = m[2].str();
      // "monitoring" is a PML that wraps the real one; the real one is mapped too.
      if (kind == "pml" && name != "monitoring") t.pml = name;
      else if (kind == "btl") btls.insert(name);
      else if (kind == "mtl") mtls.insert(name);
    }
    if (l.find("/libucp.so") != std::string::npos) t.ucx_loaded = true;
  }
  t.btls.assign(btls.begin(), btls.end());
  t.mtls.assign(mtls.begin(), mtls.end());
  return t;
}

std::string MpiTransport::summary() const {
  if (pml.empty()) return "unknown";
  if (pml == "ucx") return "UCX";
  if (pml == "cm") {
    std::string s;
    for (const auto& m : mtls) s += (s.empty() ? "" : "+") + m;
    return s.empty() ? "cm" : "cm (" + s + ")";
  }
  std::string rdma;
  bool tcp = false;
  for (const auto& b : btls) {
    if (kRdmaBtls.count(b)) rdma += (rdma.empty() ? "" : ", ") + b;
    if (b == "tcp") tcp = true;
  }
  if (!rdma.empty()) return "RDMA (" + rdma + ")";
  if (tcp) return "TCP";
  return "shared memory";
}

bool MpiTransport::tcp_only() const { return summary() == "TCP"; }

std::string read_self_maps() {
  std::ifstream f("/proc/self/maps");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace ga::p2p
