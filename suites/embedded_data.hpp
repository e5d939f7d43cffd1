#pragma once
#include <string>
#include <vector>

namespace ga {
struct EmbeddedFile {
  const char* name;
  const char* text;
};
// suites/data/*.yaml, compiled in (see suites/embed.cmake).
const std::vector<EmbeddedFile>& embedded_files();
}  // namespace ga
