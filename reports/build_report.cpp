// build_report: gathers what the writers print, so that they only format. It decides which
// section each metric belongs to, says where each place sits in the host's topology, and ties
// each verdict to the row it judged. It derives no measured number.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "base/both.hpp"
#include "base/natural_order.hpp"
#include "reports/report.hpp"
#include "topology/place.hpp"

namespace ga {
namespace {

using nlohmann::json;

json field_or_null(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? json(nullptr) : *it;
}

using HostIndex = std::unordered_map<std::string, const topo::HostTopology*>;

// Where a single (non-pair) place sits, in the words of the host's topology.
std::string where_single(const std::string& p, const HostIndex& topology) {
  using place::Kind;
  const Place pl = Place::parse(p);
  if (pl.kind == Kind::cluster) return "cluster";
  auto found = topology.find(place::host_of(pl));
  const topo::HostTopology* h = found == topology.end() ? nullptr : found->second;
  switch (pl.kind) {
    case Kind::host: return "host";
    case Kind::numa: return "NUMA " + std::to_string(pl.index);
    case Kind::gpu: {
      std::string s = "GPU " + std::to_string(pl.index);
      const topo::Gpu* g = nullptr;
      if (h)
        for (const auto& x : h->gpus)
          if (x.index == pl.index) g = &x;
      if (!g) return s + " (not in topology)";
      std::vector<std::string> parts;
      if (g->numa_node) parts.push_back("NUMA " + std::to_string(*g->numa_node));
      if (g->pci_bus_id) parts.push_back("PCI " + *g->pci_bus_id);
      if (g->uuid) parts.push_back(*g->uuid);  // the card to return: UUID and board serial
      if (g->serial) parts.push_back("serial " + *g->serial);
      if (parts.empty()) return s;
      s += " (" + parts[0];
      for (std::size_t i = 1; i < parts.size(); ++i) s += ", " + parts[i];
      return s + ")";
    }
    case Kind::nic: {
      std::string s = "NIC " + pl.name;
      const topo::Nic* nic = nullptr;
      if (h)
        for (const auto& x : h->nics)
          if (x.name == pl.name) nic = &x;
      if (!nic) return s + " (not in topology)";
      return nic->numa_node ? s + " (NUMA " + std::to_string(*nic->numa_node) + ")" : s;
    }
    case Kind::rail:  // "rail:K", as when a rail place was Kind::other
    default: {
      auto sub = place::subplace(pl);
      return sub.empty() ? p : sub;
    }
  }
}

std::string where_of(const std::string& p, const HostIndex& topology) {
  if (auto pr = place::split_pair(p)) {
    // Each end names its host: the two may differ, and the reader sees the pair out of any host.
    auto end = [&](const std::string& e) {
      auto h = place::host_of(e);
      if (h.empty()) return where_single(e, topology);
      if (place::kind(e) == place::Kind::host) return h;
      return h + " " + where_single(e, topology);
    };
    return end(pr->first) + " ↔ " + end(pr->second);
  }
  return where_single(p, topology);
}

// Rows of a host read top-down: the host, its NUMA nodes, GPUs, NICs, in index order.
struct RowOrder {
  int kind_rank;
  int index;
  std::string_view name;  // into the metric's place
  bool operator<(const RowOrder& o) const {
    if (kind_rank != o.kind_rank) return kind_rank < o.kind_rank;
    if (index != o.index) return index < o.index;
    return natural_less(name, o.name);
  }
};

RowOrder row_order(const std::string& p) {
  using place::Kind;
  const Place pl = Place::parse(p);
  switch (pl.kind) {
    case Kind::host: return {0, 0, {}};
    case Kind::numa: return {1, pl.index, {}};
    case Kind::gpu: return {2, pl.index, {}};
    case Kind::nic: {
      // The name as a view into p (pl is gone on return): it ends the place, "HOST/nic:NAME".
      const std::string_view whole(p);
      const bool suffix = whole.size() >= pl.name.size() && whole.substr(whole.size() - pl.name.size()) == pl.name;
      return {3, 0, suffix ? whole.substr(whole.size() - pl.name.size()) : whole};
    }
    case Kind::cluster: return {4, 0, {}};
    case Kind::pair: return {5, 0, p};
    case Kind::rail:  // after everything else, as when a rail place was Kind::other
    default: return {6, 0, p};
  }
}

// The section a place belongs to: its host, or "" (the cluster section) for the cluster,
// for pairs (even within one host, so that all pairs read together), and for host-less places.
std::string section_of(const std::string& p) {
  const Place pl = Place::parse(p);
  if (pl.kind == place::Kind::pair || pl.kind == place::Kind::cluster) return {};
  return place::host_of(pl);
}

// A row's (metric, place), viewing the judgement's own strings: no key is built per row.
struct MetricKey {
  std::string_view metric, place;
  bool operator==(const MetricKey&) const = default;
};
struct MetricKeyHash {
  std::size_t operator()(const MetricKey& k) const {
    const std::size_t a = std::hash<std::string_view>{}(k.metric), b = std::hash<std::string_view>{}(k.place);
    return a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  }
};

json run_info(const JournalData& j, const std::vector<std::string>& hosts_in_rank_order,
              const std::map<std::string, int>& ranks_per_host) {
  const json& rs = j.run_start;
  json run = json::object();
  run["started"] = field_or_null(rs, "started");
  run["ended"] = j.end_time.empty() ? json(nullptr) : json(j.end_time);
  run["argv"] = rs.is_object() && rs.contains("argv") && rs["argv"].is_array() ? rs["argv"] : json::array();
  run["hosts"] = hosts_in_rank_order;
  json rph = json::object();
  for (const auto& [h, n] : ranks_per_host) rph[h] = n;
  run["ranks_per_host"] = std::move(rph);
  json ranks = json::array();
  for (const auto& r : j.ranks)
    ranks.push_back({{"rank", r.rank}, {"host", r.host}, {"local_rank", r.local_rank}, {"pid", r.pid}});
  run["ranks"] = std::move(ranks);
  // The versions the run recorded, and only those: every key the schema names is present
  // (null when the run did not record it), so a reader need not guess absent from unknown.
  json versions = json::object();
  for (const char* k : {"gpuaccept", "mpi", "hwloc", "cuda_driver", "cuda_runtime", "nccl", "libibverbs"})
    versions[k] = nullptr;
  if (auto v = field_or_null(rs, "versions"); v.is_object())
    for (auto it = v.begin(); it != v.end(); ++it) versions[it.key()] = it.value();
  run["versions"] = std::move(versions);
  auto slurm = field_or_null(rs, "slurm");
  run["slurm"] = slurm.is_object() ? slurm : json(nullptr);
  run["suite"] = field_or_null(rs, "suite");
  run["probe_timeout_s"] = field_or_null(rs, "probe_timeout_s");
  // A re-test (`run --rerun DIR`): the run it re-tests, whose campaign this one continues.
  // What it recorded of that run (app/run_support.hpp rerun_record) but the campaign, which is
  // campaign.json's; a string from a gpuaccept that recorded the earlier run's path.
  if (auto prev = field_or_null(rs, "rerun_of"); prev.is_string()) {
    run["rerun_of"] = prev;
  } else if (prev.is_object()) {
    prev.erase("campaign");
    run["rerun_of"] = prev;
  }
  std::string source = j.criteria_source, text = j.criteria_text;
  if (auto c = field_or_null(rs, "criteria"); c.is_object()) {
    if (source.empty() && c.contains("source") && c["source"].is_string()) source = c["source"];
    if (text.empty() && c.contains("text") && c["text"].is_string()) text = c["text"];
  }
  run["criteria"] = {{"source", source}, {"text", text}};
  return run;
}

}  // namespace

Report build_report(const JournalData& journal, const Judgement& judgement) {
  Report r;
  r.journal = &journal;
  r.judgement = &judgement;

  std::vector<std::string> rank_order_hosts;
  std::map<std::string, int> ranks_per_host;
  std::map<std::string, std::vector<int>> ranks_of;
  for (const auto& rk : journal.ranks) {
    if (!ranks_per_host.count(rk.host)) rank_order_hosts.push_back(rk.host);
    ++ranks_per_host[rk.host];
    ranks_of[rk.host].push_back(rk.rank);
  }
  r.run = run_info(journal, rank_order_hosts, ranks_per_host);

  // What build_report needs of a place, worked out once per distinct place: at 4096 hosts
  // there are 4 M metrics and 2 M verdicts on ~170 k places, and each metric's place was parsed
  // three times (twice for its section, once for its row order), each verdict's twice. Keyed
  // by views into the judgement's own strings, which outlive the report.
  struct PlaceInfo {
    std::string section;                    // section_of
    std::size_t section_index = 0;          // into r.hosts; meaningless for the cluster section
    RowOrder order;                         // its name views into the key's string
    std::uint32_t rank = 0;                 // its order's rank among all the places' orders
    const std::string* where_text = nullptr;
  };
  std::unordered_map<std::string_view, PlaceInfo> places;
  auto info = [&](const std::string& p) -> PlaceInfo& {
    auto [it, fresh] = places.try_emplace(p);
    if (fresh) it->second.section = section_of(p), it->second.order = row_order(p);
    return it->second;
  };

  // Every host the run knows of gets a section, including one that never answered.
  std::set<std::string> hostset(rank_order_hosts.begin(), rank_order_hosts.end());
  for (const auto& h : journal.topology.hosts) hostset.insert(h.hostname);
  // Each metric's place looked up once, here, and kept by the metric's index (the map's values
  // stay where they are as it grows): the rows and their sort read it from there, ~8 M hash
  // lookups fewer at 4096 hosts. A verdict on a measured metric has that metric's place.
  const auto& ms = judgement.metrics;
  std::vector<PlaceInfo*> info_of(ms.size());
  for (std::size_t i = 0; i < ms.size(); ++i) info_of[i] = &info(ms[i].place);
  auto on_its_metric = [&](const Verdict& v) { return v.metric_index < ms.size() && ms[v.metric_index].place == v.place; };
  for (const auto& v : judgement.verdicts)
    if (!on_its_metric(v)) info(v.place);
  for (const auto& [p, i] : places)
    if (!i.section.empty()) hostset.insert(i.section);
  if (judgement.incomplete)
    for (const auto& m : judgement.incomplete->missing_ranks) hostset.insert(m.host);
  hostset.erase("");
  std::vector<std::string> hosts(hostset.begin(), hostset.end());
  std::sort(hosts.begin(), hosts.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });

