// Checkpoints of the resume job, laid out as a training job would on shared storage:
//   ROOT/step-00000150/worker-0003.bin   one shard per worker, written to a temporary name,
//                                        fsync'd, renamed, directory fsync'd
//   ROOT/step-00000150/MANIFEST          written last, by worker 0, once every worker has
//                                        reported its shard's size and checksum
// A checkpoint is complete when its manifest is intact and every shard it lists is there
// with that size and checksum. A shard carries its own header and checksum too, so a shard
// damaged after the manifest was written (torn, truncated, a flipped byte) is caught.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probes/resume/job.hpp"

namespace ga::resume {

std::string step_dir(const std::string& root, int step);
std::string shard_path(const std::string& root, int step, int worker);
std::string manifest_path(const std::string& root, int step);

// Shard bytes: header (magic, version, worker, workers, step, words), the state, then the
// checksum of everything before it.
std::vector<unsigned char> encode_shard(const JobConfig&, int worker, int step, const State&);
struct ShardRead {
  bool ok = false;
  std::string why;                     // when not ok
  std::uint64_t checksum = 0;          // the trailer, when ok
  State state;
};
ShardRead decode_shard(const std::vector<unsigned char>& bytes, const JobConfig&, int worker, int step);

struct ShardRecord {
  int worker = 0;
  std::uint64_t bytes = 0;
  std::uint64_t checksum = 0;
};
// Writes worker's shard durably and returns what the manifest must say of it.
ShardRecord write_shard(const std::string& root, const JobConfig&, int worker, int step, const State&);

// Manifest text: one JSON line, then "checksum <16 hex digits>" of that line.
std::string encode_manifest(const JobConfig&, int step, const std::vector<ShardRecord>&);
struct Manifest {
  int step = 0;
  std::vector<ShardRecord> shards;
};
std::optional<Manifest> decode_manifest(const std::string& text, const JobConfig&, int step, std::string* why);
void write_manifest(const std::string& root, const JobConfig&, int step, const std::vector<ShardRecord>&);

struct CheckpointCheck {
  int step = 0;
  bool complete = false;
  std::string why;                     // what is wrong, when not complete
};
CheckpointCheck verify_checkpoint(const std::string& root, const JobConfig&, int step);

// The newest complete checkpoint (step 0: none, start from the beginning) and every newer
// one that was skipped, newest first, with the reason.
struct ResumeChoice {
  int step = 0;
  std::vector<CheckpointCheck> skipped;
};
ResumeChoice choose_resume(const std::string& root, const JobConfig&);

// The state of `worker` at the chosen step (the initial state for step 0). Throws if the
// shard went bad since it was verified.
State load_state(const std::string& root, const JobConfig&, int worker, int step);

}  // namespace ga::resume
