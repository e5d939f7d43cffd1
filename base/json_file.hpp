// A whole file read as one JSON document, its path in every error ("PATH: cannot be read",
// "PATH: not JSON (...)"): the manifest, a signature envelope, report.json read back.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace ga::base {

nlohmann::json read_json_file(const std::string& path);  // throws std::runtime_error
// `text` as one JSON document; "NAME: not JSON (...)" when it is not.
nlohmann::json parse_json_text(const std::string& text, const std::string& name);

// obj[key] as a whole number of the signed type Int; `fallback` when it is absent or null.
// Throws std::runtime_error naming the key when it is anything else or does not fit: nlohmann's
// get<int>() of 1e300 is a cast out of range, undefined behaviour (fuzz_journal found it in a
// sample's "rank"), and the files gpuaccept reads back are not always its own.
template <class Int>
Int integer_or(const nlohmann::json& obj, const char* key, Int fallback) {
  static_assert(std::numeric_limits<Int>::is_signed);
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  constexpr auto lo = std::numeric_limits<Int>::min();
  constexpr auto hi = std::numeric_limits<Int>::max();
  auto bad = [&] {
    std::string v = it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (v.size() > 40) v = v.substr(0, 40) + "...";
    return std::runtime_error(std::string("\"") + key + "\" is " + v + ", not a whole number from " + std::to_string(lo) +
                              " to " + std::to_string(hi));
  };
  if (it->is_number_unsigned()) {
    const auto u = it->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(hi)) throw bad();
    return static_cast<Int>(u);
  }
  if (it->is_number_integer()) {
    const auto v = it->get<std::int64_t>();
    if (v < static_cast<std::int64_t>(lo) || v > static_cast<std::int64_t>(hi)) throw bad();
    return static_cast<Int>(v);
  }
  if (it->is_number_float()) {
    // [lo, -lo): -lo is a power of two, exact as a double, where hi itself may round up.
    const double d = it->get<double>();
    if (!(d >= static_cast<double>(lo) && d < -static_cast<double>(lo)) || d != std::floor(d)) throw bad();
    return static_cast<Int>(d);
  }
  throw bad();
}

}  // namespace ga::base
