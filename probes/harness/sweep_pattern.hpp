// The data every sweep backend writes and expects, so a data check means the same thing for
// MPI and NCCL. Inputs are small integers (|v| <= 30): float sums of them are exact for up to
// 2^19 ranks, so "wrong" needs no tolerance and one flipped element is always seen.
#pragma once
#include <cstddef>
#include <cstdint>

#include "probes/harness/sweep.hpp"

namespace ga::sweep {

// Element i of rank r's input (i indexes the whole send buffer).
inline float input_value(int rank, std::size_t i) {
  return static_cast<float>(static_cast<int>((static_cast<std::uint64_t>(rank) * 7 + i * 13) % 61) - 30);
}

// A value no correct output can hold (inputs and their sums are integers).
inline constexpr float poison_value = 0.5f;

// Whether this rank has output to check for the line (reduce: only the root).
inline bool has_output(const Line& l) { return l.coll != Collective::reduce || l.rank == l.root; }

// Element i (0 <= i < counts.recv) of this rank's output, for op = sum. For in-place
// reduce_scatter the output is the rank's own block of the buffer (counts.recv elements).
inline float expected_value(const Line& l, std::size_t i) {
  const std::size_t per = l.counts.recv;
  const int n = l.nranks;
  auto sum_over_ranks = [n](std::size_t idx) {
    float s = 0;
    for (int r = 0; r < n; ++r) s += input_value(r, idx);
    return s;
  };
  switch (l.coll) {
    case Collective::all_reduce:
    case Collective::reduce: return sum_over_ranks(i);
    case Collective::broadcast: return input_value(l.root, i);
    case Collective::reduce_scatter: return sum_over_ranks(static_cast<std::size_t>(l.rank) * per + i);
    case Collective::all_gather: {
      const std::size_t block = l.counts.send;  // each rank's contribution
      return input_value(static_cast<int>(i / block), i % block);
    }
    case Collective::alltoall: {
      const std::size_t block = l.counts.recv / static_cast<std::size_t>(n);  // from each peer
      const int from = static_cast<int>(i / block);
      return input_value(from, static_cast<std::size_t>(l.rank) * block + i % block);
    }
    case Collective::sendrecv: return input_value((l.rank - 1 + n) % n, i);  // ring: from the left
  }
  return poison_value;
}

}  // namespace ga::sweep
