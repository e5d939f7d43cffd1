// Typed quantities for values that cross module lines. Samples carry a unit string too,
// so the journal stays self-describing; these types keep the code honest before that.
#pragma once
#include <cstdint>

namespace ga {

struct Bytes { std::uint64_t v = 0; };
struct Seconds { double v = 0; };
struct BytesPerSecond { double v = 0; };

inline BytesPerSecond operator/(Bytes b, Seconds s) { return {s.v > 0 ? double(b.v) / s.v : 0.0}; }

// Unit strings used in samples, verdicts and criteria. One spelling each.
namespace unit {
inline constexpr const char* bytes = "B";
inline constexpr const char* seconds = "s";
inline constexpr const char* bytes_per_second = "B/s";
inline constexpr const char* count = "count";
inline constexpr const char* text = "text";
inline constexpr const char* boolean = "bool";
inline constexpr const char* flops = "FLOP/s";
inline constexpr const char* percent = "%";
}  // namespace unit

}  // namespace ga
