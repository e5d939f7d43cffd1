// The cluster drawn on its topology, as inline SVG inside report.html: a box per host, in it a
// box per NUMA node holding that node's GPUs and fabric NICs, GPU link islands as coloured
// bands under their members, each GPU's nearest NIC and path class in small text, pair verdicts
// as arcs between hosts. Every shape is coloured by the verdicts keyed to its place
// (html_internal.hpp) and carries a <title> naming them. Only the layout is computed here;
// every value shown comes from the recorded topology or the judgement.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

#include "base/quantity.hpp"
#include "reports/html_internal.hpp"
#include "reports/text_format.hpp"
#include "topology/place.hpp"

namespace ga::html {
namespace {

constexpr int kDevW = 96, kGpuH = 36, kNicH = 32, kGap = 6, kBand = 5;
constexpr int kGroupPad = 7, kGroupHead = 20, kGroupMinW = 150, kCols = 6;
constexpr int kHostPad = 8, kHostHead = 40, kHostMinW = 300;
constexpr int kCanvasW = 1360, kRowGap = 18;
constexpr int kGutterMin = 40, kGutterMax = 220;  // room left of the hosts for the pair arcs
constexpr std::size_t kLabelChars = 12, kSubChars = 17;  // what fits in a device box
constexpr int kGridCols = 32, kCellW = 34, kCellH = 18, kCellGap = 4, kGridLabelW = 90;

// Island colours: distinct from the verdict colours (red, amber, green, grey).
constexpr const char* kIslandColours[] = {"#0969da", "#8250df", "#1b7c83", "#9a6700", "#bf3989", "#57606a"};

std::string num(int v) { return std::to_string(v); }

struct Device {
  std::string place;
  std::string label;  // "GPU 3", "mlx5_0"
  std::string sub;    // "→ mlx5_3 PIX", "IB 400 Gb/s"
  std::string head;   // first line of the tooltip
  int island = -1;    // index into the host's islands of two or more GPUs
};

struct Group {
  std::string place;  // HOST/numa:N, or "" for the unplaced and not-in-topology boxes
  std::string label;
  std::string head;
  bool dashed = false;
  std::vector<Device> gpus, nics;
  int w = 0, h = 0, cols = 1;
  int dx = 0, dy = 0;  // where it sits inside its host box, below the header
};

struct HostBox {
  std::size_t index = 0;
  const HostSection* section = nullptr;
  const topo::HostTopology* topo = nullptr;
  std::vector<Group> groups;
  std::vector<std::vector<int>> islands;
  std::string note;
  std::vector<int> missing_ranks;  // ranks of this host that never arrived (incomplete run)
  int x = 0, y = 0, w = 0, h = 0;
};

std::string index_list(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(v[i]);
    if (j > i) {
      s += '-';
      s += std::to_string(v[j]);
    }
    i = j + 1;
  }
  return s;
}

std::string nic_kind_short(const std::string& k) {
  if (k == "infiniband") return "IB";
  if (k == "roce") return "RoCE";
  if (k == "ethernet-rdma") return "Eth RDMA";
  if (k == "efa") return "EFA";
  if (k == "slingshot") return "Slingshot";
  return k.empty() || k == "unknown" ? "" : k;
}

std::string links_note(const topo::HostTopology& t, const std::vector<std::vector<int>>& islands) {
  if (t.gpus.empty()) return "no GPUs";
  if (t.gpu_links.empty() || islands.empty()) return "GPU links: none recorded";
  std::string type = t.gpu_links.front().type;
  std::string s = "GPU links" + (type.empty() ? "" : " (" + type + ")") + ": " + std::to_string(islands.size()) +
                  (islands.size() == 1 ? " island " : " islands ");
  for (std::size_t i = 0; i < islands.size(); ++i) s += (i ? " | " : "") + index_list(islands[i]);
  return s + (t.gpu_link_all_to_all ? ", all-to-all" : ", not all-to-all");
}

void size_group(Group& g) {
  const int n = static_cast<int>(std::max({g.gpus.size(), g.nics.size(), std::size_t{1}}));
  g.cols = std::min(n, kCols);
  auto rows = [&](std::size_t k) { return static_cast<int>((k + g.cols - 1) / g.cols); };
  g.w = std::max(kGroupMinW, 2 * kGroupPad + g.cols * (kDevW + kGap) - kGap);
  g.h = kGroupHead + rows(g.gpus.size()) * (kGpuH + kBand + 2 + kGap) + rows(g.nics.size()) * (kNicH + kGap) +
        kGroupPad;
  if (g.gpus.empty() && g.nics.empty()) g.h = kGroupHead + 22;
}

// The boxes of one host: its NUMA nodes in topology order, then "NUMA unknown" for devices
// whose node is not recorded, then "not in topology" for GPUs and NICs that have metrics or
// verdicts but that the recorded topology does not list (an expected GPU that is absent).
HostBox host_box(std::size_t i, const Report& r) {
  HostBox b;
  b.index = i;
  b.section = &r.hosts[i];
  const std::string& host = b.section->host;
  b.topo = r.journal->topology.find(host);
  if (const auto& inc = r.judgement->incomplete)
    for (const auto& m : inc->missing_ranks)
      if (m.host == host) b.missing_ranks.push_back(m.rank);
  std::set<std::string> drawn;
  std::map<int, std::size_t> numa_group;
  auto unplaced = [&]() -> Group& {
    for (auto& g : b.groups)
      if (g.dashed && g.place.empty() && g.label == "NUMA unknown") return g;
    Group g;
    g.label = "NUMA unknown";
    g.head = host + ": devices whose NUMA node is not recorded";
    g.dashed = true;
    b.groups.push_back(std::move(g));
    return b.groups.back();
  };
  if (const auto* t = b.topo) {
    for (const auto& n : t->numa_nodes) {
      Group g;
      g.place = place::numa(host, n.os_index);
      g.label = "NUMA " + std::to_string(n.os_index);
      g.head = g.place;
      if (!n.cpuset.empty()) g.head += "\nCPUs " + n.cpuset;
      if (n.memory_bytes) {
        g.head += "\nmemory " + base::format_quantity(double(*n.memory_bytes), "B");
        g.label += " · " + base::format_quantity(double(*n.memory_bytes), "B");
      }
      numa_group[n.os_index] = b.groups.size();
      drawn.insert(g.place);
      b.groups.push_back(std::move(g));
    }
    std::map<int, int> island_of;
    for (const auto& isl : t->gpu_link_islands)
      if (isl.size() >= 2) {
        for (int gpu : isl) island_of[gpu] = static_cast<int>(b.islands.size());
        b.islands.push_back(isl);
      }
    b.note = links_note(*t, b.islands);
    auto group_for = [&](const std::optional<int>& numa) -> Group& {
      if (numa)
        if (auto it = numa_group.find(*numa); it != numa_group.end()) return b.groups[it->second];
      return unplaced();
    };
    for (const auto& g : t->gpus) {
      Device d;
      d.place = place::gpu(host, g.index);
      d.label = "GPU " + std::to_string(g.index);
      if (!g.nearest_nics.empty()) {
        d.sub = "→ " + g.nearest_nics.front() + (g.nearest_nics.size() > 1 ? "+" : "");
        if (g.nic_path) d.sub += std::string(" ") + topo::to_string(*g.nic_path);
      } else {
        d.sub = "no NIC";
      }
      d.head = d.place + (g.model.empty() ? "" : "\n" + g.model) + (g.pci_bus_id ? "\nPCI " + *g.pci_bus_id : "") +
               (g.numa_node ? "\nNUMA " + std::to_string(*g.numa_node) : "\nNUMA not recorded");
      if (!g.nearest_nics.empty()) {
        d.head += "\nnearest NIC ";
        for (std::size_t k = 0; k < g.nearest_nics.size(); ++k) d.head += (k ? "/" : "") + g.nearest_nics[k];
        if (g.nic_path) d.head += std::string(" (") + topo::to_string(*g.nic_path) + ")";
      }
      if (auto it = island_of.find(g.index); it != island_of.end()) {
        d.island = it->second;
        d.head += "\nlink island " + std::to_string(it->second + 1) + ": GPUs " + index_list(b.islands[it->second]);
      }
      drawn.insert(d.place);
      group_for(g.numa_node).gpus.push_back(std::move(d));
    }
    for (const auto& n : t->nics) {
      Device d;
      d.place = place::nic(host, n.name);
      d.label = n.name;
      d.sub = nic_kind_short(n.kind);
      if (n.rate_gbps) {
        char rate[32];
        std::snprintf(rate, sizeof rate, "%g Gb/s", *n.rate_gbps);
        d.sub += (d.sub.empty() ? "" : " ") + std::string(rate);
      }
      d.head = d.place + (n.kind.empty() ? "" : "\n" + n.kind) + (n.pci_bus_id ? "\nPCI " + *n.pci_bus_id : "") +
               (n.numa_node ? "\nNUMA " + std::to_string(*n.numa_node) : "\nNUMA not recorded");
      drawn.insert(d.place);
      group_for(n.numa_node).nics.push_back(std::move(d));
    }
  } else {
    b.note = "topology not recorded";
  }

  // Places the run measured or judged on this host that the topology does not hold.
  std::vector<std::string> absent;
  auto consider = [&](const std::string& p) {
    auto k = place::kind(p);
    if ((k == place::Kind::gpu || k == place::Kind::nic || k == place::Kind::numa) && drawn.insert(p).second)
      absent.push_back(p);
  };
  for (const auto& row : b.section->rows) {
    consider(row.place());
    for (const Verdict* v : row.verdicts) consider(v->place);
  }
  for (const Verdict* v : b.section->other_verdicts) consider(v->place);
  if (!absent.empty()) {
    // By kind, then GPUs and NUMA nodes by index, NICs (and ties) by text.
    std::sort(absent.begin(), absent.end(), [](const std::string& a, const std::string& b) {
      const Place pa = Place::parse(a), pb = Place::parse(b);
      if (pa.kind != pb.kind) return pa.kind < pb.kind;
      if (pa.kind != place::Kind::nic && pa.index != pb.index) return pa.index < pb.index;
      return a < b;
    });
    Group g;
    g.label = "not in topology";
    g.head = host + ": places with metrics or verdicts that the recorded topology does not list";
    g.dashed = true;
    for (const auto& p : absent) {
      Device d;
      d.place = p;
      const Place pl = Place::parse(p);
      const auto k = pl.kind;
      d.label = k == place::Kind::gpu ? "GPU " + std::to_string(pl.index)
                : k == place::Kind::numa ? "NUMA " + std::to_string(pl.index)
                                         : pl.name;
      d.sub = "not in topology";
      d.head = p + "\nnot in the recorded topology";
      (k == place::Kind::nic ? g.nics : g.gpus).push_back(std::move(d));
    }
    b.groups.push_back(std::move(g));
  }

  // NUMA boxes side by side, wrapping so that a wide host (16 GPUs, 5 NUMA boxes) stays
  // inside the page next to the arc gutter.
  constexpr int kInnerMax = kCanvasW - kGutterMax - 2 * kHostPad;
  int x = 0, y = 0, row_h = 0, w = 0;
  for (auto& g : b.groups) {
    size_group(g);
    if (x > 0 && x + g.w > kInnerMax) {
      x = 0;
      y += row_h + kGap;
      row_h = 0;
    }
    g.dx = x;
    g.dy = y;
    x += g.w + kGap;
    w = std::max(w, x - kGap);
    row_h = std::max(row_h, g.h);
  }
  b.w = std::max(w + 2 * kHostPad, kHostMinW);
  b.h = kHostHead + (b.groups.empty() ? 16 : y + row_h) + kHostPad;
  return b;
}

// Hosts left to right, wrapping at the canvas width; or, when pair arcs are drawn, one host a
// row starting at `left`, so every arc runs in the gutter on the left and crosses no host.
int flow(std::vector<HostBox>& boxes, int top, int left = 0) {
  int x = left, y = top, row_h = 0;
  for (auto& b : boxes) {
    if (x > left && (left > 0 || x + b.w > kCanvasW)) {
      x = left;
      y += row_h + kRowGap;
      row_h = 0;
    }
    b.x = x;
    b.y = y;
    x += b.w + kGap * 3;
    row_h = std::max(row_h, b.h);
  }
  return boxes.empty() ? top : y + row_h;
}

void text(std::string& out, int x, int y, const char* cls, std::string_view s) {
  out += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" class=\"" + cls + "\">";
  esc(out, s);
  out += "</text>";
}

void title(std::string& out, std::string_view s) {
  out += "<title>";
  esc(out, s);
  out += "</title>";
}

void open_place(std::string& out, const char* kind, const std::string& p, Tone t) {
  out += "<g class=\"place ";
  out += kind;
  out += ' ';
  out += tone_class(t);
  out += '"';
  if (!p.empty()) {
    out += " data-place=\"";
    esc(out, p);
    out += '"';
  }
  out += '>';
}

void rect(std::string& out, int x, int y, int w, int h, const std::string& cls, int rx = 4) {
  out += "<rect class=\"" + cls + "\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" +
         num(h) + "\" rx=\"" + num(rx) + "\"/>";
}

// Long names (an NCCL dump names NICs by PCI path) are cut to the box; the tooltip has them whole.
std::string fit(const std::string& s, std::size_t chars) {
  std::size_t n = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == chars) break;
  }
  return i < s.size() ? s.substr(0, i) + "…" : s;
}

