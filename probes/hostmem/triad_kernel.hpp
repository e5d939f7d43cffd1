// The STREAM triad a[i] = b[i] + s*c[i], threaded. Shared by the hostmem probe and by the
// benchmark that holds it against a plain loop, so both time the same thing.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

namespace ga::hostmem {

inline constexpr double kScalar = 3.0;

struct TriadConfig {
  std::size_t n = 0;                   // elements per array
  int threads = 1;
  int iterations = 5;
  double max_seconds = 1e9;            // stop early (keeping >= 1 iteration) past this budget
  std::function<void(int thread)> bind;  // called on each thread before it touches memory
};

struct TriadResult {
  std::vector<double> seconds;         // one per iteration
  std::size_t wrong = 0;               // elements of a[] that do not hold b + s*c afterwards
  double bytes_per_iteration = 0;      // 3 arrays x n x 8 B (STREAM convention: no write-allocate)
};

// Arrays must be at least n doubles each. Each thread first-touches its own chunk, so with
// `bind` placing threads on a NUMA node the pages land where memory binding put them.
TriadResult run_triad(double* a, double* b, double* c, const TriadConfig& cfg);

}  // namespace ga::hostmem
