// Whether a text is UTF-8, judged by the library that writes it out: every string a loader keeps
// ends up in a JSON record (samples.jsonl, report.json), and nlohmann::json's serializer throws
// on a byte that is not UTF-8, far from the file that carried it. Loaders ask first and name
// the file and line instead.
#pragma once
#include <string>

namespace ga::base {

// 1-based line of the first line that is not valid UTF-8 (RFC 3629, as nlohmann::json checks
// it); 0 when all of `text` is. Line by line is exact: no UTF-8 sequence contains '\n'.
int first_non_utf8_line(const std::string& text);

// 1-based line of the first control character other than tab, LF and CR (C0 and DEL: outside
// YAML's printable set, YAML 1.2 section 5.1); 0 when there is none. yaml-cpp reads a NUL as
// the end of a UTF-16 or UTF-32 unit and hands back bytes that are not UTF-8.
int first_control_char_line(const std::string& text);

}  // namespace ga::base
