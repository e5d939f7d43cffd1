// base::prefault is a hint: memory reads and writes the same with or without it, at any
// alignment, and nothing past the range it is given is touched.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "base/prefault.hpp"

namespace ga {
namespace {

TEST(Prefault, ContentsUnchangedAtAnyAlignment) {
  std::vector<std::uint8_t> v(3 << 20);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(i * 7);
  base::prefault(v.data() + 13, v.size() - 29);  // unaligned at both ends
  base::prefault(v.data(), 5);                    // smaller than a page: nothing to do
  base::prefault(v.data(), 0);
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], static_cast<std::uint8_t>(i * 7)) << i;
}

// A range large enough to be split between two threads: both halves present afterwards, no
// page outside the range made present, and the contents as they were.
TEST(Prefault, ALargeRangeInTwoHalvesExactlyThatRange) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t pages = (96u << 20) / page;  // over the 64 MiB where it splits
  void* map = ::mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* bytes = static_cast<std::uint8_t*>(map);
  bytes[3 * page + 1] = 42;  // one page already present, with something in it
  // Pages [10, pages - 10) asked for; the ten at either end must stay absent.
  base::prefault(bytes + 10 * page, (pages - 20) * page);
  std::vector<unsigned char> resident(pages);
  ASSERT_EQ(::mincore(map, pages * page, resident.data()), 0);
  std::size_t present_in = 0, present_out = 0;
  for (std::size_t i = 0; i < pages; ++i) ((i >= 10 && i < pages - 10) ? present_in : present_out) += resident[i] & 1;
  ::munmap(map, pages * page);  // after the counts; the checks below read only the counts
  // Kernels before 5.14 have no MADV_POPULATE_WRITE and prefault does nothing there.
  if (present_in == 0) GTEST_SKIP() << "this kernel does not populate on request";
  EXPECT_EQ(present_in, pages - 20);
  EXPECT_EQ(present_out, 1u);  // the page written before
}

TEST(Prefault, TailOfAReservedVectorThenAppended) {
  std::vector<double> v;
  v.reserve(1 << 20);
  base::prefault_tail(v, 1 << 20);
  base::prefault_tail(v, (1 << 20) + 1);  // past the capacity: ignored
  for (int i = 0; i < (1 << 20); ++i) v.push_back(i * 0.5);
  EXPECT_EQ(v.capacity(), std::size_t{1} << 20);
  EXPECT_EQ(v.back(), ((1 << 20) - 1) * 0.5);
}

}  // namespace
}  // namespace ga
