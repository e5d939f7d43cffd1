#include "launchers/slurm_admin.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace ga::launch {

namespace {

bool plain(const std::string& w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("_./:=,@%+-").find(char(c)) != std::string_view::npos;
  });
}

// Double quotes for a value people read (reason="..."): only \ " $ ` need a backslash there.
std::string double_quoted(const std::string& v) {
  std::string s = "\"";
  for (char c : v) {
    if (c == '\\' || c == '"' || c == '$' || c == '`') s += '\\';
    s += c;
  }
  return s + "\"";
}

}  // namespace

std::vector<std::string> scontrol_drain_argv(const std::string& node, const std::string& why) {
  // Slurm keeps the reason as one line of text; quotes and newlines would only garble it.
  std::string reason = std::string(kDrainReasonPrefix) + " " + why;
  for (char& c : reason)
    if (c == '"' || c == '\n' || c == '\r' || c == '\t') c = ' ';
  return {"scontrol", "update", "nodename=" + node, "state=drain", "reason=" + reason};
}

std::vector<std::string> scontrol_resume_argv(const std::string& node) {
  return {"scontrol", "update", "nodename=" + node, "state=resume"};
}

std::vector<std::string> sinfo_nodes_argv() { return {"sinfo", "--noheader", "--Node", "--format=%N|%T|%E"}; }

std::vector<std::string> sinfo_nodes_argv(const std::string& node) {
  auto argv = sinfo_nodes_argv();
  argv.push_back("--nodes=" + node);
  return argv;
}

std::vector<std::string> sinfo_partitions_argv(const std::string& node) {
  return {"sinfo", "--noheader", "--Node", "--nodes=" + node, "--format=%P"};
}

std::vector<std::string> sinfo_partition_nodes_argv(const std::vector<std::string>& partitions) {
  std::string list;
  for (const auto& p : partitions) list += (list.empty() ? "" : ",") + p;
  auto argv = sinfo_nodes_argv();
  argv.push_back("--partition=" + list);
  return argv;
}

std::vector<std::string> parse_sinfo_partitions(const std::string& out) {
  std::vector<std::string> parts;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (std::isspace(static_cast<unsigned char>(line.back())) || line.back() == '*')) line.pop_back();
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.erase(line.begin());
    if (!line.empty() && std::find(parts.begin(), parts.end(), line) == parts.end()) parts.push_back(line);
  }
  return parts;
}

bool NodeState::drained() const {
  std::string s = state;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s.find("drain") != std::string::npos;
}

bool NodeState::drained_by_gpuaccept() const { return drained() && reason.rfind(kDrainReasonPrefix, 0) == 0; }

std::vector<NodeState> parse_sinfo_nodes(const std::string& out) {
  std::vector<NodeState> nodes;
  std::set<std::string> seen;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    const auto a = line.find('|');
    if (a == std::string::npos) continue;
    const auto b = line.find('|', a + 1);
    NodeState n;
    n.name = line.substr(0, a);
    n.state = b == std::string::npos ? line.substr(a + 1) : line.substr(a + 1, b - a - 1);
    n.reason = b == std::string::npos ? "" : line.substr(b + 1);
    while (!n.name.empty() && std::isspace(static_cast<unsigned char>(n.name.back()))) n.name.pop_back();
    if (!n.name.empty() && seen.insert(n.name).second) nodes.push_back(std::move(n));
  }
  return nodes;
}

DrainReason parse_drain_reason(const std::string& reason) {
  DrainReason d;
  const std::string prefix = std::string(kDrainReasonPrefix) + " ";
  if (reason.rfind(prefix, 0) != 0) return d;
  d.ours = true;
  std::string rest = reason.substr(prefix.size());
  auto add = [&](std::string c) {
    while (!c.empty() && c.back() == ' ') c.pop_back();
    if (!c.empty() && std::find(d.criteria.begin(), d.criteria.end(), c) == d.criteria.end()) d.criteria.push_back(c);
  };
  const std::string health = std::string(kHealthDrainReason) + " ";
  if (rest.rfind(health, 0) == 0) {
    d.health = true;
    rest = rest.substr(health.size());
    std::istringstream words(rest);
    std::string w;
    while (words >> w) {
      if (w == "...") d.cut = true;
      else if (w[0] == '[') break;  // the Xid actions
      else add(w.substr(0, w.find('@')));
    }
    return d;
  }
  const auto open = rest.rfind(" (");
  if (open != std::string::npos && rest.back() == ')') {
    d.run = rest.substr(open + 2, rest.size() - open - 3);
    rest = rest.substr(0, open);
  }
  if (const auto acts = rest.find(" ["); acts != std::string::npos) rest = rest.substr(0, acts);
  std::istringstream list(rest);
  std::string c;
  while (std::getline(list, c, ',')) add(c);
  if (d.run.empty()) d.cut = true;  // a drain's reason ends with its run: without it, it was cut or edited
  return d;
}

std::string shell_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& w : argv) {
    if (!s.empty()) s += ' ';
    if (plain(w)) {
      s += w;
      continue;
    }
    const auto eq = w.find('=');
    if (eq != std::string::npos && eq > 0 && plain(w.substr(0, eq + 1))) {
      s += w.substr(0, eq + 1) + double_quoted(w.substr(eq + 1));
      continue;
    }
    s += double_quoted(w);
  }
  return s;
}

}  // namespace ga::launch
