#include "reports/markup_escape.hpp"

namespace ga::markup {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at s[i] (2 to 4), or 0 when it is not one
// (truncated, overlong, a surrogate, above U+10FFFF, or a non-character XML forbids).
std::size_t multibyte_length(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
  unsigned cp = c & (0xFF >> (n + 1));
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF) return 0;
  return n;
}

}  // namespace

void append_escaped(std::string& out, std::string_view s) {
  std::size_t run = 0;  // start of the pending run of bytes that need no change
  auto flush = [&](std::size_t i) {
    out.append(s.data() + run, i - run);
  };
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F && c != '&' && c != '<' && c != '>' && c != '"' && c != '\'') {
      ++i;
      continue;
    }
    std::string_view rep;
    std::size_t len = 1;
    switch (c) {
      case '&': rep = "&amp;"; break;
      case '<': rep = "&lt;"; break;
      case '>': rep = "&gt;"; break;
      case '"': rep = "&quot;"; break;
      case '\'': rep = "&#39;"; break;
      case '\t': rep = "&#9;"; break;
      case '\n': rep = "&#10;"; break;
      case '\r': rep = "&#13;"; break;
      default:
        if (c >= 0x80) {
          if (std::size_t n = multibyte_length(s, i)) {
            i += n;  // valid: stays in the run
            continue;
          }
        }
        rep = kReplacement;  // a control character, DEL, or a bad byte
    }
    flush(i);
    out += rep;
    i += len;
    run = i;
  }
  flush(s.size());
}

std::string escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  append_escaped(out, s);
  return out;
}

}  // namespace ga::markup
