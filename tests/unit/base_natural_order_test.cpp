// natural_less skips the common prefix of its two strings before comparing (the judge sorts
// millions of places that share "node0123/gpu:"); these tests hold it to the plain definition:
// walk both strings from the first byte, digit runs compared as numbers, ties on the bytes.
#include <random>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "base/natural_order.hpp"

namespace ga {
namespace {

bool reference_less(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      auto x = a.substr(i, ie - i), y = b.substr(j, je - j);
      while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
      while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ie, j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i, ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;
}

TEST(NaturalOrder, NumbersCompareAsNumbers) {
  EXPECT_TRUE(natural_less("node2", "node10"));
  EXPECT_FALSE(natural_less("node10", "node2"));
  EXPECT_TRUE(natural_less("node0009/gpu:3", "node0009/gpu:10"));
  // A digit run that starts inside the common prefix: "node1" is common to both, but 19 > 1.
  EXPECT_TRUE(natural_less("node1/gpu:0", "node19/gpu:0"));
  EXPECT_TRUE(natural_less("node19", "node100"));
  EXPECT_FALSE(natural_less("node100", "node19"));
  // Leading zeros: equal as numbers, then the bytes decide, so the order stays total.
  EXPECT_TRUE(natural_less("x01", "x1"));
  EXPECT_FALSE(natural_less("x1", "x01"));
  EXPECT_FALSE(natural_less("same", "same"));
  EXPECT_TRUE(natural_less("node", "node0"));
}

TEST(NaturalOrder, AgreesWithTheDefinitionOnRandomStrings) {
  // Strings built to share prefixes and to have digit runs cross the point where they part.
  std::mt19937 rng(11);
  const char alphabet[] = "00191a/:~";
  long disagreements = 0;
  for (int t = 0; t < 200000; ++t) {
    std::string a, b;
    const int la = static_cast<int>(rng() % 8), lb = static_cast<int>(rng() % 8);
    for (int i = 0; i < la; ++i) a += alphabet[rng() % 9];
    b = a.substr(0, rng() % (a.size() + 1));
    for (int i = 0; i < lb; ++i) b += alphabet[rng() % 9];
    if (rng() % 2) std::swap(a, b);
    if (natural_less(a, b) != reference_less(a, b)) {
      if (++disagreements <= 5) ADD_FAILURE() << '"' << a << "\" vs \"" << b << '"';
    }
  }
  EXPECT_EQ(disagreements, 0);
}

}  // namespace
}  // namespace ga
