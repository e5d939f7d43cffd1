// `nvidia-smi topo -m` / `-mp` text. The matrix already states the path class of every
// GPU/NIC pair, so those are taken as printed rather than recomputed.
//
// What nvidia-smi writes, as the recorded outputs under tests/data/recorded/nvidia-smi-topo/ show:
//  - Cells are tab-separated. The header is an empty corner cell, one heading per device (GPU0..,
//    then NIC0.. named by a "NIC Legend:" block on newer drivers, or the RDMA names themselves,
//    mlx5_0.., on older ones), then the affinity headings: "CPU Affinity" alone (old drivers),
//    "NUMA Affinity" after it, "GPU NUMA ID" after that (535+).
//  - The affinity cells of a GPU row do not line up one to one with those headings, because
//    nvidia-smi pads with empty cells (| parts cells here): "0-47|0||N/A" under the three
//    headings (an empty cell always comes before GPU NUMA ID), "0-11||N/A||N/A" when the NUMA
//    affinity is unknown (an N/A NUMA Affinity comes after an empty cell too), "|0||N/A" when the
//    CPU affinity is empty (four of the eight GPUs of a Princeton Della H100 node). So CPU
//    Affinity is the first cell as it stands, empty or not, and each later heading takes the next
//    non-empty cell; that holds because nvidia-smi writes N/A, never nothing, for an unknown
//    NUMA Affinity or GPU NUMA ID.
//  - NIC rows have empty affinity cells, or none at all.
//  - The Legend block differs by age (old: "SOC = ... SMP link between CPU sockets", no NODE,
//    "PIX = ... a single PCIe switch"; newer: SYS, NODE, "PCIe bridges", NV# except in -mp), but
//    every driver ends the matrix with a blank line and "Legend:". SOC is read as SYS.
// Outputs pasted with tabs expanded to spaces (whitespace layout) cannot show an empty cell: there
// the words after the matrix are taken one per heading, in order.
#include <algorithm>
#include <charconv>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "base/text.hpp"
#include "topology/loaders_internal.hpp"

namespace ga::topo::detail {
namespace {

// Decided once per file from its header line: tabs mean nvidia-smi's own cells.
enum class Layout { tabs, words };

const char* const kCpuAffinity = "CPU Affinity";
const char* const kNumaAffinity = "NUMA Affinity";
const char* const kGpuNumaId = "GPU NUMA ID";

constexpr std::size_t kMaxLine = 4096;  // see load_nvidia_smi

bool is_affinity_heading(const std::string& s) { return s == kCpuAffinity || s == kNumaAffinity || s == kGpuNumaId; }

// A whole non-negative number that fits an int, else none (std::stoi would throw past INT_MAX).
std::optional<int> as_int(const std::string& s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || s[0] == '-' || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// One line's cells. Tab layout keeps empty cells (they carry position); the diagonal's " X " and
// any padding spaces are trimmed.
std::vector<std::string> cells_of(const std::string& line, Layout layout) {
  if (layout == Layout::words) return base::split_words(line);
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string c; std::getline(in, c, '\t');) out.push_back(trimmed(c));
  return out;
}

// Cells as nvidia-smi prints them; "SOC" is the pre-2017 spelling of SYS.
std::optional<PathClass> cell_class(const std::string& c) {
  if (c == "SOC") return PathClass::SYS;
  if (c == "PIX" || c == "PXB" || c == "PHB" || c == "NODE" || c == "SYS") return path_class_from_string(c);
  return std::nullopt;
}

struct Header {
  std::vector<std::string> columns;   // matrix devices, in order
  std::vector<std::string> affinity;  // the headings after the matrix, in order
};

// Tab layout: the matrix runs until the first affinity heading; every heading is one cell.
Header tab_header(const std::string& line) {
  Header h;
  for (const auto& c : cells_of(line, Layout::tabs)) {
    if (c.empty()) continue;  // the corner above the row names
    if (h.affinity.empty() && !is_affinity_heading(c)) h.columns.push_back(c);
    else h.affinity.push_back(c);
  }
  return h;
}

// Whitespace layout: the affinity headings are words to join back ("CPU" "Affinity").
Header word_header(const std::string& line) {
  Header h;
  auto words = base::split_words(line);
  std::size_t k = 0;
  for (; k < words.size() && words[k] != "CPU" && words[k] != "NUMA" && words[k] != "GPU"; ++k)
    h.columns.push_back(words[k]);
  for (std::string rest; k < words.size(); ++k) {
    rest += (rest.empty() ? "" : " ") + words[k];
    if (is_affinity_heading(rest)) {
      h.affinity.push_back(rest);
      rest.clear();
    }
  }
  return h;
}

// The affinity cells of a row by heading, following the alignment described at the top.
std::map<std::string, std::string> affinity_by_heading(const std::vector<std::string>& tail,
                                                       const std::vector<std::string>& headings, Layout layout) {
  std::map<std::string, std::string> by;
  std::size_t next = 0;
  for (std::size_t e = 0; e < headings.size(); ++e) {
    if (layout == Layout::tabs && e > 0)
      while (next < tail.size() && tail[next].empty()) ++next;
    if (next >= tail.size()) break;
    by[headings[e]] = tail[next++];
  }
  return by;
}

// NUMA Affinity: one node, "N/A", or on Grace a list of the CPU node and memory-only nodes
// ("0,3-9,11-17"). A list does not say which node has the CPUs, so no single node is claimed.
std::optional<int> numa_node_of(const std::string& cell, const std::string& name, int lineno) {
  static const std::regex node_list(R"([0-9]+([-,][0-9]+)*)");
  if (cell.empty() || cell == "N/A") return std::nullopt;
  if (!std::regex_match(cell, node_list))
    throw TopologyError(name, lineno, "NUMA Affinity '" + cell + "' is neither a node, a node list nor N/A");
  if (cell.find_first_of("-,") != std::string::npos) return std::nullopt;  // a list
  auto n = as_int(cell);
  if (!n) throw TopologyError(name, lineno, "NUMA Affinity " + cell + " is out of range");
  return n;
}

// The matrix ends at the blank line before "Legend:" (all drivers), or at the legend itself when a
// paste lost that blank line.
bool ends_matrix(const std::string& line) {
  auto words = base::split_words(line);
  return words.empty() || words[0].rfind("Legend", 0) == 0;
}

// NIC legend ("NIC0: mlx5_0"), printed by newer drivers; older ones use the names as headings.
std::map<std::string, std::string> nic_legend(const std::vector<std::string>& lines) {
  static const std::regex legend_line(R"(^\s*(NIC\d+)\s*:\s*(\S+)\s*$)");
  std::map<std::string, std::string> legend;
  for (const auto& l : lines) {
    std::smatch m;
    if (std::regex_match(l, m, legend_line)) legend[m[1]] = m[2];
  }
  return legend;
}

std::vector<std::string> lines_of(const std::string& content) {
  std::vector<std::string> lines;
  std::istringstream in(content);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(l);
  }
  return lines;
}

// What the header line says about every row below it.
struct Columns {
  Layout layout = Layout::tabs;
  Header head;
  std::vector<std::optional<int>> gpu;        // per matrix column: its GPU index, none for a NIC
  std::map<std::string, std::string> legend;  // NIC0 -> mlx5_0

