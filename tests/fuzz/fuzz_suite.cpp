// The suite parser (suites/suite_file.cpp): `--suite FILE`.
#include <string>

#include "suites/suite_file.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    ga::Suite s = ga::parse_suite(text, ga::fuzz::kInputName);
    (void)s.to_json().dump();
  } catch (const ga::SuiteError& e) {
    ga::fuzz::require_names_input(e.what());
  }
  return 0;
}
