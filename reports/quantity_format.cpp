// Human units for the markdown report. The numbers are the judge's; only their scale and
// spelling change here, so a reader sees "451.2 GB/s" where the journal holds 4.512e11 B/s.
#include <cmath>
#include <cstdio>
#include <string>

#include "reports/report.hpp"
#include "topology/text.hpp"

namespace ga {
namespace {

// Four significant figures at most, trailing zeros dropped: enough to compare against a
// bound, short enough for a table cell.
std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  double a = std::fabs(v);
  if (a == std::trunc(a) && a < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  int decimals = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4;
  if (a < 0.001) {
    std::snprintf(buf, sizeof buf, "%.3g", v);  // tiny values keep their figures
    return buf;
  }
  return topo::fixed_trimmed(v, decimals);
}

struct Scale {
  double factor;
  const char* name;
};

// Picks the largest scale the value reaches; the last entry is the fallback.
template <std::size_t N>
std::string scaled(double v, const Scale (&scales)[N]) {
  double a = std::fabs(v);
  for (const auto& s : scales)
    if (a >= s.factor) return number(v / s.factor) + " " + s.name;
  const auto& last = scales[N - 1];
  return number(v / last.factor) + " " + last.name;
}

}  // namespace

std::string format_quantity(double v, const std::string& unit) {
  if (!std::isfinite(v)) return number(v) + (unit.empty() ? "" : " " + unit);
  // Bandwidth in decimal units as NVIDIA, nccl-tests and perftest quote it (GB/s = 1e9 B/s).
  static constexpr Scale kRate[] = {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}, {1, "B/s"}};
  // Sizes of memory in binary units, as free(1) and nvidia-smi print them.
  static constexpr Scale kBytes[] = {{1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"},
                                     {1024.0, "KiB"}, {1, "B"}};
  // Latency stops at microseconds, as perftest and OSU print it: "0.93 us", not "930 ns".
  static constexpr Scale kTime[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}};
  static constexpr Scale kFlops[] = {{1e15, "PFLOP/s"}, {1e12, "TFLOP/s"}, {1e9, "GFLOP/s"}, {1e6, "MFLOP/s"},
                                     {1, "FLOP/s"}};
  if (unit == "B/s") return v == 0 ? "0 B/s" : scaled(v, kRate);
  if (unit == "B") return v == 0 ? "0 B" : scaled(v, kBytes);
  if (unit == "s") return v == 0 ? "0 s" : scaled(v, kTime);
  if (unit == "FLOP/s") return v == 0 ? "0 FLOP/s" : scaled(v, kFlops);
  if (unit == "bool") return v != 0 ? "true" : "false";
  if (unit == "%") return number(v) + " %";
  if (unit.empty() || unit == "count") return number(v);
  return number(v) + " " + unit;
}

}  // namespace ga
