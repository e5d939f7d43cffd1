// The deterministic training-like job that the resume probe interrupts and resumes.
// Everything here is a pure function of (config, state, step), so a resumed run that is
// bit-identical to an uninterrupted one proves the resume and cannot be luck:
//   - the state of each worker is integers (uint64 words), updated with wrapping arithmetic;
//   - the reduction of the workers' contributions sums integers (order-free), and the loss,
//     a double, is summed over workers in worker order (a fixed order), so a resume that
//     handed a worker the wrong state, or reordered the workers, changes its bits.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ga::resume {

struct JobConfig {
  int workers = 1;
  int steps = 300;                     // steps 1..steps
  int every = 50;                      // checkpoint after steps every, 2*every, ... (< steps)
  std::uint64_t state_words = 4096;    // per worker (a checkpoint shard is 8x this many bytes)
  std::uint64_t contrib_words = 64;    // what each worker contributes to the reduction per step
  std::uint64_t seed = 0x5eed;
};
// Throws std::invalid_argument naming the bad field.
void validate(const JobConfig&);

using State = std::vector<std::uint64_t>;

State initial_state(const JobConfig&, int worker);

struct Contribution {
  std::vector<std::uint64_t> words;    // contrib_words
  double local_loss = 0;
};
// The per-step constants of contribute() and apply(); the GPU kernels get them as parameters,
// so host and GPU runs share one definition of the job.
std::uint64_t contribute_salt(int step, int worker);
std::uint64_t apply_key(int step, int worker);

// What `worker` contributes at `step`, from its state after step-1.
Contribution contribute(const JobConfig&, const State&, int worker, int step);

struct Reduced {
  std::vector<std::uint64_t> sum;
  double loss = 0;
};
// by_worker[w] is worker w's contribution; summed in worker order.
Reduced reduce(const std::vector<Contribution>& by_worker);

// The update of `step`: every word of the state absorbs the reduction.
void apply(const JobConfig&, State&, int worker, int step, const Reduced&);

// The whole job in one process, for tests and as the reference: steps from+1..to from the
// given states; the loss of each step is appended to `losses`.
void run_in_memory(const JobConfig&, std::vector<State>& states, int from, int to, std::vector<double>* losses);

}  // namespace ga::resume
