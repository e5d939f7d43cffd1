// Reader for nccl-tests / rccl-tests text output (all_reduce_perf and friends), so recorded
// logs can be held against the sweep harness's bandwidth formulas and imported as results.
// Tolerates what real logs contain: Open MPI help-aggregation lines, "NCCL version" lines,
// rccl's banner, whitespace collapsed to single spaces, "N/A" in #wrong.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ga::nccltests {

// One timing of a row (out of place or in place), as printed.
struct Timing {
  double time_us = 0;
  double time_resolution_us = 0;  // half a unit of the last printed digit of time
  double algbw_gbs = 0;           // GB/s = 1e9 B/s, rounded to 2 decimals by nccl-tests
  double busbw_gbs = 0;
  std::optional<std::uint64_t> wrong;  // nullopt for "N/A"
};

struct Row {
  std::uint64_t size = 0;    // bytes (nccl-tests' size column)
  std::uint64_t count = 0;   // elements
  std::string type, redop;
  int root = -1;
  Timing out_of_place, in_place;
  int line = 0;              // 1-based line in the log
};

struct RankLine {
  int rank = 0;
  std::string host;
  int device = 0;
  std::string bus_id;        // "0000:19:00" or "0x07", as printed
  std::string model;
};

struct Log {
  int n_threads = 1, n_gpus = 1;
  std::uint64_t min_bytes = 0, max_bytes = 0;
  std::vector<RankLine> ranks;        // "# Rank N ... device ..." lines
  std::vector<Row> rows;
  std::optional<double> avg_busbw_gbs;   // "# Avg bus bandwidth : X"
  std::optional<std::uint64_t> out_of_bounds;  // "# Out of bounds values : N OK"
  std::string nccl_version;           // "NCCL version 2.26.2+cuda12.8", if printed
  std::vector<std::string> ignored;   // lines that were neither header, data nor known noise
  // Ranks of the run: the count of "Rank N" lines (one per GPU over all processes); without
  // them nThread x nGpus (one process).
  int nranks() const;
};

// Throws std::runtime_error naming the line when a data row is malformed, or when no data
// row and no header were found.
Log parse_log(const std::string& text);
Log parse_log_file(const std::string& path);

}  // namespace ga::nccltests
