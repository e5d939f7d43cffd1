// The probe's progress channel: where a long probe says how far it is, for the operator who
// watches a run (docs/design.md, "Progress lines"). A probe never prints (probes/probe.hpp);
// it reports steps here and the harness decides whether and how to show them: rank 0 prints
// rate-limited lines on stderr, every other rank, `--quiet` and a unit test get nothing.
#pragma once
#include <string_view>

namespace ga {

// Whether a step count is known or a bound: a planner that stops when it has its answer (the
// adaptive pair schedule, the isolation pass) knows only the most rounds it may ask for.
enum class StepCount { exact, at_most };

class Progress {
 public:
  virtual ~Progress() = default;
  // Step `index` (1-based) of `count` is starting; `doing` says what it is ("all_reduce 1 MiB
  // out of place", "inter-host pairs"), `unit` what is counted ("lines", "rounds"). Steps of
  // one series come in rising index order; an index that does not rise, or another unit,
  // starts a new series. Cheap: call every step.
  virtual void step(std::string_view doing, int index, int count, std::string_view unit, StepCount kind) = 0;
};

// The call every caller makes: nothing when there is no channel (a probe run by a unit test,
// any rank but 0, --quiet).
inline void report_step(Progress* p, std::string_view doing, int index, int count, std::string_view unit,
                        StepCount kind = StepCount::exact) {
  if (p) p->step(doing, index, count, unit, kind);
}

}  // namespace ga
