// Format detection from content, and the file/text entry points that dispatch to a loader.
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string_view>

#include "base/text.hpp"
#include "base/utf8.hpp"
#include "topology/loaders_internal.hpp"

namespace ga::topo {
namespace {

// Name of the first element, skipping the XML declaration, comments, DOCTYPE and
// processing instructions (the AWS NCCL file opens with a licence comment).
std::optional<std::pair<std::string, std::size_t>> first_xml_element(const std::string& s) {
  std::size_t i = 0;
  while (true) {
    i = s.find('<', i);
    if (i == std::string::npos) return std::nullopt;
    if (s.compare(i, 4, "<!--") == 0) {
      auto e = s.find("-->", i + 4);
      if (e == std::string::npos) return std::nullopt;
      i = e + 3;
    } else if (s.compare(i, 2, "<?") == 0 || s.compare(i, 2, "<!") == 0) {
      auto e = s.find('>', i);
      if (e == std::string::npos) return std::nullopt;
      i = e + 1;
    } else {
      std::size_t e = i + 1;
      while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e])) && s[e] != '>' && s[e] != '/') ++e;
      return std::make_pair(s.substr(i + 1, e - i - 1), i);
    }
  }
}

bool starts_like_xml(const std::string& s) {
  for (unsigned char c : s) {
    if (std::isspace(c) || c == 0xEF || c == 0xBB || c == 0xBF) continue;  // BOM
    return c == '<';
  }
  return false;
}

bool starts_with_ci(const std::string& s, std::size_t i, std::string_view word) {
  if (s.size() - i < word.size()) return false;
  for (std::size_t k = 0; k < word.size(); ++k)
    if (std::toupper(static_cast<unsigned char>(s[i + k])) != word[k]) return false;
  return true;
}

}  // namespace

namespace detail {

// The longest XML declaration or DOCTYPE read (see reject_unsafe_xml).
constexpr std::size_t kMaxDeclaration = 1024;

// Not an XML parser, on purpose: the parsers are hwloc's (libxml2) and pugixml, and what they
// must not be given is found by bytes. Outside comments and CDATA sections, "<!" opens a
// markup declaration and nothing else ('<' cannot appear in attribute values or text), so a
// scan for "<!DOCTYPE" and "<!ENTITY" that skips comments (they end at the first "-->", as
// for the parsers) and CDATA finds every one. A DOCTYPE is where entities are declared: an
// external one reads a file, nested ones expand exponentially ("billion laughs"), and one
// without a system id crashed hwloc's libxml2 import (it compares the DTD's SystemID with
// "hwloc.dtd", unchecked for NULL). hwloc writes one DOCTYPE of its own, kept: no internal
// subset, and hwloc asks libxml2 for no DTD loading, so it declares nothing. The byte scan is
// only sound on an ASCII-compatible text, hence NUL bytes (UTF-16) and other declared
// encodings (UTF-7 would spell "<!" differently) are refused as well.
void require_utf8(const std::string& content, const std::string& name) {
  if (int line = base::first_non_utf8_line(content))
    throw TopologyError(name, line, "not UTF-8 text (hwloc, NCCL and nvidia-smi write UTF-8)");
}

void reject_unsafe_xml(const std::string& content, const std::string& name, bool hwloc_dtd_allowed) {
  if (auto z = content.find('\0'); z != std::string::npos)
    throw TopologyError(name, base::line_of_offset(content, z),
                        "NUL byte not accepted in an XML topology (UTF-16 or binary content)");
  std::size_t i = content.find('<');
  if (i != std::string::npos && content.compare(i, 5, "<?xml") == 0) {
    const auto e = content.find("?>", i);
    // libstdc++'s std::regex recurses once per character matched: a declaration of a few hundred
    // kilobytes overflows the stack. hwloc's and NCCL's are under 100 bytes.
    if (e == std::string::npos || e - i > kMaxDeclaration)
      throw TopologyError(name, base::line_of_offset(content, i),
                          "XML declaration without its closing ?> in its first " + std::to_string(kMaxDeclaration) +
                              " bytes");
    static const std::regex enc(R"(\sencoding\s*=\s*["']([^"']*)["'])");
    static const std::regex ascii_compatible(R"(utf-8|us-ascii|ascii|iso-8859-[0-9]+|latin1)", std::regex::icase);
    std::smatch m;
    const std::string decl = content.substr(i, e == std::string::npos ? std::string::npos : e - i);
    if (std::regex_search(decl, m, enc) && !std::regex_match(m[1].str(), ascii_compatible))
      throw TopologyError(name, base::line_of_offset(content, i),
                          "XML encoding \"" + m[1].str() + "\" not accepted: UTF-8 or another ASCII-compatible one");
  }
  static const std::regex hwloc_doctype(R"(<!DOCTYPE\s+topology\s+SYSTEM\s+"hwloc2?\.dtd"\s*>)");
  for (; i != std::string::npos; i = content.find('<', i)) {
    auto skip_to = [&](const char* end, std::size_t from) {
      const auto e = content.find(end, from);
      return e == std::string::npos ? e : e + std::strlen(end);
    };
    if (content.compare(i, 4, "<!--") == 0) {
      i = skip_to("-->", i + 4);
    } else if (content.compare(i, 9, "<![CDATA[") == 0) {
      i = skip_to("]]>", i + 9);
    } else if (starts_with_ci(content, i, "<!DOCTYPE")) {
      const auto e = content.find('>', i);
      const std::string decl = content.substr(i, e == std::string::npos ? std::string::npos : e - i + 1);
      // hwloc's own is under 50 bytes; a longer one is refused without the (recursive) regex.
      if (!hwloc_dtd_allowed || decl.size() > kMaxDeclaration || !std::regex_match(decl, hwloc_doctype))
        throw TopologyError(name, base::line_of_offset(content, i),
                            std::string("DOCTYPE not accepted: ") +
                                (hwloc_dtd_allowed ? "only hwloc's own <!DOCTYPE topology SYSTEM \"hwloc2.dtd\"> (or \"hwloc.dtd\"), "
                                                     "without an internal subset, is read"
                                                   : "an NCCL topology has none") +
                                "; a document type declaration can declare entities the XML parser would expand "
                                "(external files, exponential growth)");
      i = e == std::string::npos ? e : e + 1;
    } else if (starts_with_ci(content, i, "<!ENTITY")) {
      throw TopologyError(name, base::line_of_offset(content, i),
                          "ENTITY declaration not accepted: entities can read external files or expand exponentially");
    } else {
      ++i;
    }
  }
}

}  // namespace detail

