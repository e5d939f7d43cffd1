// The storage probe's bookkeeping, as pure functions: who reads whose file, and how per-rank
// timings become per-host and cluster figures. Kept apart from the I/O so tests can hold
// them to exact numbers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ga::storage {

// The writer whose file `rank` reads back: a rank on the next host (hosts in order of first
// rank), at the same position among that host's ranks (modulo its rank count), so every read
// crosses a host boundary. With one host: the next rank (with one rank: its own file).
int partner_of(int rank, const std::vector<std::string>& rank_hosts);

// What one rank measured, exchanged between ranks as JSON.
struct RankIo {
  int rank = 0;
  std::string host;
  std::uint64_t write_bytes = 0;
  double write_s = 0;
  std::uint64_t read_bytes = 0;        // 0 when the partner's file was not seen
  double read_s = 0;
  int read_from = -1;                  // partner rank
  bool visible = false;                // the partner's file was there, whole, with its checksum
  std::string why_not;                 // when not visible
  std::uint64_t meta_ops = 0;
  double meta_s = 0;
  std::string error;                   // a local failure (cannot write, no space ...)
};
nlohmann::json to_json(const RankIo&);
RankIo rank_io_from_json(const nlohmann::json&);

// Ranks of one host ran at the same time, so a host's throughput is its bytes over its
// slowest rank's time; same for the cluster over all ranks.
struct IoTotals {
  std::uint64_t write_bytes = 0, read_bytes = 0, meta_ops = 0;
  double write_s = 0, read_s = 0, meta_s = 0;   // slowest rank
  int ranks = 0, visible_ranks = 0;
  double write_bw() const { return write_s > 0 ? static_cast<double>(write_bytes) / write_s : 0; }
  double read_bw() const { return read_s > 0 ? static_cast<double>(read_bytes) / read_s : 0; }
  double meta_rate() const { return meta_s > 0 ? static_cast<double>(meta_ops) / meta_s : 0; }
};
IoTotals totals_of(const std::vector<RankIo>& all, const std::string& host);  // host "" = every rank

// Free space and inodes against a full checkpoint of every rank: `keep` checkpoints of
// bytes_per_rank (and files_per_rank files) from each of `ranks` ranks. >= 1 means it fits.
double space_ratio(std::uint64_t free_bytes, int ranks, std::uint64_t bytes_per_rank, int keep);
double inode_ratio(std::uint64_t free_inodes, int ranks, std::uint64_t files_per_rank, int keep);

}  // namespace ga::storage