  std::unordered_map<std::string, std::size_t> section_index;
  r.hosts.reserve(hosts.size());
  for (const auto& h : hosts) {
    section_index[h] = r.hosts.size();
    HostSection s;
    s.host = h;
    if (auto it = ranks_of.find(h); it != ranks_of.end()) s.ranks = it->second;
    std::sort(s.ranks.begin(), s.ranks.end());
    r.hosts.push_back(std::move(s));
  }
  for (auto& [p, i] : places)
    if (!i.section.empty()) i.section_index = section_index.at(i.section);
  auto section_for = [&](const PlaceInfo& i) -> HostSection& {
    return i.section.empty() ? r.cluster : r.hosts[i.section_index];
  };

  // Many metrics share a place (20 per GPU): describe each place once, and find hosts by
  // hash, so a 1024-host run costs one pass over the metrics.
  HostIndex topology;
  for (const auto& h : journal.topology.hosts) topology.emplace(h.hostname, &h);
  auto where = [&](const std::string& p) -> const std::string* {
    auto it = r.where_of_place.find(p);
    if (it == r.where_of_place.end()) it = r.where_of_place.emplace(p, where_of(p, topology)).first;
    return &it->second;
  };

  // Rows, sorted, then located by metric so verdicts can find them. Each section's rows are
  // counted first, so that no section's vector grows (and moves its rows) step by step.
  std::vector<std::size_t> rows_in(r.hosts.size() + 1);  // the last: the cluster section's
  for (const PlaceInfo* i : info_of) ++rows_in[i->section.empty() ? r.hosts.size() : i->section_index];
  for (std::size_t h = 0; h < r.hosts.size(); ++h) r.hosts[h].rows.reserve(rows_in[h]);
  r.cluster.rows.reserve(rows_in.back());
  for (std::size_t k = 0; k < ms.size(); ++k) {
    PlaceInfo& i = *info_of[k];
    if (!i.where_text) i.where_text = where(ms[k].place);
    PlacedMetric row;
    row.metric = &ms[k];
    row.where_text = i.where_text;
    section_for(i).rows.push_back(std::move(row));
  }
  // Rows are sorted by their place's order (RowOrder), each distinct place ranked once: at 4096
  // hosts ~1 M rows of pairs compared by name (natural order, digit by digit) were most of
  // building the report, against a few hundred thousand distinct places. Equal orders get one
  // rank, so the sort below is the stable sort by order it replaces.
  {
    std::vector<PlaceInfo*> distinct;
    distinct.reserve(places.size());
    for (auto& [p, i] : places) distinct.push_back(&i);
    auto by_order = [](const PlaceInfo* a, const PlaceInfo* b) { return a->order < b->order; };
    base::sort_on_both(distinct.begin(), distinct.end(), by_order);
    std::uint32_t rank = 0;
    for (std::size_t k = 0; k < distinct.size(); ++k) {
      if (k > 0 && by_order(distinct[k - 1], distinct[k])) ++rank;
      distinct[k]->rank = rank;
    }
  }
  // Sections are sorted on both cores, each by one thread: a sort reads only its own rows and
  // info_of, which nothing writes any more.
  auto sort_rows = [&](HostSection& s) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> keys;  // (place rank, row): ties keep their order
    keys.reserve(s.rows.size());
    for (std::size_t i = 0; i < s.rows.size(); ++i)
      keys.emplace_back(info_of[static_cast<std::size_t>(s.rows[i].metric - ms.data())]->rank, std::uint32_t(i));
    if (std::is_sorted(keys.begin(), keys.end())) return;
    std::sort(keys.begin(), keys.end());
    std::vector<PlacedMetric> sorted;
    sorted.reserve(s.rows.size());
    for (const auto& k : keys) sorted.push_back(std::move(s.rows[k.second]));
    s.rows = std::move(sorted);
  };
  // The judge leaves its metrics sorted by name and place (place::less): then the
  // rows of one metric and place are found by binary search; else (a judgement made by hand)
  // through a hash index made once. Whether they are is found by the thread whose half of the
  // sorting is the lighter (the other has the cluster's pairs): 0.15 s at 4096 hosts.
  auto name_place_less = [](const Metric& m, const Metric& n) {
    if (m.metric != n.metric) return m.metric < n.metric;
    return m.place != n.place && place::less(m.place, n.place);
  };
  bool sorted = false;
  const std::size_t half = r.hosts.size() / 2;
  base::both(
      [&] {
        for (std::size_t h = half; h < r.hosts.size(); ++h) sort_rows(r.hosts[h]);
        sorted = std::is_sorted(ms.begin(), ms.end(), name_place_less);
      },
      [&] {
        for (std::size_t h = 0; h < half; ++h) sort_rows(r.hosts[h]);
        sort_rows(r.cluster);
      });

  // A verdict on a measured metric knows it (Verdict::metric_index): its row is found by index.
  // Others (an absent metric, a probe's outcome, a judgement made without indices) are looked
  // up by metric and place, in an index made only if one of them is there.
  std::vector<PlacedMetric*> row_of(judgement.metrics.size(), nullptr);
  auto note_rows = [&](HostSection& s) {
    for (auto& row : s.rows) row_of[static_cast<std::size_t>(row.metric - judgement.metrics.data())] = &row;
  };
  for (auto& s : r.hosts) note_rows(s);
  note_rows(r.cluster);
  std::unordered_map<MetricKey, std::vector<PlacedMetric*>, MetricKeyHash> rows_by_key;
  bool keyed = false;
  std::vector<PlacedMetric*> found;
  auto by_key = [&](const Verdict& v) -> const std::vector<PlacedMetric*>* {
    if (sorted) {
      Metric probe;
      probe.metric = v.metric, probe.place = v.place;
      auto [lo, hi] = std::equal_range(ms.begin(), ms.end(), probe, name_place_less);
      found.clear();
      for (auto it = lo; it != hi; ++it)
        if (PlacedMetric* row = row_of[static_cast<std::size_t>(it - ms.begin())]) found.push_back(row);
      return found.empty() ? nullptr : &found;
    }
    if (!keyed) {
      for (PlacedMetric* row : row_of)
        if (row) rows_by_key[MetricKey{row->metric->metric, row->metric->place}].push_back(row);
      keyed = true;
    }
    auto it = rows_by_key.find(MetricKey{v.metric, v.place});
    return it == rows_by_key.end() ? nullptr : &it->second;
  };

  // When several rows share metric and place (a sweep over sizes), the verdict's params pick
  // the row it judged; a verdict without params (older journals' judgements) falls back to
  // the row whose value it carries.
  for (const auto& v : judgement.verdicts) {
    if (v.metric_index < row_of.size() && row_of[v.metric_index]->metric->metric == v.metric &&
        row_of[v.metric_index]->metric->place == v.place) {
      row_of[v.metric_index]->verdicts.push_back(&v);
      continue;
    }
    std::vector<PlacedMetric*> targets;
    if (const auto* rows = by_key(v)) {
      if (rows->size() == 1) {
        targets = *rows;
      } else if (!v.params.empty()) {
        for (auto* row : *rows)
          if (row->metric->params == v.params) targets.push_back(row);
        if (targets.size() > 1) targets.clear();
      } else {
        for (auto* row : *rows) {
          const Metric& m = *row->metric;
          bool same_value = v.value && m.value && *v.value == *m.value;
          bool same_text = v.text && m.text && *v.text == *m.text;
          if (same_value || same_text) targets.push_back(row);
        }
        if (targets.size() > 1) targets.clear();  // still ambiguous: list it apart, never twice
      }
    }
    if (targets.empty())
      section_for(info(v.place)).other_verdicts.push_back(&v);
    else
      targets.front()->verdicts.push_back(&v);
  }
  for (const auto& f : judgement.passing) {
    if (f.kind == place::to_string(place::Kind::pair) || f.kind == place::to_string(place::Kind::cluster)) continue;
    for (const auto& h : f.hosts)
      if (auto it = section_index.find(h.host); it != section_index.end()) r.hosts[it->second].folded_passes += h.places;
  }
  return r;
}

}  // namespace ga