void draw_device(std::string& out, const Device& d, const char* kind, int x, int y, int h, const VerdictIndex& ix) {
  const Marks* m = ix.place(d.place);
  open_place(out, kind, d.place, tone(m));
  title(out, tooltip(d.head, d.place, m));
  rect(out, x, y, kDevW, h, std::string("dev ") + tone_class(tone(m)) + (d.sub == "not in topology" ? " dash" : ""));
  text(out, x + 6, y + 14, "dl", fit(d.label, kLabelChars));
  text(out, x + 6, y + h - 7, "ds", fit(d.sub, kSubChars));
  out += "</g>";
}

void draw_group(std::string& out, const Group& g, const HostBox& b, int x, int y, const VerdictIndex& ix) {
  const Marks* m = g.place.empty() ? nullptr : ix.place(g.place);
  const Tone t = tone(m);
  open_place(out, g.place.empty() ? "group" : "numa", g.place, t);
  title(out, tooltip(g.head, g.place, m));
  rect(out, x, y, g.w, g.h, std::string("grp ") + tone_class(t) + (g.dashed ? " dash" : ""), 6);
  text(out, x + kGroupPad, y + 14, "gl", g.label);
  out += "</g>";
  int cy = y + kGroupHead;
  for (std::size_t k = 0; k < g.gpus.size(); ++k) {
    const int col = static_cast<int>(k % g.cols);
    if (k > 0 && col == 0) cy += kGpuH + kBand + 2 + kGap;
    const int dx = x + kGroupPad + col * (kDevW + kGap);
    draw_device(out, g.gpus[k], "gpu", dx, cy, kGpuH, ix);
    const Device& d = g.gpus[k];
    if (d.island >= 0) {
      // A band under each island member, joined to the next one in the row when it is in
      // the same island, so an island reads as one bar.
      const bool joins = k + 1 < g.gpus.size() && col + 1 < g.cols && g.gpus[k + 1].island == d.island;
      out += "<rect class=\"isl\" x=\"" + num(dx) + "\" y=\"" + num(cy + kGpuH + 2) + "\" width=\"" +
             num(kDevW + (joins ? kGap : 0)) + "\" height=\"" + num(kBand) + "\" fill=\"" +
             kIslandColours[d.island % std::size(kIslandColours)] + "\"><title>link island " +
             num(d.island + 1) + ": GPUs " + index_list(b.islands[d.island]) + "</title></rect>";
    }
  }
  if (!g.gpus.empty()) cy += kGpuH + kBand + 2 + kGap;
  for (std::size_t k = 0; k < g.nics.size(); ++k) {
    const int col = static_cast<int>(k % g.cols);
    if (k > 0 && col == 0) cy += kNicH + kGap;
    draw_device(out, g.nics[k], "nic", x + kGroupPad + col * (kDevW + kGap), cy, kNicH, ix);
  }
  if (g.gpus.empty() && g.nics.empty()) text(out, x + kGroupPad, y + kGroupHead + 12, "ds", "no GPU or fabric NIC");
}

