#include "base/natural_order.hpp"

#include <algorithm>

namespace ga {

bool natural_less(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  // Skip the common prefix, backed up to the start of a digit run that goes on past it: the
  // runs and characters before that compare equal either way, so the answer is the same, and
  // places that share "node0123/gpu:" (millions of comparisons when sorting a judgement) are
  // not walked from their first byte.
  std::size_t p = 0;
  const std::size_t common = std::min(a.size(), b.size());
  while (p < common && a[p] == b[p]) ++p;
  if ((p < a.size() && digit(a[p])) || (p < b.size() && digit(b[p])))
    while (p > 0 && digit(a[p - 1])) --p;
  std::size_t i = p, j = p;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      auto x = a.substr(i, ie - i), y = b.substr(j, je - j);
      while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
      while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ie, j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i, ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // only leading zeros differed
}

}  // namespace ga
