#include "probes/journal_chain.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <stdexcept>

#include "base/file_io.hpp"

namespace ga {

std::optional<ChainedLine> split_chained(std::string_view line) {
  if (line.size() < kChainSuffix + 2 || line.substr(line.size() - 2) != "\"}") return std::nullopt;
  const std::size_t at = line.size() - kChainSuffix;
  if (line.substr(at, kChainKey.size()) != kChainKey) return std::nullopt;
  ChainedLine c;
  if (!base::digest_from_hex(line.substr(at + kChainKey.size(), 64), c.chain)) return std::nullopt;
  c.body = line.substr(0, at);
  return c;
}

base::Digest chain_after(base::Sha256& h, const base::Digest* prev, std::string_view body) {
  if (prev) h.update(prev->data(), prev->size());
  h.update(body);
  return h.digest();
}

std::string chained_line(std::string_view dump, long long seq, const base::Digest* prev, base::Sha256& h,
                         base::Digest& chain) {
  std::string line;
  line.reserve(dump.size() + 24 + kChainSuffix);
  line.append(dump.substr(0, dump.size() - 1));  // without its closing brace
  line.append(dump.size() > 2 ? ",\"seq\":" : "\"seq\":").append(std::to_string(seq));
  chain = chain_after(h, prev, line);
  line.append(kChainKey).append(base::to_hex(chain)).append("\"}\n");
  return line;
}

ChainTail read_chain_tail(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw std::runtime_error("cannot stat " + path + ": " + base::errno_text(errno));
  ChainTail t;
  if (st.st_size == 0) return t;
  t.kind = ChainTail::Kind::other;
  // The chain and the seq before it are the last ~100 bytes of a chained line.
  char buf[256];
  const auto n = static_cast<std::size_t>(std::min<off_t>(st.st_size, sizeof buf));
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, buf + got, n - got, st.st_size - static_cast<off_t>(n) + static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw std::runtime_error("cannot read " + path + ": " + base::errno_text(r < 0 ? errno : EIO));
    got += static_cast<std::size_t>(r);
  }
  std::string_view tail(buf, n);
  if (tail.back() != '\n') return t;  // torn: a write cut short
  tail.remove_suffix(1);
  if (const auto nl = tail.rfind('\n'); nl != std::string_view::npos) tail.remove_prefix(nl + 1);
  const auto c = split_chained(tail);
  if (!c) return t;
  constexpr std::string_view kSeq = "\"seq\":";
  const auto s = c->body.rfind(kSeq);
  if (s == std::string_view::npos) return t;
  const std::string_view digits = c->body.substr(s + kSeq.size());
  long long seq = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), seq);
  if (ec != std::errc{} || end != digits.data() + digits.size() || seq <= 0) return t;
  t.kind = ChainTail::Kind::chained;
  t.seq = seq;
  t.chain = c->chain;
  return t;
}

}  // namespace ga
