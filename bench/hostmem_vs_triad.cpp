// hostmem against a plain -O3 triad, in one run on this machine: the probe's kernel with its
// hwloc binding and bound allocations, and a bare loop over new[] arrays with the same
// thread count, array size and byte accounting. Prints a table; the target is the probe
// within 10% of the bare loop (docs/performance.md#hostmem-against-a-plain-triad-loop).
//   usage: hostmem_vs_triad [array_mib=64] [rounds=7]
#include <hwloc.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "probes/hostmem/triad_kernel.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The plain loop: what a person would write. Threads start once and split the index range;
// a barrier separates iterations. No binding, no hwloc, arrays from new[] touched by the
// thread that uses them. (Starting fresh threads for every iteration made this baseline
// 30-45% slower here: new threads begin on their parent's core.)
double plain_triad_bw(std::size_t n, int threads, int iterations) {
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
  std::barrier sync(threads);
  std::vector<double> secs;
  auto work = [&](int t) {
    const std::size_t lo = n * t / threads, hi = n * (t + 1) / threads;
    for (std::size_t i = lo; i < hi; ++i) a[i] = 0, b[i] = 1.0 + double(i % 7), c[i] = 2.0 + double(i % 5);
    for (int it = 0; it < iterations; ++it) {
      sync.arrive_and_wait();
      const auto t0 = std::chrono::steady_clock::now();
      for (std::size_t i = lo; i < hi; ++i) a[i] = b[i] + 3.0 * c[i];
      sync.arrive_and_wait();
      if (t == 0) secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  return 3.0 * double(n) * sizeof(double) / median(secs);
}

// The probe's path: hwloc-bound memory on NUMA node 0, threads spread over its cores.
double probe_triad_bw(hwloc_topology_t topo, std::size_t n, int threads, int iterations) {
  hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0);
  const std::size_t bytes = n * sizeof(double);
  auto alloc = [&] {
    void* p = hwloc_alloc_membind(topo, bytes, node->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET);
    return static_cast<double*>(p ? p : hwloc_alloc(topo, bytes));
  };
  double *a = alloc(), *b = alloc(), *c = alloc();
  std::vector<hwloc_cpuset_t> sets(static_cast<std::size_t>(threads));
  hwloc_distrib(topo, &node, 1, sets.data(), static_cast<unsigned>(threads), INT_MAX, 0);
  ga::hostmem::TriadConfig cfg;
  cfg.n = n;
  cfg.threads = threads;
  cfg.iterations = iterations;
  cfg.bind = [&](int t) { hwloc_set_cpubind(topo, sets[static_cast<std::size_t>(t)], HWLOC_CPUBIND_THREAD); };
  auto res = ga::hostmem::run_triad(a, b, c, cfg);
  for (auto s : sets) hwloc_bitmap_free(s);
  hwloc_free(topo, a, bytes);
  hwloc_free(topo, b, bytes);
  hwloc_free(topo, c, bytes);
  if (res.wrong) std::fprintf(stderr, "data check: %zu wrong elements\n", res.wrong);
  return res.bytes_per_iteration / median(res.seconds);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  const std::size_t n = mib * 1024 * 1024 / sizeof(double);
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0);
  const int threads = std::max(1, hwloc_get_nbobjs_inside_cpuset_by_type(topo, node->cpuset, HWLOC_OBJ_CORE));
  // Alternate the two, round by round, so drift of this shared machine hits both alike.
  std::vector<double> plain, probe, ratio;
  for (int r = 0; r < rounds; ++r) {
    probe.push_back(probe_triad_bw(topo, n, threads, 5));
    plain.push_back(plain_triad_bw(n, threads, 5));
    ratio.push_back(probe.back() / plain.back());
  }
  hwloc_topology_destroy(topo);
  std::printf("triad, %zu MiB per array, %d threads, NUMA node 0, %d rounds of 5 iterations (median)\n", mib, threads, rounds);
  std::printf("%-34s %10s\n", "", "GB/s");
  std::printf("%-34s %10.2f\n", "plain -O3 loop (std::thread, no binding)", median(plain) / 1e9);
  std::printf("%-34s %10.2f\n", "hostmem probe kernel (hwloc bound)", median(probe) / 1e9);
  std::printf("%-34s %10.3f   (min %.3f, max %.3f)\n", "ratio probe / plain, per round", median(ratio),
              *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()));
  return 0;
}