Format detect_format(const std::string& content, const std::string& name) {
  // No topology format has a NUL: UTF-16 (whose byte-order mark also hides the XML's '<') or
  // binary. Said as such rather than "unrecognised".
  if (auto z = content.find('\0'); z != std::string::npos)
    throw TopologyError(name, base::line_of_offset(content, z),
                        "NUL byte not accepted in a topology file (UTF-16 or binary content)");
  if (starts_like_xml(content)) {
    auto root = first_xml_element(content);
    // Before any loader's parser sees the text (and before a root-level complaint, so that a
    // DOCTYPE is named as such); the loaders check again for their own format.
    detail::reject_unsafe_xml(content, name, !root || root->first == "topology");
    if (!root) throw TopologyError(name, 0, "XML without a root element");
    int line = base::line_of_offset(content, root->second);
    if (root->first == "topology") return Format::hwloc_xml;
    if (root->first == "system") return Format::nccl_xml;
    if (root->first == "graphs" || root->first == "graph")
      throw TopologyError(name, line, "NCCL graph dump, not a topology (root <" + root->first + ">)");
    throw TopologyError(name, line, "unknown XML root <" + root->first + ">: expected <topology> (hwloc) or <system> (NCCL)");
  }
  // nvidia-smi topo -m: a header line whose first column is GPU0.
  std::istringstream in(content);
  std::string line;
  // The loader's own test for its header line (load_nvidia_smi), without a regex: libstdc++'s
  // recurses per character and a long line of blanks would overflow the stack.
  while (std::getline(in, line)) {
    const auto w = base::split_words(line);
    if (!w.empty() && w[0] == "GPU0") return Format::nvidia_smi_text;
  }
  throw TopologyError(name, 0, "unrecognised topology format (not hwloc XML, NCCL XML or nvidia-smi topo -m)");
}

namespace {

HostTopology load_as(const std::string& content, const std::string& name, const std::string& hostname) {
  switch (detect_format(content, name)) {
    case Format::hwloc_xml: return detail::load_hwloc_xml_isolated(content, name, hostname);
    case Format::nccl_xml: return detail::load_nccl_xml(content, name, hostname);
    case Format::nvidia_smi_text: return detail::load_nvidia_smi(content, name, hostname);
  }
  throw TopologyError(name, 0, "unhandled format");
}

}  // namespace

HostTopology load_topology_text(const std::string& content, const std::string& name) {
  return load_as(content, name, name);
}

HostTopology load_topology_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw TopologyError(path, 0, "cannot open");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw TopologyError(path, 0, "read error");
  // Files that record no host name are named after the file, without directory or extension.
  std::filesystem::path p(path);
  std::string stem = p.filename().string();
  stem = stem.substr(0, stem.find('.'));
  return load_as(ss.str(), path, stem);
}

}  // namespace ga::topo
