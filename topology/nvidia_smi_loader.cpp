// `nvidia-smi topo -m` / `-mp` text. The matrix already states the path class of every
// GPU/NIC pair, so those are taken as printed rather than recomputed.
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "topology/loaders_internal.hpp"
#include "topology/text.hpp"

namespace ga::topo::detail {
namespace {

std::optional<int> as_int(const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoi(s);
}

// Cells as nvidia-smi prints them; "SOC" is the pre-2017 spelling of SYS.
std::optional<PathClass> cell_class(const std::string& c) {
  if (c == "SOC") return PathClass::SYS;
  if (c == "PIX" || c == "PXB" || c == "PHB" || c == "NODE" || c == "SYS") return path_class_from_string(c);
  return std::nullopt;
}

}  // namespace

HostTopology load_nvidia_smi(const std::string& content, const std::string& name, const std::string& hostname) {
  std::vector<std::string> lines;
  {
    std::istringstream in(content);
    for (std::string l; std::getline(in, l);) {
      if (!l.empty() && l.back() == '\r') l.pop_back();
      lines.push_back(l);
    }
  }
  std::size_t hdr = 0;
  std::vector<std::string> head;
  for (; hdr < lines.size(); ++hdr) {
    head = ga::topo::split_words(lines[hdr]);
    if (!head.empty() && head[0] == "GPU0") break;
  }
  if (hdr == lines.size()) throw TopologyError(name, 0, "no nvidia-smi header line starting with GPU0");

  // Matrix columns run until the first affinity heading ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID").
  std::vector<std::string> cols;
  std::size_t k = 0;
  for (; k < head.size() && head[k] != "CPU" && head[k] != "NUMA" && head[k] != "GPU"; ++k) cols.push_back(head[k]);
  std::vector<std::string> extra;  // trailing headings in order
  for (std::string rest; k < head.size(); ++k) {
    rest += (rest.empty() ? "" : " ") + head[k];
    if (rest == "CPU Affinity" || rest == "NUMA Affinity" || rest == "GPU NUMA ID") {
      extra.push_back(rest);
      rest.clear();
    }
  }
  static const std::regex gpu_col(R"(GPU(\d+))");
  std::vector<std::optional<int>> col_gpu(cols.size());
  std::set<std::string> seen;
  for (std::size_t c = 0; c < cols.size(); ++c) {
    if (!seen.insert(cols[c]).second) throw TopologyError(name, int(hdr) + 1, "column " + cols[c] + " appears twice");
    std::smatch m;
    if (std::regex_match(cols[c], m, gpu_col)) col_gpu[c] = std::stoi(m[1]);
  }

  // NIC legend ("NIC0: mlx5_0"), printed by newer drivers; older ones use the names as headings.
  std::map<std::string, std::string> legend;
  static const std::regex legend_line(R"(^\s*(NIC\d+)\s*:\s*(\S+)\s*$)");
  for (const auto& l : lines) {
    std::smatch m;
    if (std::regex_match(l, m, legend_line)) legend[m[1]] = m[2];
  }
  auto nic_name = [&](const std::string& col) {
    auto it = legend.find(col);
    return it == legend.end() ? col : it->second;
  };

  HostTopology h;
  h.hostname = hostname;
  h.source = "nvidia-smi";
  std::map<int, std::string> numa_cpus;
  std::map<std::pair<int, int>, int> nv;  // (row gpu, col gpu) -> NV count
  std::map<std::string, std::set<int>> nic_numa_votes;
  for (std::size_t r = hdr + 1; r < lines.size(); ++r) {
    auto t = ga::topo::split_words(lines[r]);
    if (t.empty() || t[0].rfind("Legend", 0) == 0) break;
    int lineno = int(r) + 1;
    auto pos = std::find(cols.begin(), cols.end(), t[0]);
    if (pos == cols.end()) throw TopologyError(name, lineno, "row '" + t[0] + "' matches no column");
    std::size_t row = std::size_t(pos - cols.begin());
    if (t.size() < cols.size() + 1)
      throw TopologyError(name, lineno, "row " + t[0] + " has " + std::to_string(t.size() - 1) + " cells, header has " +
                                            std::to_string(cols.size()));
    if (!col_gpu[row]) continue;  // NIC rows repeat what GPU rows say
    Gpu g;
    g.index = *col_gpu[row];
    g.vendor = "nvidia";
    for (std::size_t c = 0; c < cols.size(); ++c) {
      const std::string& cell = t[c + 1];
      if (c == row) {
        if (cell != "X") throw TopologyError(name, lineno, "expected X on the diagonal, got '" + cell + "'");
        continue;
      }
      if (cell.size() > 2 && cell.rfind("NV", 0) == 0) {
        auto n = as_int(cell.substr(2));
        if (!n || !col_gpu[c]) throw TopologyError(name, lineno, "bad NVLink cell '" + cell + "' in column " + cols[c]);
        nv[{g.index, *col_gpu[c]}] = *n;
        continue;
      }
      auto pc = cell_class(cell);
      if (!pc) throw TopologyError(name, lineno, "unknown cell '" + cell + "' in column " + cols[c]);
      if (!col_gpu[c]) h.gpu_nic_paths[g.index][nic_name(cols[c])] = *pc;
    }
    // Whatever follows the matrix lines up with the affinity headings; empty fields vanish
    // in whitespace splitting, which is what makes tab and space layouts read alike.
    std::vector<std::string> tail(t.begin() + long(cols.size()) + 1, t.end());
    std::string cpus;
    for (std::size_t e = 0; e < extra.size() && e < tail.size(); ++e) {
      if (extra[e] == "CPU Affinity") cpus = tail[e];
      if (extra[e] == "NUMA Affinity") g.numa_node = as_int(tail[e]);
    }
    if (g.numa_node && !cpus.empty()) numa_cpus[*g.numa_node] = cpus;
    if (g.numa_node)
      for (const auto& [nic, pc] : h.gpu_nic_paths[g.index])
        if (pc != PathClass::SYS) nic_numa_votes[nic].insert(*g.numa_node);
    h.gpus.push_back(std::move(g));
  }
  if (h.gpus.empty()) throw TopologyError(name, int(hdr) + 1, "header without GPU rows");

  for (std::size_t c = 0; c < cols.size(); ++c) {
    if (col_gpu[c]) continue;
    Nic n;
    n.name = nic_name(cols[c]);
    n.kind = "unknown";  // the matrix does not say IB or RoCE
    // PIX..NODE to a GPU means the same NUMA node as that GPU; SYS says nothing.
    auto v = nic_numa_votes.find(n.name);
    if (v != nic_numa_votes.end() && v->second.size() == 1) n.numa_node = *v->second.begin();
    h.nics.push_back(std::move(n));
  }
  for (const auto& [a_b, count] : nv) {
    auto [a, b] = a_b;
    if (a < b) h.gpu_links.push_back({a, b, "nvlink", count, std::nullopt});
    else if (!nv.count({b, a})) h.gpu_links.push_back({b, a, "nvlink", count, std::nullopt});
  }
  for (const auto& [os, cpus] : numa_cpus) h.numa_nodes.push_back({os, cpus, std::nullopt});
  classify(h);
  return h;
}

}  // namespace ga::topo::detail
