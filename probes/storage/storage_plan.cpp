#include "probes/storage/storage_plan.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ga::storage {

int partner_of(int rank, const std::vector<std::string>& rank_hosts) {
  const int n = static_cast<int>(rank_hosts.size());
  if (rank < 0 || rank >= n) throw std::invalid_argument("partner_of: rank " + std::to_string(rank) + " outside 0.." + std::to_string(n - 1));
  std::vector<std::string> hosts;
  for (const auto& h : rank_hosts)
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  if (hosts.size() == 1) return (rank + 1) % n;
  const auto& mine = rank_hosts[static_cast<std::size_t>(rank)];
  const auto hi = static_cast<std::size_t>(std::find(hosts.begin(), hosts.end(), mine) - hosts.begin());
  int position = 0;
  for (int r = 0; r < rank; ++r)
    if (rank_hosts[static_cast<std::size_t>(r)] == mine) ++position;
  const auto& next = hosts[(hi + 1) % hosts.size()];
  std::vector<int> there;
  for (int r = 0; r < n; ++r)
    if (rank_hosts[static_cast<std::size_t>(r)] == next) there.push_back(r);
  return there[static_cast<std::size_t>(position) % there.size()];
}

nlohmann::json to_json(const RankIo& r) {
  return {{"rank", r.rank}, {"host", r.host}, {"write_bytes", r.write_bytes}, {"write_s", r.write_s},
          {"read_bytes", r.read_bytes}, {"read_s", r.read_s}, {"read_from", r.read_from}, {"visible", r.visible},
          {"why_not", r.why_not}, {"meta_ops", r.meta_ops}, {"meta_s", r.meta_s}, {"error", r.error}};
}

RankIo rank_io_from_json(const nlohmann::json& j) {
  RankIo r;
  r.rank = j.at("rank").get<int>();
  r.host = j.at("host").get<std::string>();
  r.write_bytes = j.at("write_bytes").get<std::uint64_t>();
  r.write_s = j.at("write_s").get<double>();
  r.read_bytes = j.at("read_bytes").get<std::uint64_t>();
  r.read_s = j.at("read_s").get<double>();
  r.read_from = j.at("read_from").get<int>();
  r.visible = j.at("visible").get<bool>();
  r.why_not = j.at("why_not").get<std::string>();
  r.meta_ops = j.at("meta_ops").get<std::uint64_t>();
  r.meta_s = j.at("meta_s").get<double>();
  r.error = j.at("error").get<std::string>();
  return r;
}

IoTotals totals_of(const std::vector<RankIo>& all, const std::string& host) {
  IoTotals t;
  for (const auto& r : all) {
    if (!host.empty() && r.host != host) continue;
    ++t.ranks;
    t.write_bytes += r.write_bytes;
    t.write_s = std::max(t.write_s, r.write_s);
    if (r.visible) {
      ++t.visible_ranks;
      t.read_bytes += r.read_bytes;
      t.read_s = std::max(t.read_s, r.read_s);
    }
    t.meta_ops += r.meta_ops;
    t.meta_s = std::max(t.meta_s, r.meta_s);
  }
  return t;
}

double space_ratio(std::uint64_t free_bytes, int ranks, std::uint64_t bytes_per_rank, int keep) {
  const double need = static_cast<double>(ranks) * static_cast<double>(bytes_per_rank) * keep;
  return need > 0 ? static_cast<double>(free_bytes) / need : std::numeric_limits<double>::infinity();
}

double inode_ratio(std::uint64_t free_inodes, int ranks, std::uint64_t files_per_rank, int keep) {
  return space_ratio(free_inodes, ranks, files_per_rank, keep);
}

}  // namespace ga::storage
