#include "base/sha256.hpp"

#include <openssl/evp.h>

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

bool digest_from_hex(std::string_view hex, Digest& out) {
  if (hex.size() != out.size() * 2) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return true;
}

}  // namespace ga::base
