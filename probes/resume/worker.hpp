// `gpuaccept resume-worker ...`: one worker of the resume job. It is deliberately not an MPI
// process: killing it with SIGKILL must not end the gpuaccept job (Open MPI ends a whole job
// when any of its processes dies). It talks only to the gpuaccept rank that started it, over
// the socket given as --fd, and to the shared directory. See docs/resume.md.
#pragma once
#include <string>
#include <vector>

#include "probes/resume/job.hpp"

namespace ga::resume {

inline constexpr const char* kWorkerCommand = "resume-worker";

struct WorkerArgs {
  JobConfig job;
  int worker = 0;
  std::string ckpt_root;               // checkpoints (shared by every attempt of one job)
  std::string out_dir;                 // losses-ATTEMPT.bin, final/, choice-ATTEMPT-worker-W.json
  std::string attempt = "run";
  bool resume = false;                 // start from the newest complete checkpoint
  int fd = 3;
  // State in GPU memory, summed with NCCL (engine.hpp); the GPU is slot mod the device count.
  bool gpu = false;
  int gpu_slot = 0;
  std::string cuda_library, nccl_library;  // named libraries; empty: the defaults
};
std::vector<std::string> worker_argv(const WorkerArgs&);   // without the program and command
WorkerArgs parse_worker_args(const std::vector<std::string>& args);  // throws naming the bad one

// Exit codes of a worker.
inline constexpr int kWorkerDone = 0, kWorkerBadArgs = 2, kWorkerStopped = 3, kWorkerError = 4;
int run_worker(const WorkerArgs&);

// Entry from main(): argv[0] is the command name ("resume-worker").
int resume_worker_main(int argc, char** argv);

std::string losses_path(const std::string& out_dir, const std::string& attempt);
std::string final_path(const std::string& out_dir, int worker);
std::string choice_path(const std::string& out_dir, const std::string& attempt, int worker);

}  // namespace ga::resume