void draw_host(std::string& out, const HostBox& b, const VerdictIndex& ix) {
  const std::string& host = b.section->host;
  const Marks* own = ix.place(host);
  const Marks* all = ix.host(host);
  open_place(out, "host", host, tone(own));
  title(out, tooltip(host + (b.note.empty() ? "" : "\n" + b.note), host, all));
  // A host whose ranks never arrived is outlined red whatever its verdicts say.
  const Tone outline = b.missing_ranks.empty() ? tone(all) : Tone::fail;
  rect(out, b.x, b.y, b.w, b.h, std::string("roll ") + tone_class(outline) + (b.missing_ranks.empty() ? "" : " dash"), 8);
  // The header band is the host's own verdicts (inventory, probe outcomes); the outline is the
  // worst verdict anywhere inside the host.
  rect(out, b.x + 1, b.y + 1, b.w - 2, kHostHead - 6, std::string("hh ") + tone_class(tone(own)), 7);
  out += "<a href=\"#" + host_anchor(b.index) + "\">";
  text(out, b.x + kHostPad, b.y + 16, "hn", host);
  out += "</a>";
  out += "<text x=\"" + num(b.x + kHostPad) + "\" y=\"" + num(b.y + 29) + "\" class=\"hs\">";
  if (!b.missing_ranks.empty())
    out += "<tspan class=\"miss\">never arrived: rank " + report_text::rank_list(b.missing_ranks) + "</tspan> · ";
  esc(out, "ranks " + report_text::rank_list(b.section->ranks) + " · " + b.note);
  out += "</text>";
  out += "</g>";
  for (const auto& g : b.groups) draw_group(out, g, b, b.x + kHostPad + g.dx, b.y + kHostHead + g.dy, ix);
  if (b.groups.empty()) text(out, b.x + kHostPad, b.y + kHostHead + 10, "ds", "no topology recorded for this host");
}

