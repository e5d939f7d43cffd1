#include "base/checksum.hpp"

#include <cstring>

namespace ga::base {

namespace {
constexpr std::uint64_t kOdd = 0x9fb21c651e98df25ULL;
inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
}  // namespace

void Checksum::word(std::uint64_t w) { h_ = rotl(h_ ^ mix64(w), 29) * kOdd; }

void Checksum::update(const void* data, std::size_t n) {
  auto p = static_cast<const unsigned char*>(data);
  total_ += n;
  while (n > 0 && tail_n_ > 0) {  // finish a word split across calls
    tail_[tail_n_++] = *p++;
    --n;
    if (tail_n_ == 8) {
      std::uint64_t w;
      std::memcpy(&w, tail_, 8);
      word(w);
      tail_n_ = 0;
    }
  }
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    word(w);
  }
  for (; n > 0; --n) tail_[tail_n_++] = *p++;
}

std::uint64_t Checksum::value() const {
  std::uint64_t h = h_;
  if (tail_n_ > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, tail_, tail_n_);
    h = rotl(h ^ mix64(w ^ (std::uint64_t{0xff} << 56)), 29) * kOdd;
  }
  return mix64(h ^ total_);
}

std::uint64_t checksum_of(const void* data, std::size_t n) {
  Checksum c;
  c.update(data, n);
  return c.value();
}

std::string to_hex(std::uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = d[v & 15];
  return s;
}

bool from_hex(const std::string& s, std::uint64_t& v) {
  if (s.size() != 16) return false;
  std::uint64_t r = 0;
  for (char c : s) {
    int x;
    if (c >= '0' && c <= '9') x = c - '0';
    else if (c >= 'a' && c <= 'f') x = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') x = c - 'A' + 10;
    else return false;
    r = (r << 4) | static_cast<std::uint64_t>(x);
  }
  v = r;
  return true;
}

}  // namespace ga::base
