// The criteria parser (suites/criteria.cpp): `--criteria FILE` and the criteria text a journal
// records, which `judge` and `verify` parse again.
#include <string>

#include "suites/criteria.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    ga::CriteriaSet c = ga::parse_criteria(text, ga::fuzz::kInputName);
    for (const auto& k : c.criteria) (void)k.value.to_json().dump();
  } catch (const ga::CriteriaError& e) {
    ga::fuzz::require_names_input(e.what());
  }
  return 0;
}
