// bad-hosts.txt (reports/bad_hosts.cpp parse_bad_hosts): what drain, undrain and rerun-plan
// read from a run directory, which an operator may have edited by hand.
#include <stdexcept>
#include <string>

#include "reports/bad_hosts.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  try {
    const ga::BadHosts b = ga::parse_bad_hosts(std::string(reinterpret_cast<const char*>(data), size), ga::fuzz::kInputName);
    (void)ga::bad_hosts_text(b);  // what a re-test writes back
  } catch (const std::runtime_error& e) {
    ga::fuzz::require_names_input(e.what());
  }
  return 0;
}
