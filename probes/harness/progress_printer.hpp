// The harness's side of the progress channel (probes/progress.hpp): the one-line messages rank
// 0 prints while a probe runs, at most one every few seconds (every step with --verbose), each
// with the time left as far as it is known (docs/design.md, "Progress lines").
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "probes/progress.hpp"

namespace ga::harness {

// Default spacing of progress lines; --verbose prints every step.
inline constexpr double kProgressIntervalS = 5.0;

// One progress line, without the "[gpuaccept] " prefix:
//   "mpi-coll: all_reduce 1 MiB out of place (7 of 24 lines), about 40 s left at 6.6 s each
//    so far, 250 s to the probe's deadline"
//   "p2p: adaptive schedule, cover pairs (3 of at most 48 rounds), up to 34 s left at ..."
// per_step_s: the mean time of the series' steps done so far (nullopt before the first one
// ends: then only the deadline is given); remaining steps = count - index + 1 (this one too).
std::string progress_line(std::string_view probe, std::string_view doing, int index, int count,
                          std::string_view unit, StepCount kind, std::optional<double> per_step_s,
                          double deadline_left_s);

// One probe's printer: made by the run loop on rank 0 for each probe, given to the probe as
// ProbeContext::progress. The clock and the writer are parameters so a test drives both.
class ProgressPrinter final : public Progress {
 public:
  using Clock = std::chrono::steady_clock;
  ProgressPrinter(std::string probe, Clock::time_point deadline, double min_interval_s,
                  std::function<void(const std::string&)> write, std::function<Clock::time_point()> now = Clock::now);
  void step(std::string_view doing, int index, int count, std::string_view unit, StepCount kind) override;

 private:
  std::string probe_;
  Clock::time_point deadline_;
  double min_interval_s_;
  std::function<void(const std::string&)> write_;
  std::function<Clock::time_point()> now_;
  std::optional<Clock::time_point> last_print_;
  // The current series: its unit, the index and time it was first seen at, the last index.
  std::string unit_;
  int first_index_ = 0, last_index_ = 0;
  Clock::time_point series_start_{};
};

}  // namespace ga::harness
