// The sdc probe's arithmetic and comparisons, apart from any GPU: the workload the kernel
// computes (probes/sdc/sdc_kernels.ptx), the host's reference of it, and how one GPU's
// repetitions are held against that reference, against each other and against the other GPUs.
// Pure functions, so the unit tests prove the judging without a device.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ga::sdc {

const char* sdc_kernels_ptx();  // generated from sdc_kernels.ptx (probes/CMakeLists.txt)

struct Workload {
  std::uint64_t elements = 0;  // 64-bit words in and out
  std::uint64_t rounds = 8;    // mix64 applications per element
  std::uint64_t seed = 1;
};

// in[i] = mix64(seed + i): fixed by the seed, the same on every GPU of the run.
std::vector<std::uint64_t> inputs(const Workload& w);
// What the kernel must give for one input: mix64 applied `rounds` times.
std::uint64_t expected_of(std::uint64_t in, std::uint64_t rounds);
// The whole reference, on `threads` host threads (elements x rounds mix64 steps).
std::vector<std::uint64_t> expected(const std::vector<std::uint64_t>& in, std::uint64_t rounds, unsigned threads);

// A repetition's output against the reference: the first element that differs, both values,
// and how many differ.
struct Difference {
  std::uint64_t element = 0, got = 0, want = 0, count = 0;
};
std::optional<Difference> compare(const std::vector<std::uint64_t>& got, const std::vector<std::uint64_t>& want);

// SHA-256 of the words as stored, in hex: what repetitions and GPUs are compared by.
std::string digest(const std::vector<std::uint64_t>& words);

// The value more than half of `of` have; nullopt when none has (a tie, or nothing).
std::optional<std::string> majority(const std::vector<std::string>& of);

// How many of `of` differ from the value most of them have (0 when all agree; with no single
// most common value, the count outside one of the most common).
int unlike_most(const std::vector<std::string>& of);

}  // namespace ga::sdc
