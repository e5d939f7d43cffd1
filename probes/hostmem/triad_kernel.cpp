#include "probes/hostmem/triad_kernel.hpp"

#include <barrier>
#include <chrono>
#include <thread>

namespace ga::hostmem {

TriadResult run_triad(double* a, double* b, double* c, const TriadConfig& cfg) {
  TriadResult res;
  res.bytes_per_iteration = 3.0 * static_cast<double>(cfg.n) * sizeof(double);
  const int T = cfg.threads < 1 ? 1 : cfg.threads;
  std::barrier sync(T);
  std::vector<std::size_t> wrong(static_cast<std::size_t>(T), 0);
  using Clock = std::chrono::steady_clock;
  const auto budget_end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(cfg.max_seconds));
  // Thread 0 decides whether to go on, the others follow: one flag per iteration, written
  // before the barrier that publishes it.
  std::vector<char> go(static_cast<std::size_t>(cfg.iterations) + 1, 0);

  auto work = [&](int t) {
    if (cfg.bind) cfg.bind(t);
    const std::size_t lo = cfg.n * static_cast<std::size_t>(t) / static_cast<std::size_t>(T);
    const std::size_t hi = cfg.n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(T);
    for (std::size_t i = lo; i < hi; ++i) {
      a[i] = 0.0;
      b[i] = 1.0 + static_cast<double>(i % 7);
      c[i] = 2.0 + static_cast<double>(i % 5);
    }
    for (int it = 0; it < cfg.iterations; ++it) {
      if (t == 0) go[static_cast<std::size_t>(it)] = (it == 0 || Clock::now() < budget_end) ? 1 : 0;
      sync.arrive_and_wait();
      if (!go[static_cast<std::size_t>(it)]) break;
      const auto t0 = Clock::now();
      double* __restrict__ pa = a;
      const double* __restrict__ pb = b;
      const double* __restrict__ pc = c;
      for (std::size_t i = lo; i < hi; ++i) pa[i] = pb[i] + kScalar * pc[i];
      sync.arrive_and_wait();
      if (t == 0) res.seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    // Values are small integers, so the check is exact.
    for (std::size_t i = lo; i < hi; ++i)
      if (a[i] != b[i] + kScalar * c[i]) ++wrong[static_cast<std::size_t>(t)];
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < T; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (auto w : wrong) res.wrong += w;
  return res;
}

}  // namespace ga::hostmem
