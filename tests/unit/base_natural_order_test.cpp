// natural_less skips the common prefix of its two strings before comparing (the judge sorts
// millions of places that share "node0123/gpu:"); these tests hold it to the definition, written
// independently below: digit runs compared as numbers, other characters as they are, ties on
// the bytes.
#include <cctype>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "base/natural_order.hpp"

namespace ga {
namespace {

// The definition, written another way: each string as a list of tokens (a digit run, or one
// other character), compared token by token; digit runs as numbers (leading zeros aside),
// anything else by its first character; a list that runs out first is less; equal lists fall
// back to the bytes.
struct Token {
  bool number = false;
  std::string text;  // a digit run without its leading zeros ("0" stays), or one character
  char first = 0;    // the token's first character as written
};

std::vector<Token> tokens(std::string_view s) {
  std::vector<Token> out;
  for (std::size_t i = 0; i < s.size();) {
    Token t;
    t.first = s[i];
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      std::size_t e = i;
      while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
      std::string_view run = s.substr(i, e - i);
      while (run.size() > 1 && run.front() == '0') run.remove_prefix(1);
      t.number = true;
      t.text = std::string(run);
      i = e;
    } else {
      t.text = std::string(1, s[i++]);
    }
    out.push_back(std::move(t));
  }
  return out;
}

bool reference_less(std::string_view a, std::string_view b) {
  const auto x = tokens(a), y = tokens(b);
  for (std::size_t k = 0; k < x.size() && k < y.size(); ++k) {
    if (x[k].number && y[k].number) {
      if (x[k].text.size() != y[k].text.size()) return x[k].text.size() < y[k].text.size();
      if (x[k].text != y[k].text) return x[k].text < y[k].text;
    } else if (x[k].first != y[k].first) {
      return x[k].first < y[k].first;
    }
  }
  if (x.size() != y.size()) return x.size() < y.size();
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
