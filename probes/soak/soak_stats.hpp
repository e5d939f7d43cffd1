// The soak's arithmetic, apart from any GPU: percentiles of a rank's step times, one rank's
// summary of an interval, and what rank 0 makes of every rank's summaries at the end of each
// interval (the samples it journals at once, the straggler analysis, the live line). Pure, so
// the unit tests drive it with made-up ranks.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/sample.hpp"

namespace ga::soak {

// Linear-interpolated percentile (0..100) of `v`; 0 for an empty vector.
double percentile(std::vector<double> v, double pct);
// Least-squares slope of y over x; 0 with fewer than 2 points or no spread in x.
double slope(const std::vector<double>& x, const std::vector<double>& y);

// One rank's interval, as it sends it to rank 0 (to_json / from_json over MPI).
struct RankInterval {
  int rank = 0;
  std::string place;                    // HOST/gpu:N
  int steps = 0;
  double step_p50 = 0, step_p99 = 0;    // seconds, wall clock of whole steps
  double compute_p50 = 0;               // seconds of the step's GEMMs (GPU events)
  double wait_p50 = 0;                  // seconds inside the all_reduce: waiting for peers + moving data
  double h2d_p50 = 0;                   // seconds of the batch copy
  double gemm_flops = 0;                // median over the steps of the GEMMs' rate
  double busbw = 0;                     // median over the steps, nccl-tests' all_reduce factor
  double h2d_bw = 0;                    // median over the steps
  double memory_used = 0;               // bytes, the most seen in the interval (total - free)
  std::optional<double> temperature, power, clock_sm;  // max, max, min of the NVML readings
  std::optional<std::uint64_t> throttle_mask;          // OR of the readings
  std::optional<double> ecc_uncorrected_rise, ecc_corrected_rise, nvlink_errors_rise, xid_rise;  // since the soak began
  nlohmann::json to_json() const;
  static RankInterval from_json(const nlohmann::json&);
};

struct AnalysisConfig {
  double straggler_ratio = 1.2;         // an interval's slowest GPU counts when its compute is this x the median
};

// Rank 0's memory of the intervals so far.
struct History {
  int intervals = 0;
  std::vector<double> t_mid, step_p50;                 // the job's step time per interval (median over ranks)
  std::map<std::string, std::vector<double>> memory;   // place -> memory used per interval
  std::map<std::string, std::vector<double>> compute_ratio;  // place -> compute / median per interval
  std::map<std::string, int> slowest;                  // place -> intervals it was the straggler
  std::map<std::string, int> rank_of;
  std::map<std::string, std::vector<double>> own_wait, others_wait, own_compute, median_compute;
};

// The samples of one interval (iter = its 1-based number), for every rank's GPU and the job:
// raw figures, the cross-GPU ratios, and the running ones (memory fluctuation, drift).
// `peak_flops[place]` is the model's dense bf16 peak (absent: no *_of_theory sample).
std::vector<Sample> interval_samples(const std::vector<RankInterval>& ranks, History& h, double t_mid_s,
                                     const std::map<std::string, double>& peak_flops, const AnalysisConfig& cfg);

// The straggler verdict at the end: soak.straggler (text, cluster) and soak.straggler_named
// (bool, per GPU; the named one carries the evidence in params.reason).
std::vector<Sample> final_samples(const History& h, const AnalysisConfig& cfg);

// rank 0's live line: "interval 3: slowest ga-h1/gpu:0 (compute 3.0x median), lowest 612 TFLOP/s at ...,
// hottest 71 degC at ...".
std::string live_line(const std::vector<RankInterval>& ranks, const History& h);

}  // namespace ga::soak
