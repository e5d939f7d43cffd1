#include "probes/harness/topology_conf.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include "base/file_io.hpp"
#include "base/text.hpp"

namespace ga::isolation {

namespace {

[[noreturn]] void bad(const std::string& source, int line, const std::string& what) {
  throw std::invalid_argument(source + (line > 0 ? ":" + std::to_string(line) : "") + ": " + what);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string padded(unsigned long long v, std::size_t width) {
  std::string s = std::to_string(v);
  return s.size() < width ? std::string(width - s.size(), '0') + s : s;
}

// The names one bracket group stands for: "001-003,7" -> 001 002 003 7.
std::vector<std::string> expand_ranges(const std::string& inside, const std::string& expr) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= inside.size()) {
    const auto comma = inside.find(',', start);
    const std::string item = inside.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto dash = item.find('-');
    const std::string lo = item.substr(0, dash), hi = dash == std::string::npos ? lo : item.substr(dash + 1);
    if (!all_digits(lo) || !all_digits(hi) || lo.size() > 18 || hi.size() > 18)
      throw std::invalid_argument("hostlist \"" + expr + "\": \"" + item + "\" is not a number or a range N-M");
    const unsigned long long a = std::stoull(lo), b = std::stoull(hi);
    if (b < a) throw std::invalid_argument("hostlist \"" + expr + "\": range " + item + " runs backwards");
    if (b - a > 10000000) throw std::invalid_argument("hostlist \"" + expr + "\": range " + item + " is too long");
    for (unsigned long long v = a; v <= b; ++v) out.push_back(padded(v, lo.size()));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// One name of the list, perhaps with several bracket groups: their product, in order.
void expand_one(const std::string& name, const std::string& expr, std::size_t limit, std::vector<std::string>& out) {
  std::vector<std::string> acc{""};
  std::size_t i = 0;
  while (i < name.size()) {
    const auto open = name.find('[', i);
    const std::string lit = name.substr(i, open == std::string::npos ? std::string::npos : open - i);
    if (lit.find(']') != std::string::npos) throw std::invalid_argument("hostlist \"" + expr + "\": unbalanced ']'");
    for (auto& a : acc) a += lit;
    if (open == std::string::npos) break;
    const auto close = name.find(']', open);
    if (close == std::string::npos) throw std::invalid_argument("hostlist \"" + expr + "\": unbalanced '['");
    const auto alts = expand_ranges(name.substr(open + 1, close - open - 1), expr);
    if (acc.size() * alts.size() > limit)
      throw std::invalid_argument("hostlist \"" + expr.substr(0, 80) + "\" names more than " + std::to_string(limit) + " hosts");
    if (acc.size() * alts.size() * (acc.front().size() + alts.back().size() + name.size() - close) > kHostlistMaxBytes)
      throw std::invalid_argument("hostlist \"" + expr.substr(0, 80) + "\" expands to more than " +
                                  std::to_string(kHostlistMaxBytes >> 20) + " MiB of names");
    std::vector<std::string> next;
    next.reserve(acc.size() * alts.size());
    for (const auto& a : acc)
      for (const auto& b : alts) next.push_back(a + b);
    acc = std::move(next);
    i = close + 1;
  }
  if (out.size() + acc.size() > limit)
    throw std::invalid_argument("hostlist \"" + expr.substr(0, 80) + "\" names more than " + std::to_string(limit) + " hosts");
  out.insert(out.end(), acc.begin(), acc.end());
}

// Lines with comments removed and `\` continuations joined; each with its first line number.
std::vector<std::pair<int, std::string>> logical_lines(const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  std::string cur;
  int first = 0, n = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    ++n;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    const bool cont = !line.empty() && line.back() == '\\';
    if (cont) line.pop_back();
    if (cur.empty()) first = n;
    cur += cont ? line : line + " ";
    if (!cont) {
      if (!base::split_words(cur).empty()) out.emplace_back(first, cur);
      cur.clear();
    }
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  if (!base::split_words(cur).empty()) out.emplace_back(first, cur);
  return out;
}

void set_leaf(SwitchMap& m, const std::string& host, const std::string& leaf, const std::string& source, int line) {
  auto [it, fresh] = m.leaf_of.try_emplace(host, leaf);
  if (!fresh && it->second != leaf)
    bad(source, line, "host " + host + " is on leaf " + it->second + " and on leaf " + leaf);
}

void set_parent(SwitchMap& m, const std::string& sw, const std::string& parent, const std::string& source, int line) {
  if (sw == parent) bad(source, line, "switch " + sw + " is its own parent");
  auto [it, fresh] = m.parent_of.try_emplace(sw, parent);
  if (!fresh && it->second != parent)
    bad(source, line, "switch " + sw + " is under " + it->second + " and under " + parent);
}

// A parent chain that loops would make uplinks() spin: refuse it when reading.
void check_no_cycle(const SwitchMap& m, const std::string& source) {
  for (const auto& [sw, p] : m.parent_of) {
    std::set<std::string> seen{sw};
    for (auto it = m.parent_of.find(sw); it != m.parent_of.end(); it = m.parent_of.find(it->second))
      if (!seen.insert(it->second).second) bad(source, 0, "switch " + sw + " is above itself (a loop of Switches=)");
  }
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& expr, std::size_t limit) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : expr) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) throw std::invalid_argument("hostlist \"" + expr + "\": unbalanced ']'");
    if (c == ',' && depth == 0) {
      if (!cur.empty()) expand_one(cur, expr, limit, out);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) throw std::invalid_argument("hostlist \"" + expr + "\": unbalanced '['");
  if (!cur.empty()) expand_one(cur, expr, limit, out);
  return out;
}

