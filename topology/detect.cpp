// Format detection from content, and the file/text entry points that dispatch to a loader.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "base/text.hpp"
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

}  // namespace

Format detect_format(const std::string& content, const std::string& name) {
  if (starts_like_xml(content)) {
    auto root = first_xml_element(content);
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
  static const std::regex header(R"(^\s*GPU0(\s|$))");
  while (std::getline(in, line))
    if (std::regex_search(line, header)) return Format::nvidia_smi_text;
  throw TopologyError(name, 0, "unrecognised topology format (not hwloc XML, NCCL XML or nvidia-smi topo -m)");
}

namespace {

HostTopology load_as(const std::string& content, const std::string& name, const std::string& hostname) {
  switch (detect_format(content, name)) {
    case Format::hwloc_xml: return detail::load_hwloc_xml(content, name, hostname);
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
