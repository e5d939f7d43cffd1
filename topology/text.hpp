// Small text helpers shared by the parsers (nvidia-smi's topology matrix, nccl-tests logs) and
// the writers (the judge's reasons, the report's tables). Locale-free, so that a re-judged run
// reproduces its report byte for byte.
#pragma once
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace ga::topo {

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

}  // namespace ga::topo
