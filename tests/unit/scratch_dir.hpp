// A fresh directory under the temporary directory for one test, removed with everything in it
// when the test ends.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <string>

struct ScratchDir {
  std::filesystem::path p;
  explicit ScratchDir(const std::string& tag = "ga-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (tag + ".XXXXXX")).string();
    p = ::mkdtemp(tmpl.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(p, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string str() const { return p.string(); }
};
