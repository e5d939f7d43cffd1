// Small text helpers shared by the parsers (nvidia-smi's topology matrix, nccl-tests logs, the
// topology loaders' error lines) and the formatter (base/quantity.hpp: the judge's reasons, the
// report's tables). Locale-free, so that a re-judged run reproduces its report byte for byte.
#pragma once
#include <cstddef>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace ga::base {

// Whitespace-separated words of a line.
inline std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

// v with `decimals` digits after the point, trailing zeros (and a bare point) dropped:
// 2.500 -> "2.5", 3.000 -> "3".
inline std::string fixed_trimmed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// 1-based line of byte `offset` in `content`, for error messages ("file.xml:12: ...").
inline int line_of_offset(const std::string& content, std::size_t offset) {
  int line = 1;
  for (std::size_t i = 0; i < offset && i < content.size(); ++i)
    if (content[i] == '\n') ++line;
  return line;
}

}  // namespace ga::base