  std::string nic_name(const std::string& col) const {
    auto it = legend.find(col);
    return it == legend.end() ? col : it->second;
  }
};

Columns read_columns(const std::vector<std::string>& lines, std::size_t hdr, const std::string& name) {
  static const std::regex gpu_col(R"(GPU(\d+))");
  Columns k;
  k.layout = lines[hdr].find('\t') != std::string::npos ? Layout::tabs : Layout::words;
  k.head = k.layout == Layout::tabs ? tab_header(lines[hdr]) : word_header(lines[hdr]);
  std::set<std::string> seen;
  for (const auto& col : k.head.columns) {
    if (!seen.insert(col).second) throw TopologyError(name, int(hdr) + 1, "column " + col + " appears twice");
    std::smatch m;
    if (!std::regex_match(col, m, gpu_col)) {
      k.gpu.push_back(std::nullopt);
      continue;
    }
    auto index = as_int(m[1]);
    if (!index) throw TopologyError(name, int(hdr) + 1, "column " + col + ": GPU index out of range");
    k.gpu.push_back(index);
  }
  k.legend = nic_legend(lines);
  return k;
}

// What one GPU row says.
struct GpuRow {
  Gpu gpu;
  std::string cpus;                            // CPU Affinity as printed, possibly empty
  std::map<std::string, PathClass> nic_paths;  // NIC name -> path class
  std::map<int, int> nv;                       // peer GPU -> NVLink count
};

// One matrix row; none for a NIC row, which only repeats what the GPU rows say.
std::optional<GpuRow> read_row(const std::string& line, int lineno, const Columns& k, const std::string& name) {
  const auto& cols = k.head.columns;
  const auto t = cells_of(line, k.layout);
  auto pos = std::find(cols.begin(), cols.end(), t[0]);
  if (pos == cols.end()) throw TopologyError(name, lineno, "row '" + t[0] + "' matches no column");
  const std::size_t row = std::size_t(pos - cols.begin());
  if (t.size() < cols.size() + 1)
    throw TopologyError(name, lineno, "row " + t[0] + " has " + std::to_string(t.size() - 1) + " cells, header has " +
                                          std::to_string(cols.size()));
  if (!k.gpu[row]) return std::nullopt;
  GpuRow g;
  g.gpu.index = *k.gpu[row];
  g.gpu.vendor = "nvidia";
  for (std::size_t c = 0; c < cols.size(); ++c) {
    const std::string& cell = t[c + 1];
    if (c == row) {
      if (cell != "X") throw TopologyError(name, lineno, "expected X on the diagonal, got '" + cell + "'");
      continue;
    }
    if (cell.size() > 2 && cell.rfind("NV", 0) == 0) {
      auto n = as_int(cell.substr(2));
      if (!n || !k.gpu[c]) throw TopologyError(name, lineno, "bad NVLink cell '" + cell + "' in column " + cols[c]);
      g.nv[*k.gpu[c]] = *n;
      continue;
    }
    auto pc = cell_class(cell);
    if (!pc) throw TopologyError(name, lineno, "unknown cell '" + cell + "' in column " + cols[c]);
    if (!k.gpu[c]) g.nic_paths[k.nic_name(cols[c])] = *pc;
  }
  // GPU NUMA ID (the GPU's own memory node on Grace) has no place in the model: it is read past,
  // never taken for NUMA Affinity.
  const std::vector<std::string> tail(t.begin() + long(cols.size()) + 1, t.end());
  auto by = affinity_by_heading(tail, k.head.affinity, k.layout);
  g.gpu.numa_node = numa_node_of(by[kNumaAffinity], name, lineno);
  g.cpus = by[kCpuAffinity];
  return g;
}

// NICs in column order. PIX..NODE to a GPU means the same NUMA node as that GPU; SYS says nothing,
// and GPUs of different nodes at PIX..NODE leave the NIC's node unknown.
std::vector<Nic> nics_of(const HostTopology& h, const Columns& k) {
  std::map<std::string, std::set<int>> votes;
  for (const auto& g : h.gpus) {
    auto row = h.gpu_nic_paths.find(g.index);
    if (!g.numa_node || row == h.gpu_nic_paths.end()) continue;
    for (const auto& [nic, pc] : row->second)
      if (pc != PathClass::SYS) votes[nic].insert(*g.numa_node);
  }
  std::vector<Nic> nics;
  for (std::size_t c = 0; c < k.head.columns.size(); ++c) {
    if (k.gpu[c]) continue;
    Nic n;
    n.name = k.nic_name(k.head.columns[c]);
    n.kind = "unknown";  // the matrix does not say IB or RoCE
    auto v = votes.find(n.name);
    if (v != votes.end() && v->second.size() == 1) n.numa_node = *v->second.begin();
    nics.push_back(std::move(n));
  }
  return nics;
}

// One link per GPU pair, whichever of the two rows printed it.
std::vector<GpuLink> links_of(const std::map<std::pair<int, int>, int>& nv) {
  std::vector<GpuLink> links;
  for (const auto& [a_b, count] : nv) {
    auto [a, b] = a_b;
    if (a < b) links.push_back({a, b, "nvlink", count, std::nullopt});
    else if (!nv.count({b, a})) links.push_back({b, a, "nvlink", count, std::nullopt});
  }
  return links;
}

}  // namespace

