// Which hosts report.md and report.html fold together (host_folds.hpp).
#include "reports/host_folds.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <unordered_map>

#include "topology/place.hpp"
#include "topology/topology.hpp"

namespace ga::report_fold {

namespace {

bool all_pass(const HostSection& s) {
  std::size_t n = 0;
  for (const auto& row : s.rows)
    for (const Verdict* v : row.verdicts) {
      if (v->status != VerdictStatus::pass) return false;
      ++n;
    }
  for (const Verdict* v : s.other_verdicts) {
    if (v->status != VerdictStatus::pass) return false;
    ++n;
  }
  return n + s.folded_passes > 0;  // a host nothing was judged on is shown, not hidden in a fold
}

// The topology with the host's name taken out: equal strings, equal topologies.
std::optional<std::string> topology_key(const std::unordered_map<std::string, const topo::HostTopology*>& index,
                                        const std::string& host) {
  auto it = index.find(host);
  if (it == index.end()) return std::nullopt;
  const topo::HostTopology* t = it->second;
  nlohmann::json j = topo::to_json(*t);
  j.erase("hostname");
  return j.dump();
}

struct Numbered {
  std::string prefix;
  std::string digits;
};

Numbered split_number(const std::string& name) {
  std::size_t i = name.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]))) --i;
  return {name.substr(0, i), name.substr(i)};
}

bool follows(const Numbered& a, const Numbered& b) {
  if (a.digits.empty() || b.digits.empty() || a.prefix != b.prefix || a.digits.size() != b.digits.size() ||
      a.digits.size() > 18)
    return false;
  return std::stoll(b.digits) == std::stoll(a.digits) + 1;
}

}  // namespace

Folds fold_hosts(const Report& r) {
  Folds f;
  const std::size_t n = r.hosts.size();
  f.leader.assign(n, Folds::npos);
  f.members.assign(n, {});
  std::map<std::string, std::vector<std::size_t>> by_topology;  // key -> hosts in report order
  std::unordered_map<std::string, const topo::HostTopology*> index;  // as ClusterTopology::find: the first record
  if (r.journal)
    for (const auto& h : r.journal->topology.hosts) index.try_emplace(h.hostname, &h);
  for (std::size_t i = 0; i < n; ++i) {
    if (!all_pass(r.hosts[i])) continue;
    auto key = topology_key(index, r.hosts[i].host);
    if (!key) continue;
    auto [it, fresh] = by_topology.try_emplace(std::move(*key));
    it->second.push_back(i);
  }
  for (auto& [key, hosts] : by_topology) {
    if (hosts.size() < kFoldAtLeast) continue;
    for (std::size_t i : hosts) f.leader[i] = hosts.front();
    f.members[hosts.front()] = hosts;
  }
  return f;
}

std::string host_ranges(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size();) {
    std::size_t j = i;
    Numbered last = split_number(names[i]);
    while (j + 1 < names.size()) {
      Numbered next = split_number(names[j + 1]);
      if (!follows(last, next)) break;
      last = std::move(next);
      ++j;
    }
    out += (out.empty() ? "" : ", ") + names[i];
    if (j > i) out += (j == i + 1 ? ", " : "-") + names[j];
    i = j + 1;
  }
  return out;
}

std::string fold_title(const Report& r, const Folds& f, std::size_t leader) {
  std::vector<std::string> names;
  for (std::size_t i : f.members[leader]) names.push_back(r.hosts[i].host);
  return host_ranges(names) + " (" + std::to_string(names.size()) + " hosts): identical topology, every verdict passes";
}

FoldCounts fold_counts(const Report& r, const Folds& f, std::size_t leader) {
  FoldCounts c;
  for (std::size_t i : f.members[leader]) {
    const HostSection& s = r.hosts[i];
    c.rows += s.rows.size();
    for (const auto& row : s.rows) c.verdicts += row.verdicts.size();
    c.verdicts += s.other_verdicts.size() + s.folded_passes;
    c.ranks.insert(c.ranks.end(), s.ranks.begin(), s.ranks.end());
  }
  std::sort(c.ranks.begin(), c.ranks.end());
  return c;
}

PairFold fold_pairs(const Report& r) {
  PairFold f;
  if (r.hosts.size() <= kPairsInFullUpTo) return f;
  f.folded = true;
  f.listed.host = r.cluster.host;
  f.listed.ranks = r.cluster.ranks;
  f.listed.other_verdicts = r.cluster.other_verdicts;
  for (const auto& row : r.cluster.rows) {
    const bool pair = place::kind(row.place()) == place::Kind::pair;
    const bool bad = std::any_of(row.verdicts.begin(), row.verdicts.end(),
                                 [](const Verdict* v) { return v->status != VerdictStatus::pass; });
    if (!pair || bad) f.listed.rows.push_back(row);
    else if (row.verdicts.empty()) ++f.unjudged;
    else ++f.passing;
  }
  return f;
}

std::string pair_fold_note(const PairFold& f) {
  return "Above " + std::to_string(kPairsInFullUpTo) + " hosts, pair rows whose every verdict passes are not listed: " +
         std::to_string(f.passing) + " such rows, and " + std::to_string(f.unjudged) +
         " pair rows no criterion judges (raw measurements); every row is in report.json.";
}

}  // namespace ga::report_fold

