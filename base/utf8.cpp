#include "base/utf8.hpp"

#include <nlohmann/json.hpp>

namespace ga::base {

int first_non_utf8_line(const std::string& text) {
  int line = 1;
  for (std::size_t b = 0; b <= text.size(); ++line) {
    auto e = text.find('\n', b);
    if (e == std::string::npos) e = text.size();
    // Only lines with a byte outside ASCII can fail: the common case costs no copy.
    bool ascii = true;
    for (std::size_t i = b; i < e && ascii; ++i) ascii = static_cast<unsigned char>(text[i]) < 0x80;
    if (!ascii) {
      try {
        (void)nlohmann::json(text.substr(b, e - b)).dump();
      } catch (const nlohmann::json::type_error&) {
        return line;
      }
    }
    b = e + 1;
  }
  return 0;
}

int first_control_char_line(const std::string& text) {
  int line = 1;
  for (unsigned char c : text) {
    if (c == '\n') ++line;
    else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) return line;
  }
  return 0;
}

}  // namespace ga::base
