#include "base/sha256.hpp"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace ga::base {

void Sha256::FreeMd::operator()(evp_md_st* m) const { EVP_MD_free(m); }
void Sha256::FreeCtx::operator()(evp_md_ctx_st* c) const { EVP_MD_CTX_free(c); }

Sha256::Sha256() : md_(EVP_MD_fetch(nullptr, "SHA256", nullptr)), ctx_(EVP_MD_CTX_new()) {
  if (!md_ || !ctx_) throw std::runtime_error("libcrypto: SHA-256 is not available");
  start();
}

void Sha256::start() {
  if (EVP_DigestInit_ex(ctx_.get(), md_.get(), nullptr) != 1)
    throw std::runtime_error("libcrypto: SHA-256 could not be initialised");
}

void Sha256::update(const void* p, std::size_t n) {
  if (n && EVP_DigestUpdate(ctx_.get(), p, n) != 1) throw std::runtime_error("libcrypto: SHA-256 update failed");
}

Digest Sha256::digest() {
  Digest d;
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(ctx_.get(), d.data(), &n) != 1 || n != d.size())
    throw std::runtime_error("libcrypto: SHA-256 final failed");
  start();
  return d;
}

std::string Sha256::hex_digest() { return to_hex(digest()); }

std::string to_hex(const Digest& d) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(d.size() * 2, '0');
  for (std::size_t i = 0; i < d.size(); ++i) {
    out[2 * i] = kDigits[d[i] >> 4];
    out[2 * i + 1] = kDigits[d[i] & 15];
  }
  return out;
}

namespace {
// Each byte's value as a hex digit, or -1: a table, as a journal reader parses two chains of
// 64 digits a line (3.6 M lines at 4096 hosts), and a digit's three range tests each were 7% of
// reading.
constexpr std::array<signed char, 256> kNibble = [] {
  std::array<signed char, 256> t{};
  for (auto& x : t) x = -1;
  for (int c = 0; c < 10; ++c) t['0' + c] = static_cast<signed char>(c);
  for (int c = 0; c < 6; ++c) t['a' + c] = t['A' + c] = static_cast<signed char>(10 + c);
  return t;
}();
}  // namespace

bool digest_from_hex(std::string_view hex, Digest& out) {
  if (hex.size() != out.size() * 2) return false;
  int bad = 0;  // any digit's -1 sets the sign bit: one test at the end, not one per digit
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = kNibble[static_cast<unsigned char>(hex[2 * i])], lo = kNibble[static_cast<unsigned char>(hex[2 * i + 1])];
    bad |= hi | lo;
    out[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return bad >= 0;
}

}  // namespace ga::base
