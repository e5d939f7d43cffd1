#include "probes/harness/progress_printer.hpp"

#include <algorithm>
#include <utility>

#include "base/quantity.hpp"

namespace ga::harness {

std::string progress_line(std::string_view probe, std::string_view doing, int index, int count,
                          std::string_view unit, StepCount kind, std::optional<double> per_step_s,
                          double deadline_left_s) {
  // A count that is an estimate may be overtaken (an upper bound re-computed low): never print
  // "9 of 8".
  count = std::max(count, index);
  const bool bound = kind == StepCount::at_most;
  std::string s = std::string(probe) + ": " + std::string(doing) + " (" + std::to_string(index) + " of " +
                  (bound ? "at most " : "") + std::to_string(count) + " " + std::string(unit) + ")";
  // What the estimate is, said in the line: the steps not done times their mean so far. Before
  // the first step ends there is none, and only the probe's deadline is known.
  if (per_step_s)
    s += (bound ? ", up to " : ", about ") + base::format_quantity(*per_step_s * double(count - index + 1), "s") + " left at " +
         base::format_quantity(*per_step_s, "s") + " each so far";
  if (deadline_left_s <= 0) return s + ", the probe's deadline has passed";
  return s + ", " + base::format_quantity(deadline_left_s, "s") + (per_step_s ? " to" : " left to") +
         " the probe's deadline";
}

ProgressPrinter::ProgressPrinter(std::string probe, Clock::time_point deadline, double min_interval_s,
                                 std::function<void(const std::string&)> write, std::function<Clock::time_point()> now)
    : probe_(std::move(probe)),
      deadline_(deadline),
      min_interval_s_(min_interval_s),
      write_(std::move(write)),
      now_(std::move(now)) {}

void ProgressPrinter::step(std::string_view doing, int index, int count, std::string_view unit, StepCount kind) {
  const auto t = now_();
  if (last_index_ == 0 || index <= last_index_ || unit != unit_) {
    unit_ = std::string(unit);
    first_index_ = index;
    series_start_ = t;
  }
  last_index_ = index;
  // Rate limit: the first step of the probe prints, then one line per interval.
  if (last_print_ && std::chrono::duration<double>(t - *last_print_).count() < min_interval_s_) return;
  last_print_ = t;
  std::optional<double> per_step;
  if (index > first_index_)
    per_step = std::chrono::duration<double>(t - series_start_).count() / double(index - first_index_);
  write_(progress_line(probe_, doing, index, count, unit, kind, per_step,
                       std::chrono::duration<double>(deadline_ - t).count()));
}

}  // namespace ga::harness
