// base::OptionalText: std::optional<std::string>'s behaviour where the project uses it, in 8 bytes.
#include <optional>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "base/optional_text.hpp"

namespace ga::base {
namespace {

TEST(OptionalText, EightBytesEmptyByDefaultAndFromNullopt) {
  static_assert(sizeof(OptionalText) == sizeof(void*));
  OptionalText a, b = std::nullopt;
  EXPECT_FALSE(a);
  EXPECT_FALSE(b.has_value());
  EXPECT_EQ(a, std::nullopt);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.value_or("none"), "none");
  EXPECT_THROW((void)a.value(), std::bad_optional_access);
}

TEST(OptionalText, ACopyIsATextOfItsOwn) {
  OptionalText a = std::string("H100");
  OptionalText b = a;
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, "H100");
  *b += " SXM";
  EXPECT_EQ(*a, "H100");  // value semantics: changing the copy leaves the original
  EXPECT_NE(a, b);
  b = a;
  EXPECT_EQ(a, b);
  OptionalText c;
  c = a;  // into an empty one
  EXPECT_EQ(c, "H100");
  c = OptionalText();  // and empty again
  EXPECT_FALSE(c);
  a = a;  // self-assignment keeps it
  EXPECT_EQ(a, "H100");
}

TEST(OptionalText, MovesLeaveTheSourceEmpty) {
  OptionalText a = "text";
  OptionalText b = std::move(a);
  EXPECT_EQ(b, "text");
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): what a move leaves is what is tested
}

TEST(OptionalText, AssignedFromStringsAndOptionals) {
  OptionalText a;
  a = "first";
  EXPECT_EQ(a.value(), "first");
  a = std::string("second");
  EXPECT_EQ(a->size(), 6u);
  a = std::nullopt;
  EXPECT_FALSE(a);
  std::optional<std::string> o = "from optional";
  a = o;
  EXPECT_EQ(a, o);
  const std::optional<std::string> none;
  a = none;
  EXPECT_FALSE(a);
  EXPECT_EQ(a, none);  // both empty
  a.emplace(3, 'x');
  EXPECT_EQ(a, std::string("xxx"));
  const std::optional<std::string> back = a;
  EXPECT_EQ(back, std::optional<std::string>("xxx"));
  a.reset();
  EXPECT_EQ(static_cast<std::optional<std::string>>(a), std::nullopt);
}

TEST(OptionalText, ComparesAsOptionalDoes) {
  const OptionalText empty, x = "x", y = "y";
  EXPECT_EQ(x, OptionalText("x"));
  EXPECT_NE(x, y);
  EXPECT_NE(empty, x);
  EXPECT_NE(x, std::nullopt);
  EXPECT_EQ(x, std::string_view("x"));
  EXPECT_NE(empty, "");  // empty is not the empty text
  EXPECT_EQ(OptionalText(""), "");
  EXPECT_NE(x, std::optional<std::string>());
  EXPECT_EQ("x", x);  // either side
}

}  // namespace
}  // namespace ga::base
