// base::prefault is a hint: memory reads and writes the same with or without it, at any
// alignment, and nothing past the range it is given is touched.
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
