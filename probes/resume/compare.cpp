#include "probes/resume/compare.hpp"

#include <cstring>

#include "base/file_io.hpp"

namespace ga::resume {

namespace {
constexpr std::size_t kRecord = 16;
std::uint64_t step_at(const std::vector<unsigned char>& b, std::size_t i) {
  std::uint64_t s;
  std::memcpy(&s, b.data() + i * kRecord, 8);
  return s;
}
}  // namespace

LossComparison compare_losses(const std::vector<unsigned char>& ref, const std::vector<unsigned char>& part, int first, int last) {
  LossComparison out;
  if (first < 1 || last < first) {
    out.why = "nothing to compare (steps " + std::to_string(first) + ".." + std::to_string(last) + ")";
    return out;
  }
  const std::size_t want = static_cast<std::size_t>(last - first + 1);
  if (ref.size() < static_cast<std::size_t>(last) * kRecord) {
    out.first_difference = static_cast<int>(ref.size() / kRecord) + 1;
    out.why = "the reference log stops at step " + std::to_string(ref.size() / kRecord);
    return out;
  }
  for (std::size_t i = 0; i < want; ++i) {
    const int step = first + static_cast<int>(i);
    if ((i + 1) * kRecord > part.size()) {
      out.first_difference = step;
      out.why = "the log stops before step " + std::to_string(step);
      return out;
    }
    const std::size_t at = static_cast<std::size_t>(step - 1);
    if (step_at(ref, at) != static_cast<std::uint64_t>(step) || std::memcmp(ref.data() + at * kRecord, part.data() + i * kRecord, kRecord) != 0) {
      out.first_difference = step;
      out.why = "the loss of step " + std::to_string(step) + " differs";
      return out;
    }
    ++out.steps_compared;
  }
  if (part.size() != want * kRecord) {
    out.why = "the log holds more than steps " + std::to_string(first) + ".." + std::to_string(last);
    out.first_difference = last + 1;
    return out;
  }
  out.identical = true;
  return out;
}

bool same_file_bytes(const std::string& a, const std::string& b, std::string* why) {
  std::vector<unsigned char> x, y;
  try {
    x = base::read_whole_file(a);
    y = base::read_whole_file(b);
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return false;
  }
  if (x == y) return true;
  if (why) {
    std::size_t i = 0;
    while (i < x.size() && i < y.size() && x[i] == y[i]) ++i;
    *why = a + " and " + b + " differ at byte " + std::to_string(i) + " (sizes " + std::to_string(x.size()) + " and " +
           std::to_string(y.size()) + ")";
  }
  return false;
}

}  // namespace ga::resume