std::vector<std::string> SwitchMap::uplinks(const std::string& leaf) const {
  std::vector<std::string> up;
  for (auto it = parent_of.find(leaf); it != parent_of.end() && up.size() < parent_of.size();
       it = parent_of.find(it->second))
    up.push_back(it->second);
  return up;
}

std::string SwitchMap::common_switch(const std::string& a, const std::string& b) const {
  const auto ua = uplinks(a), ub = uplinks(b);
  for (const auto& s : ua)
    if (std::find(ub.begin(), ub.end(), s) != ub.end()) return s;
  return "";
}

// The names a switch map's lists may still expand to (kSwitchMapMaxNames in all).
class NameBudget {
 public:
  std::vector<std::string> expand(const std::string& expr) {
    if (left_ == 0) throw std::invalid_argument("the map names more than " + std::to_string(kSwitchMapMaxNames) + " hosts and switches");
    auto names = expand_hostlist(expr, std::min(kHostlistMaxNames, left_));
    left_ -= names.size();
    return names;
  }

 private:
  std::size_t left_ = kSwitchMapMaxNames;
};

SwitchMap parse_topology_conf(const std::string& text, const std::string& source) {
  SwitchMap m;
  m.format = "topology.conf";
  NameBudget budget;
  for (const auto& [line, body] : logical_lines(text)) {
    std::string name, nodes, switches;
    bool has_nodes = false, has_switches = false;
    for (const auto& word : base::split_words(body)) {
      const auto eq = word.find('=');
      if (eq == std::string::npos) bad(source, line, "\"" + word + "\" is not KEY=VALUE");
      const std::string key = lower(word.substr(0, eq)), value = word.substr(eq + 1);
      if (key == "switchname") name = value;
      else if (key == "nodes") nodes = value, has_nodes = true;
      else if (key == "switches") switches = value, has_switches = true;
    }
    if (name.empty()) bad(source, line, "a line without SwitchName=");
    try {
      if (has_nodes)
        for (const auto& h : budget.expand(nodes)) set_leaf(m, h, name, source, line);
      if (has_switches)
        for (const auto& s : budget.expand(switches)) set_parent(m, s, name, source, line);
    } catch (const std::invalid_argument& e) {
      if (std::string(e.what()).rfind(source, 0) == 0) throw;
      bad(source, line, e.what());
    }
  }
  check_no_cycle(m, source);
  return m;
}

SwitchMap parse_switch_map(const std::string& text, const std::string& source) {
  SwitchMap m;
  m.format = "switch-map";
  NameBudget budget;
  for (const auto& [line, body] : logical_lines(text)) {
    const auto w = base::split_words(body);
    if (w.size() < 2) bad(source, line, "expected HOSTS LEAF [UPLINK...], got \"" + w[0] + "\"");
    try {
      for (const auto& h : budget.expand(w[0])) set_leaf(m, h, w[1], source, line);
    } catch (const std::invalid_argument& e) {
      if (std::string(e.what()).rfind(source, 0) == 0) throw;
      bad(source, line, e.what());
    }
    for (std::size_t i = 2; i < w.size(); ++i) set_parent(m, w[i - 1], w[i], source, line);
  }
  check_no_cycle(m, source);
  return m;
}

SwitchMap parse_switch_file(const std::string& text, const std::string& source) {
  for (const auto& [line, body] : logical_lines(text)) {
    const auto w = base::split_words(body);
    if (!w.empty() && lower(w[0]).rfind("switchname=", 0) == 0) return parse_topology_conf(text, source);
  }
  return parse_switch_map(text, source);
}

SwitchMap load_switch_file(const std::string& path) {
  std::vector<unsigned char> bytes;
  try {
    bytes = base::read_whole_file(path);
  } catch (const std::exception& e) {
    throw std::invalid_argument(path + ": cannot read the switch map: " + e.what());
  }
  return parse_switch_file(std::string(bytes.begin(), bytes.end()), path);
}

}  // namespace ga::isolation
