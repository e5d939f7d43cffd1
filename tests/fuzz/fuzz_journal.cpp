// The journal reader (probes/journal.cpp): samples.jsonl of a run directory, which a buyer reads
// from a vendor and must treat as hostile.
#include <sstream>
#include <string>

#include "probes/journal.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    ga::JournalData d = ga::parse_journal(in, ga::fuzz::kInputName);
    (void)d.run_start.dump();  // what the writers do with the raw record
  } catch (const ga::JournalError& e) {
    ga::fuzz::require_names_input(e.what());
  }
  return 0;
}
