// Byte-for-byte comparisons of two runs of the resume job: final states and loss logs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ga::resume {

// A loss log is (step, loss bits) records of 16 bytes, steps ascending from its first.
struct LossComparison {
  bool identical = false;
  int steps_compared = 0;
  int first_difference = 0;            // the first step that differs or is missing; 0 if none
  std::string why;
};
// `part` must hold exactly steps first..last of `reference`, byte for byte.
LossComparison compare_losses(const std::vector<unsigned char>& reference, const std::vector<unsigned char>& part, int first, int last);

// Whole files; why says which byte differs or which file is missing.
bool same_file_bytes(const std::string& a, const std::string& b, std::string* why);

}  // namespace ga::resume
