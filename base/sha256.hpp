// SHA-256 through OpenSSL's libcrypto, the one hasher of the project: the digests of a run's
// files (reports/attest.cpp) and the journal's chain (probes/journal_chain.hpp). Not
// libsodium's: libsodium has only a portable C SHA-256 (97 MB/s on this machine's EPYC for
// journal-sized lines), libcrypto uses the CPU's SHA instructions (560 MB/s for the same lines,
// 1.7 GB/s on large buffers); docs/design.md, "Digests". libsodium keeps the signatures.
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

struct evp_md_st;
struct evp_md_ctx_st;

namespace ga::base {

using Digest = std::array<unsigned char, 32>;

// One running SHA-256. Reusable: digest() ends the message and starts the next. The algorithm
// is fetched once per hasher, not per message (libcrypto 3's implicit fetch at every init was
// half the cost of hashing a journal line).
class Sha256 {
 public:
  Sha256();  // throws std::runtime_error when libcrypto cannot provide SHA-256
  void update(const void* p, std::size_t n);
  void update(std::string_view s) { update(s.data(), s.size()); }
  Digest digest();
  std::string hex_digest();

 private:
  void start();
  struct FreeMd {
    void operator()(evp_md_st* m) const;
  };
  struct FreeCtx {
    void operator()(evp_md_ctx_st* c) const;
  };
  std::unique_ptr<evp_md_st, FreeMd> md_;
  std::unique_ptr<evp_md_ctx_st, FreeCtx> ctx_;
};

std::string to_hex(const Digest& d);                       // 64 lowercase hex digits
bool digest_from_hex(std::string_view hex, Digest& out);    // exactly 64 hex digits, either case

}  // namespace ga::base