// Pair verdicts between two different hosts, one arc per host pair, coloured by the worst.
struct HostPair {
  std::string a, b;
  Marks marks;
};

std::vector<HostPair> host_pairs(const Report& r) {
  std::map<std::pair<std::string, std::string>, Marks> pairs;
  for (const auto& v : r.judgement->verdicts) {
    auto pr = place::split_pair(v.place);
    if (!pr) continue;
    std::string ha = place::host_of(pr->first), hb = place::host_of(pr->second);
    if (ha.empty() || hb.empty() || ha == hb) continue;
    if (hb < ha) std::swap(ha, hb);
    pairs[{ha, hb}].add(v);
  }
  std::vector<HostPair> out;
  for (auto& [k, m] : pairs) out.push_back({k.first, k.second, std::move(m)});
  return out;
}

void draw_pair_arcs(std::string& out, const std::vector<HostPair>& pairs, const std::vector<HostBox>& boxes,
                    int gutter) {
  std::unordered_map<std::string, const HostBox*> at;
  for (const auto& b : boxes) at[b.section->host] = &b;
  int span = 1;  // the furthest apart two hosts are, top to bottom
  for (const auto& b : boxes) span = std::max(span, b.y);
  // Passing arcs first, so failing ones are drawn over them.
  std::vector<const HostPair*> order;
  for (const auto& p : pairs) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(),
                   [](const HostPair* x, const HostPair* y) { return x->marks.tone < y->marks.tone; });
  for (const HostPair* p : order) {
    auto ia = at.find(p->a), ib = at.find(p->b);
    if (ia == at.end() || ib == at.end()) continue;
    const int ay = ia->second->y + 17, by = ib->second->y + 17;
    // Further apart, further out into the gutter: nested arcs, like an arc diagram.
    const int reach = 10 + (gutter - 16) * std::abs(ay - by) / span;
    out += "<path class=\"pair ";
    out += tone_class(p->marks.tone);
    out += "\" d=\"M" + num(gutter) + " " + num(ay) + "C" + num(gutter - reach) + " " + num(ay) + " " +
           num(gutter - reach) + " " + num(by) + " " + num(gutter) + " " + num(by) + "\">";
    title(out, tooltip(p->a + " ↔ " + p->b, "", &p->marks, 6));
    out += "</path>";
  }
  for (const auto& b : boxes)
    out += "<circle class=\"port\" cx=\"" + num(gutter) + "\" cy=\"" + num(b.y + 17) + "\" r=\"3\"/>";
}

