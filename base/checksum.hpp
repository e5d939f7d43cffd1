// A 64-bit streaming checksum for checkpoint-sized files (the storage probe and the resume job).
// Not cryptographic: it guards against torn writes, truncation and flipped bytes. Each 8-byte
// word goes through a bijective mix, and each step of the running state is a bijection of
// the state for a fixed word, so changing any single word always changes the result; the
// length is folded in at the end, so truncation to a prefix is caught too.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ga::base {

class Checksum {
 public:
  void update(const void* data, std::size_t n);
  std::uint64_t value() const;  // of everything given so far; update() may continue after
  std::uint64_t bytes() const { return total_; }

 private:
  void word(std::uint64_t w);
  std::uint64_t h_ = 0x6a09e667f3bcc908ULL;
  std::uint64_t total_ = 0;
  unsigned char tail_[8] = {};
  std::size_t tail_n_ = 0;
};

std::uint64_t checksum_of(const void* data, std::size_t n);
std::string to_hex(std::uint64_t v);                 // 16 lowercase hex digits
bool from_hex(const std::string& s, std::uint64_t& v);  // exactly 16 hex digits

// splitmix64: the deterministic stream behind file contents and the resume job's state.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace ga::base
