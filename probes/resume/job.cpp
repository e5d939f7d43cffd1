#include "probes/resume/job.hpp"

#include <stdexcept>

#include "base/checksum.hpp"

namespace ga::resume {

using base::mix64;

void validate(const JobConfig& c) {
  auto bad = [](const std::string& what) { throw std::invalid_argument("resume job: " + what); };
  if (c.workers < 1) bad("workers must be >= 1, not " + std::to_string(c.workers));
  if (c.steps < 2) bad("steps must be >= 2, not " + std::to_string(c.steps));
  if (c.every < 1) bad("every must be >= 1, not " + std::to_string(c.every));
  if (c.state_words < 1 || c.state_words > (1ull << 27)) bad("state_words must be 1..2^27, not " + std::to_string(c.state_words));
  if (c.contrib_words < 1 || c.contrib_words > c.state_words)
    bad("contrib_words must be 1..state_words, not " + std::to_string(c.contrib_words));
}

State initial_state(const JobConfig& c, int worker) {
  State s(c.state_words);
  const std::uint64_t base = mix64(c.seed ^ (static_cast<std::uint64_t>(worker) << 32));
  for (std::uint64_t i = 0; i < c.state_words; ++i) s[i] = mix64(base + i);
  return s;
}

std::uint64_t contribute_salt(int step, int worker) {
  return mix64(static_cast<std::uint64_t>(step) * 0x100000001b3ULL + static_cast<std::uint64_t>(worker));
}
std::uint64_t apply_key(int step, int worker) {
  return static_cast<std::uint64_t>(step) * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(worker);
}

Contribution contribute(const JobConfig& c, const State& s, int worker, int step) {
  Contribution out;
  out.words.assign(c.contrib_words, 0);
  const std::uint64_t salt = contribute_salt(step, worker);
  double acc = 0;
  for (std::uint64_t i = 0; i < c.state_words; ++i) {
    out.words[i % c.contrib_words] += mix64(s[i] ^ salt);
    acc += static_cast<double>(s[i] >> 11) * 0x1.0p-53;  // in [0, 1), summed in index order
  }
  out.local_loss = acc / static_cast<double>(c.state_words);
  return out;
}

Reduced reduce(const std::vector<Contribution>& by_worker) {
  Reduced r;
  if (by_worker.empty()) return r;
  r.sum.assign(by_worker.front().words.size(), 0);
  double loss = 0;
  for (const auto& w : by_worker) {
    if (w.words.size() != r.sum.size()) throw std::invalid_argument("reduce: contributions of different lengths");
    for (std::size_t j = 0; j < r.sum.size(); ++j) r.sum[j] += w.words[j];
    loss += w.local_loss;
  }
  r.loss = loss / static_cast<double>(by_worker.size());
  return r;
}

void apply(const JobConfig& c, State& s, int worker, int step, const Reduced& r) {
  const std::uint64_t k = apply_key(step, worker);
  for (std::uint64_t i = 0; i < c.state_words; ++i) s[i] = mix64(s[i] ^ r.sum[i % c.contrib_words]) + k;
}

void run_in_memory(const JobConfig& c, std::vector<State>& states, int from, int to, std::vector<double>* losses) {
  for (int step = from + 1; step <= to; ++step) {
    std::vector<Contribution> parts;
    for (int w = 0; w < c.workers; ++w) parts.push_back(contribute(c, states[static_cast<std::size_t>(w)], w, step));
    const Reduced r = reduce(parts);
    if (losses) losses->push_back(r.loss);
    for (int w = 0; w < c.workers; ++w) apply(c, states[static_cast<std::size_t>(w)], w, step, r);
  }
}

}  // namespace ga::resume