HostTopology load_nvidia_smi(const std::string& content, const std::string& name, const std::string& hostname) {
  require_utf8(content, name);
  const auto lines = lines_of(content);
  // The cells are checked with std::regex, which recurses once per character in libstdc++: a
  // line of a few hundred kilobytes overflows the stack. nvidia-smi's are under 200 bytes even
  // with 8 GPUs and 12 NICs; 4 KiB leaves room for far wider machines.
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].size() > kMaxLine)
      throw TopologyError(name, int(i) + 1, "line longer than " + std::to_string(kMaxLine) +
                                                " bytes: not nvidia-smi topo -m output");
  auto hdr = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    auto w = base::split_words(l);
    return !w.empty() && w[0] == "GPU0";
  });
  if (hdr == lines.end()) throw TopologyError(name, 0, "no nvidia-smi header line starting with GPU0");
  const std::size_t first = std::size_t(hdr - lines.begin());
  const Columns k = read_columns(lines, first, name);

  HostTopology h;
  h.hostname = hostname;
  h.source = "nvidia-smi";
  std::map<int, std::string> numa_cpus;   // every NUMA node a GPU names, with the CPUs a row gave it
  std::map<std::pair<int, int>, int> nv;  // (row gpu, col gpu) -> NV count
  for (std::size_t r = first + 1; r < lines.size() && !ends_matrix(lines[r]); ++r) {
    auto row = read_row(lines[r], int(r) + 1, k, name);
    if (!row) continue;
    const int gi = row->gpu.index;
    if (!row->nic_paths.empty()) h.gpu_nic_paths[gi] = row->nic_paths;
    for (const auto& [peer, count] : row->nv) nv[{gi, peer}] = count;
    if (row->gpu.numa_node) {
      std::string& cpus = numa_cpus[*row->gpu.numa_node];
      if (!row->cpus.empty()) cpus = row->cpus;
    }
    h.gpus.push_back(std::move(row->gpu));
  }
  if (h.gpus.empty()) throw TopologyError(name, int(first) + 1, "header without GPU rows");

  h.nics = nics_of(h, k);
  h.gpu_links = links_of(nv);
  for (const auto& [os, cpus] : numa_cpus) h.numa_nodes.push_back({os, cpus, std::nullopt});
  classify(h);
  return h;
}

}  // namespace ga::topo::detail