void open_svg(std::string& out, int w, int h, const char* label) {
  out += "<svg class=\"topo\" viewBox=\"0 0 " + num(w) + " " + num(h) + "\" width=\"" + num(w) + "\" height=\"" +
         num(h) + "\" role=\"img\" aria-label=\"" + label + "\">";
}

// Every host in full, with arcs for the pair verdicts.
void draw_full(std::string& out, const Report& r, const VerdictIndex& ix, const std::vector<HostPair>& pairs) {
  std::vector<HostBox> boxes;
  for (std::size_t i = 0; i < r.hosts.size(); ++i) boxes.push_back(host_box(i, r));
  const int gutter = pairs.empty() ? 0 : std::clamp(static_cast<int>(boxes.size()) * 12, kGutterMin, kGutterMax);
  const int bottom = flow(boxes, 4, gutter);
  int w = 0;
  for (const auto& b : boxes) w = std::max(w, b.x + b.w);
  open_svg(out, w + 4, bottom + 4, "hosts with their NUMA nodes, GPUs and NICs");
  for (const auto& b : boxes) draw_host(out, b, ix);
  if (!pairs.empty()) draw_pair_arcs(out, pairs, boxes, gutter);
  out += "</svg>\n";
}

// A large cluster: every host as one cell of a grid, then the hosts that did not pass in full.
void draw_grid(std::string& out, const Report& r, const VerdictIndex& ix) {
  const int n = static_cast<int>(r.hosts.size());
  const int rows = (n + kGridCols - 1) / kGridCols;
  out += "<p>" + std::to_string(n) + " hosts, one cell each (outline: the worst verdict on the host or inside it); "
         "click a cell for its section.</p>\n";
  open_svg(out, kGridLabelW + kGridCols * (kCellW + kCellGap), rows * (kCellH + kCellGap), "hosts as a grid");
  for (int i = 0; i < n; ++i) {
    const int row = i / kGridCols, col = i % kGridCols;
    const int x = kGridLabelW + col * (kCellW + kCellGap), y = row * (kCellH + kCellGap);
    const std::string& host = r.hosts[i].host;
    if (col == 0) text(out, 0, y + 13, "hs", host);
    const Marks* m = ix.host(host);
    out += "<a href=\"#" + host_anchor(i) + "\">";
    open_place(out, "host", host, tone(m));
    title(out, tooltip(host, host, m, 3));
    rect(out, x, y, kCellW, kCellH, std::string("cell ") + tone_class(tone(m)), 3);
    out += "</g></a>";
  }
  out += "</svg>\n";

  // Hosts that fail the run are drawn before those with only warnings, each in host order.
  std::vector<HostBox> boxes;
  std::size_t not_passing = 0;
  for (Tone wanted : {Tone::fail, Tone::warn})
    for (std::size_t i = 0; i < r.hosts.size(); ++i) {
      if (tone(ix.host(r.hosts[i].host)) != wanted) continue;
      ++not_passing;
      if (boxes.size() < kDrawAllHostsUpTo) boxes.push_back(host_box(i, r));
    }
  if (boxes.empty()) {
    out += "<p>Every host passed: none is drawn in detail.</p>\n";
    return;
  }
  out += "<p>" + std::to_string(not_passing) + " hosts have a failing verdict (error or warning)";
  if (not_passing > boxes.size())
    out += "; " + std::to_string(boxes.size()) +
           " are drawn in detail below (errors before warnings), the others are in their sections";
  else
    out += ", drawn in detail below";
  out += ".</p>\n";
  const int bottom = flow(boxes, 4);
  int w = 0;
  for (const auto& b : boxes) w = std::max(w, b.x + b.w);
  open_svg(out, w + 4, bottom + 4, "hosts with a failing verdict, with their NUMA nodes, GPUs and NICs");
  for (const auto& b : boxes) draw_host(out, b, ix);
  out += "</svg>\n";
}

