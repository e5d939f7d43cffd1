// manifest.json (reports/attest.cpp parse_manifest): what verify, sign and run --rerun read
// from a directory a vendor handed over.
#include <stdexcept>
#include <string>

#include "reports/attest.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  try {
    const ga::attest::Manifest m =
        ga::attest::parse_manifest(std::string(reinterpret_cast<const char*>(data), size), ga::fuzz::kInputName);
    (void)ga::attest::manifest_to_json(m).dump();
    (void)ga::attest::statement_of(m, nlohmann::json::object()).dump();  // what sign signs
  } catch (const std::runtime_error& e) {
    ga::fuzz::require_names_input(e.what());
  }
  return 0;
}
