// The gpuaccept rank's half of the resume job: it relays its worker's frame to every other
// rank (one fixed-size allgather per step) and hands the worker all frames in worker order.
// It also kills its worker at the chosen step, and stops the job everywhere when any worker
// is gone, as a launcher stops a training job when one of its processes dies.
#pragma once
#include <string>
#include <vector>

#include "probes/comm.hpp"
#include "probes/resume/job.hpp"
#include "probes/resume/worker_process.hpp"

namespace ga::resume {

enum class RelayEnd { finished, killed_here, stopped, failed };
const char* to_string(RelayEnd);

struct RelayResult {
  RelayEnd end = RelayEnd::failed;
  std::string why;                     // for failed and stopped
  int wait_status = -1;                // waitpid's status of this rank's worker
  int step = 0;                        // the step the worker was in when the run ended
  int start_step = 0;                  // where this worker began (its resume point)
  double wall_s = 0;
};

// Collective over comm: every rank relays for its own worker. kill_at_step > 0 kills this
// rank's worker with SIGKILL once it has sent that step's contribution (mid-step). w is null
// when this rank's worker could not be started (not_started says why): the rank still takes
// part, so the others learn that the job cannot run.
// frame_contrib: the contribution words in each frame (engine.hpp: frame_contrib_words).
RelayResult relay(Comm& comm, WorkerProcess* w, const JobConfig& c, std::uint64_t frame_contrib, int kill_at_step, double frame_timeout_s,
                  const std::string& not_started = "");

// A bijective shift of workers over ranks for the restart: worker w is played by rank
// (w + shift) mod N. The smallest shift that puts every worker on another host; when none
// does (one host, or hosts with uneven rank counts), the smallest that moves every worker to
// another process (1), and all_hosts_changed is false.
struct Shift {
  int shift = 0;
  bool all_hosts_changed = false;
};
Shift shift_for_restart(const std::vector<std::string>& rank_hosts);

}  // namespace ga::resume
