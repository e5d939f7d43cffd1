// campaign.json (reports/campaign.cpp parse_campaign): what a re-test copies of the run it
// re-tests, and what drain and undrain read from a re-test's directory.
#include <stdexcept>
#include <string>

#include "reports/campaign.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  try {
    const ga::Campaign c = ga::parse_campaign(std::string(reinterpret_cast<const char*>(data), size), ga::fuzz::kInputName);
    (void)ga::campaign_to_json(c).dump();  // what the re-test records and writes
    (void)ga::campaign_to_markdown(c);
    (void)ga::bad_hosts_text(ga::campaign_bad_hosts(c));
  } catch (const std::runtime_error& e) {
    ga::fuzz::require_names_input(e.what());
  }
  return 0;
}
