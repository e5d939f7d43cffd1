// The journal's chain (schema_version 2): every record of samples.jsonl ends
//   ...,"seq":N,"chain":"<64 hex digits>"}
// where N counts the records from 1 (the run_start) and the chain is the SHA-256 of the previous
// record's chain (its 32 bytes; nothing before the first record) followed by this record's line
// up to the comma before "chain" (its body). A line deleted, doubled, moved or edited breaks the
// chain at that line or the next, and the reader names it (probes/journal.cpp). The last chain
// goes into manifest.json and so under the signature: without a signature the chain locates an
// edit but does not prove that nobody chained the file again (docs/report-format.md).
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "base/sha256.hpp"

namespace ga {

inline constexpr std::string_view kChainKey = ",\"chain\":\"";
// What a chained line ends with after its body: the key, 64 hex digits, `"}`.
inline constexpr std::size_t kChainSuffix = kChainKey.size() + 64 + 2;

struct ChainedLine {
  std::string_view body;  // the line up to the comma before "chain"
  base::Digest chain;
};

// The body and chain of a line that ends as the writer ends a record; nullopt for any other.
std::optional<ChainedLine> split_chained(std::string_view line);

// The chain of a record with this body, after the record whose chain is `prev` (null: first).
base::Digest chain_after(base::Sha256& h, const base::Digest* prev, std::string_view body);

// The line (with its newline) of a record dumped as `dump` (a JSON object), numbered `seq`,
// after the record whose chain is `prev`; its chain is stored in `chain`.
std::string chained_line(std::string_view dump, long long seq, const base::Digest* prev, base::Sha256& h,
                         base::Digest& chain);

// What the last record of an open journal says, read from its last bytes: where a process
// that appends to a journal it did not start (a survivor's signal record) joins the chain.
struct ChainTail {
  enum class Kind { empty, chained, other } kind = Kind::empty;  // other: a torn or unchained last line
  long long seq = 0;
  base::Digest chain{};
};
ChainTail read_chain_tail(int fd, const std::string& path);

}  // namespace ga
