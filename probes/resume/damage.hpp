// Test hook of the resume probe (param `damage`): breaks the newest complete checkpoints the
// way storage breaks them in the field, so the resume must notice and fall back:
//   truncate  the newest complete checkpoint loses the second half of worker 0's shard (torn)
//   flip      one byte in the middle of the last worker's shard of the newest one flips
//   both      truncate the newest and flip a byte in the one before it
// Returns one line per damaged file (what was done), and the steps damaged.
#pragma once
#include <string>
#include <vector>

#include "probes/resume/job.hpp"

namespace ga::resume {

struct Damage {
  std::vector<std::string> done;
  std::vector<int> steps;
};
// Throws std::invalid_argument for an unknown kind, std::runtime_error when there are not
// enough complete checkpoints to damage.
Damage damage_checkpoints(const std::string& root, const JobConfig&, const std::string& kind);

}  // namespace ga::resume
