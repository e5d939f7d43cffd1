// What every fuzz target holds a loader to: on input it cannot read, it throws its documented
// error, whose message names the input (the file name the user gave), and nothing else escapes.
// Any other exception, a crash, a sanitizer report, a hang or a leak is a finding.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ga::fuzz {

// The name each target passes as the input's file name; messages must carry it.
inline constexpr const char* kInputName = "fuzz-input.file";

// A message that does not name the input leaves the user guessing which file is bad.
inline void require_names_input(const std::string& what) {
  if (what.find(kInputName) == std::string::npos) {
    std::fprintf(stderr, "loader error does not name the input \"%s\": %s\n", kInputName, what.c_str());
    std::abort();
  }
}

}  // namespace ga::fuzz
