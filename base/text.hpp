// Small text helpers shared by the parsers (nvidia-smi's topology matrix, nccl-tests logs, the
// topology loaders' error lines) and the formatter (base/quantity.hpp: the judge's reasons, the
// report's tables). Locale-free, so that a re-judged run reproduces its report byte for byte.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace ga::base {

// Whitespace-separated words of a line.
// Levenshtein distance, for "did you mean" among short names (metric ids, places).
inline std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

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
