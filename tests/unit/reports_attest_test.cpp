// The digests of a run's files (reports/attest.hpp): SHA-256 as sha256sum computes it, however
// the writer hands over its bytes (a character at a time, small pieces, pieces larger than
// the hashing buffer), and the bytes passed on to the file unchanged.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "reports/attest.hpp"
#include "scratch_dir.hpp"

namespace ga::attest {
namespace {

// FIPS 180-2, appendix B: "abc", the two-block message, one million 'a'.
TEST(Sha256, KnownAnswers) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Deterministic bytes of every value, longer than the hashing buffer (64 KiB).
std::string bytes(std::size_t n) {
  std::string s(n, '\0');
  unsigned x = 12345;
  for (auto& c : s) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 16);
  }
  return s;
}

TEST(Sha256, StreamedInAnyPiecesEqualsTheWhole) {
  const std::string all = bytes(300000);
  const std::string want = sha256_hex(all);
  // one character at a time (the streambuf's overflow), small pieces, one piece over 64 KiB
  EXPECT_EQ(sha256_of([&](std::ostream& o) {
              for (char c : all.substr(0, 70000)) o.put(c);
              o << all.substr(70000, 13) << all.substr(70013, 100000 - 70013);
              o.write(all.data() + 100000, 150000);
              o << all.substr(250000);
            }),
            want);
  std::ostringstream file;
  EXPECT_EQ(write_hashed(file, [&](std::ostream& o) {
              for (std::size_t i = 0; i < all.size(); i += 777) o << all.substr(i, 777);
            }),
            want);
  EXPECT_EQ(file.str(), all);  // what reached the file: every byte, in order
}

TEST(Sha256, OfAFileAsSha256sumReadsIt) {
  ScratchDir dir("attest");
  const std::string path = dir.str() + "/f.bin";
  const std::string all = bytes(3 << 20);
  std::ofstream(path, std::ios::binary) << all;
  EXPECT_EQ(sha256_file(path), sha256_hex(all));
  EXPECT_THROW(sha256_file(dir.str() + "/none"), std::runtime_error);
}

}  // namespace
}  // namespace ga::attest
