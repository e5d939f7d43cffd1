// base::format_quantity, the one formatter of the judge's reasons and of every writer: its rule
// (base/quantity.hpp) at each unit, boundary and odd value; unit_factor's families.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "base/quantity.hpp"

namespace ga::base {
namespace {

TEST(BaseQuantity, ThreeSignificantFiguresIntegersWhole) {
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(8), "8");
  EXPECT_EQ(format_number(4194304), "4194304");
  EXPECT_EQ(format_number(451.23), "451");
  EXPECT_EQ(format_number(45.123), "45.1");
  EXPECT_EQ(format_number(2.5), "2.5");
  EXPECT_EQ(format_number(0.125), "0.125");
  EXPECT_EQ(format_number(-9.75), "-9.75");
  EXPECT_EQ(format_number(2.5e-5), "2.5e-05");
  EXPECT_EQ(format_number(2e15), "2e+15");
}

TEST(BaseQuantity, ScalesPerUnit) {
  EXPECT_EQ(format_quantity(4.5123e11, "B/s"), "451 GB/s");
  EXPECT_EQ(format_quantity(3.1e12, "B/s"), "3.1 TB/s");
  EXPECT_EQ(format_quantity(0, "B/s"), "0 B/s");
  EXPECT_EQ(format_quantity(-5e10, "B/s"), "-50 GB/s");
  EXPECT_EQ(format_quantity(85899345920.0, "B"), "80 GiB");
  EXPECT_EQ(format_quantity(1536, "B"), "1.5 KiB");
  EXPECT_EQ(format_quantity(2, "s"), "2 s");
  EXPECT_EQ(format_quantity(1.25e-3, "s"), "1.25 ms");
  EXPECT_EQ(format_quantity(2.01e-6, "s"), "2.01 us");
  EXPECT_EQ(format_quantity(9.3e-7, "s"), "930 ns");
  EXPECT_EQ(format_quantity(9.89e14, "FLOP/s"), "989 TFLOP/s");
  EXPECT_EQ(format_quantity(5e10, "FLOP/s"), "50 GFLOP/s");
  EXPECT_EQ(format_quantity(400, "Gb/s"), "400 Gb/s");
}

TEST(BaseQuantity, BooleansPercentCountsAndText) {
  EXPECT_EQ(format_quantity(1, "bool"), "yes");
  EXPECT_EQ(format_quantity(0, "bool"), "no");
  EXPECT_EQ(format_quantity(12.5, "%"), "12.5%");
  EXPECT_EQ(format_quantity(8, "count"), "8");
  EXPECT_EQ(format_quantity(3, "text"), "3");
  EXPECT_EQ(format_quantity(3, ""), "3");
}

TEST(BaseQuantity, NotFiniteKeepsTheUnitAsGiven) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(format_quantity(std::nan(""), "B/s"), "nan B/s");
  EXPECT_EQ(format_quantity(inf, "B/s"), "inf B/s");
  EXPECT_EQ(format_quantity(-inf, "s"), "-inf s");
}

TEST(BaseQuantity, UnitFactorWithinAFamilyOnly) {
  EXPECT_EQ(unit_factor("Gb/s", "B/s"), 1.25e8);
  EXPECT_EQ(unit_factor("us", "s"), 1e-6);
  EXPECT_EQ(unit_factor("GiB", "B"), 1073741824.0);
  EXPECT_EQ(unit_factor("B/s", "B/s"), 1.0);
  EXPECT_EQ(unit_factor("", "s"), 1.0);
  EXPECT_FALSE(unit_factor("s", "B").has_value());
}

}  // namespace
}  // namespace ga::base
