// The one way gpuaccept prints a quantity. The judge's reasons (suites/) and every writer
// (report.md, report.html, report.junit.xml) call it, so one report never prints one number
// two ways. Deterministic and locale-free (snprintf in the "C" locale): `gpuaccept judge DIR`
// reproduces the live run's report byte for byte.
//
// The rule:
//   numbers     three significant figures, trailing zeros dropped (451 GB/s, 3.1 TB/s, 1.25 ms);
//               integers from 100 up print whole (4194304, 1979 TFLOP/s); below 1e-4 and from
//               1e15 up in exponent form (2.5e-05); 0 is "0"; inf, -inf, nan.
//   B/s         decimal, as link and memory bandwidths are quoted: TB/s GB/s MB/s kB/s B/s
//   B           binary, as memory and buffer sizes are configured: TiB GiB MiB KiB B
//   s           s ms us ns (930 ns, not 0.93 us)
//   FLOP/s      TFLOP/s GFLOP/s FLOP/s
//   bool        yes / no
//   %           "12.5%"
//   count, text and no unit: the number alone; any other unit: "number unit".
// Each value takes the largest scale it reaches, the smallest when it reaches none (0 B/s).
// A value that is not finite keeps its unit as given ("nan B/s"): it has no scale.
#pragma once
#include <optional>
#include <string>

namespace ga::base {

std::string format_number(double v);
std::string format_quantity(double v, const std::string& unit);

// Factor that turns a value in `from` into `to` (Gb/s -> B/s: 1.25e8); nullopt when the two
// measure different things. Equal or empty units give 1.
std::optional<double> unit_factor(const std::string& from, const std::string& to);

}  // namespace ga::base
