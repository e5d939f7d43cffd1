// The quantity formatter (quantity.hpp states its rule). It was two: the judge's (3 figures,
// yes/no, "50%", ns) and the writers' (4 figures, true/false, "50 %", no ns); the judge's rule
// is the one kept, since its reasons are what operators and the tests quote.
#include "base/quantity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "base/text.hpp"

namespace ga::base {

std::string format_number(double v) {
  if (v == 0) return "0";
  if (!std::isfinite(v)) return v > 0 ? "inf" : (v < 0 ? "-inf" : "nan");
  const double a = std::fabs(v);
  char buf[64];
  if (a >= 1e15 || a < 1e-4) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
  }
  // Integers print whole (8 GPUs, 4194304 bytes); fractions keep three significant digits.
  if (a >= 100 && std::fabs(v - std::round(v)) < 1e-9 * a) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  const int magnitude = static_cast<int>(std::floor(std::log10(a)));
  const int decimals = std::max(0, 2 - magnitude);
  return fixed_trimmed(v, decimals);
}

namespace {

struct Scale {
  double factor;
  const char* name;
};

// The largest scale the value reaches; the last (smallest) when it reaches none.
template <std::size_t N>
std::string scaled(double v, const Scale (&scales)[N]) {
  const double a = std::fabs(v);
  for (const auto& s : scales)
    if (a >= s.factor) return format_number(v / s.factor) + " " + s.name;
  return format_number(v / scales[N - 1].factor) + " " + scales[N - 1].name;
}

// Units that measure the same thing, with the factor to the first (base) one.
const std::vector<std::map<std::string, double>>& unit_families() {
  static const std::vector<std::map<std::string, double>> families = {
      {{"B/s", 1}, {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}, {"b/s", 0.125},
       {"Mb/s", 1.25e5}, {"Gb/s", 1.25e8}, {"Tb/s", 1.25e11}},
      {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}},
      {{"B", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
       {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}},
      {{"FLOP/s", 1}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}},
  };
  return families;
}

}  // namespace

std::string format_quantity(double v, const std::string& unit) {
  // Decimal, as link and memory bandwidths are quoted (anchors.md).
  static constexpr Scale kRate[] = {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}, {1, "B/s"}};
  // Binary, as memory and buffer sizes are configured.
  static constexpr Scale kBytes[] = {{1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"},
                                     {1024.0, "KiB"}, {1, "B"}};
  static constexpr Scale kTime[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
  static constexpr Scale kFlops[] = {{1e12, "TFLOP/s"}, {1e9, "GFLOP/s"}, {1, "FLOP/s"}};
  if (unit == "bool") return v != 0 ? "yes" : "no";
  if (unit.empty() || unit == "count" || unit == "text") return format_number(v);
  if (unit == "%") return format_number(v) + "%";
  if (!std::isfinite(v)) return format_number(v) + " " + unit;
  if (unit == "B/s") return scaled(v, kRate);
  if (unit == "B") return scaled(v, kBytes);
  if (unit == "s") return scaled(v, kTime);
  if (unit == "FLOP/s") return scaled(v, kFlops);
  return format_number(v) + " " + unit;
}

std::optional<double> unit_factor(const std::string& from, const std::string& to) {
  if (from == to || from.empty() || to.empty()) return 1.0;
  for (const auto& fam : unit_families()) {
    auto f = fam.find(from), t = fam.find(to);
    if (f != fam.end() && t != fam.end()) return f->second / t->second;
  }
  return std::nullopt;
}

}  // namespace ga::base