void pair_table(std::string& out, const std::vector<HostPair>& pairs) {
  std::size_t passing = 0;
  std::string rows;
  for (const auto& p : pairs) {
    if (p.marks.tone != Tone::fail && p.marks.tone != Tone::warn) {
      ++passing;
      continue;
    }
    rows += "<tr class=\"bad\"><td>";
    esc(rows, p.a);
    rows += "<td>";
    esc(rows, p.b);
    rows += "<td><span class=\"chip ";
    rows += tone_class(p.marks.tone);
    rows += "\">";
    rows += tone_word(p.marks.tone);
    rows += "</span><td class=\"n\">" + std::to_string(p.marks.pass) + "<td class=\"n\">" +
            std::to_string(p.marks.bad.size()) + "<td>";
    for (std::size_t i = 0; i < p.marks.bad.size() && i < 3; ++i) {
      rows += i ? "<br>" : "";
      esc(rows, p.marks.bad[i]->criterion + " at " + p.marks.bad[i]->place + ": " + p.marks.bad[i]->reason);
    }
    if (p.marks.bad.size() > 3) rows += "<br>… and " + std::to_string(p.marks.bad.size() - 3) + " more";
    rows += "\n";
  }
  out += "<p>Pair verdicts between hosts are listed here rather than drawn (more than " +
         std::to_string(kDrawAllHostsUpTo) + " hosts): " + std::to_string(pairs.size()) + " host pairs judged, " +
         std::to_string(passing) + " with no failing verdict (not listed).</p>\n";
  if (rows.empty()) return;
  out += "<table><thead><tr><th>host<th>host<th>worst<th>pass<th>failing<th>failing verdicts</thead><tbody>\n" +
         rows + "</tbody></table>\n";
}

}  // namespace

void append_topology(std::string& out, const Report& r, const VerdictIndex& ix) {
  if (r.hosts.empty()) {
    out += "<p>No hosts recorded.</p>\n";
    return;
  }
  const auto pairs = host_pairs(r);
  if (r.hosts.size() <= kDrawAllHostsUpTo) {
    out += "<div class=\"scroll\">";
    draw_full(out, r, ix, pairs);
    out += "</div>\n";
    if (!pairs.empty())
      out += "<p class=\"note\">Arcs on the left join hosts that have pair verdicts between them (one arc per "
             "host pair, coloured by its worst verdict; hover for the verdicts). Pairs within one host are in "
             "the cluster and pair table only.</p>\n";
  } else {
    out += "<div class=\"scroll\">";
    draw_grid(out, r, ix);
    out += "</div>\n";
    if (!pairs.empty()) pair_table(out, pairs);
  }
}

}  // namespace ga::html
