// The DSSE envelope (reports/attest.cpp check_signature): signature.dsse.json of a directory a
// vendor handed over, checked by `verify --pubkey` against the buyer's key. The seed is an
// envelope signed with the key below (tests/fuzz/seeds/dsse/PROVENANCE.md), so mutations reach
// the payload's parse behind a valid signature as well as every way an envelope is malformed.
// check_signature never throws on a bad envelope: it says why in SignatureCheck::why.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "reports/attest.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

constexpr const char* kPub =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEAQ5E4Uv7kcBqNj69rwGyUfnhtVw1MQZyAZi7Eq6P67bk=\n"
    "-----END PUBLIC KEY-----\n";

// The key as a file, written once per process (check_signature reads a path, as verify does).
const std::string& pub_path() {
  static const std::string path = [] {
    char tmpl[] = "/tmp/ga-fuzz-dsse-XXXXXX";
    const int fd = ::mkstemp(tmpl);
    if (fd < 0) std::abort();
    FILE* f = ::fdopen(fd, "w");
    std::fputs(kPub, f);
    std::fclose(f);
    return std::string(tmpl);
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  nlohmann::json env;
  try {
    env = nlohmann::json::parse(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const nlohmann::json::exception&) {
    return 0;  // not JSON: verify's read_json_file names the file (base/json_file.cpp)
  }
  const auto c = ga::attest::check_signature(env, pub_path());
  if (c.valid) (void)c.statement.dump();  // what verify reads next: subjects, predicate
  return 0;
}
