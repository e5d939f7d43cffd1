#include "suites/suite_file.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/utf8.hpp"
#include "suites/embedded_data.hpp"

namespace ga {

namespace {

int line_of(const YAML::Node& n) { return n.Mark().line + 1; }

// YAML scalars become numbers or booleans when they read as such, text otherwise.
nlohmann::json scalar_json(const std::string& s) {
  if (s == "true" || s == "yes") return true;
  if (s == "false" || s == "no") return false;
  try {
    std::size_t used = 0;
    long long i = std::stoll(s, &used);
    if (used == s.size()) return i;
    double d = std::stod(s, &used);
    if (used == s.size()) return d;
  } catch (const std::exception&) {
  }
  return s;
}

// A suite's params become JSON, which expands YAML aliases: a few lines of anchors referring to
// anchors ("billion laughs") would expand to gigabytes. No real suite has more than a few
// hundred values, so the count is bounded and the file refused past it.
// Nesting is bounded too: the journal reader refuses records deeper than 64 levels
// (probes/journal.cpp), and a run_start holds the params 5 levels down.
constexpr std::size_t kMaxParamValues = 100000;
constexpr int kMaxParamDepth = 32;

nlohmann::json to_json(const YAML::Node& n, const std::string& source, std::size_t& budget, int depth = 1) {
  if (budget == 0)
    throw SuiteError(source, line_of(n), "more than " + std::to_string(kMaxParamValues) +
                                             " parameter values (YAML aliases expanding?)");
  if (depth > kMaxParamDepth)
    throw SuiteError(source, line_of(n), "parameters nested deeper than " + std::to_string(kMaxParamDepth) + " levels");
  --budget;
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& kv : n) {
        if (!kv.first.IsScalar()) throw SuiteError(source, line_of(kv.first), "a parameter name must be a single value");
        j[kv.first.Scalar()] = to_json(kv.second, source, budget, depth + 1);
      }
      return j;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& v : n) j.push_back(to_json(v, source, budget, depth + 1));
      return j;
    }
    case YAML::NodeType::Scalar: return scalar_json(n.Scalar());
    default: return nullptr;
  }
}

// The text of a node that must be a single value, else an error naming its line.
std::string scalar(const YAML::Node& n, const std::string& source, const std::string& what) {
  if (!n.IsScalar()) throw SuiteError(source, line_of(n), what + " must be a single value");
  return n.Scalar();
}

Suite parse_suite_yaml(const YAML::Node& root, const std::string& source);

}  // namespace

nlohmann::json Suite::to_json() const {
  nlohmann::json ps = nlohmann::json::array();
  for (const auto& p : probes) ps.push_back({{"name", p.name}, {"params", p.params}});
  return {{"name", name}, {"description", description}, {"source", source}, {"probes", ps}};
}

Suite parse_suite(const std::string& text, const std::string& source) {
  // YAML is Unicode text, and the run records the suite in its journal (JSON, UTF-8 only).
  if (int line = base::first_non_utf8_line(text))
    throw SuiteError(source, line, "not UTF-8 text (a suite file is YAML, UTF-8)");
  if (int line = base::first_control_char_line(text))
    throw SuiteError(source, line, "control character (a NUL or other byte below 0x20) not allowed in YAML");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {  // DeepRecursion too: nesting past yaml-cpp's bound
    throw SuiteError(source, e.mark.line + 1, e.msg);
  }
  try {
    return parse_suite_yaml(root, source);
  } catch (const YAML::Exception& e) {
    // Every shape check below names its line; this keeps a missed one from escaping nameless.
    throw SuiteError(source, e.mark.line + 1, e.msg);
  }
}

namespace {

Suite parse_suite_yaml(const YAML::Node& root, const std::string& source) {
  if (!root.IsMap()) throw SuiteError(source, 1, "a suite is a mapping with name and probes");
  static const std::set<std::string> allowed = {"schema_version", "name", "description", "probes"};
  for (const auto& kv : root) {
    auto key = scalar(kv.first, source, "a key");
    if (!allowed.count(key))
      throw SuiteError(source, line_of(kv.first), "unknown key \"" + key + "\" (allowed: schema_version, name, description, probes)");
  }
  if (root["schema_version"] && scalar(root["schema_version"], source, "schema_version") != "1")
    throw SuiteError(source, line_of(root["schema_version"]), "schema_version must be 1");
  Suite s;
  s.source = source;
  s.name = root["name"] ? scalar(root["name"], source, "name") : std::filesystem::path(source).stem().string();
  if (root["description"]) s.description = scalar(root["description"], source, "description");
  const auto probes = root["probes"];
  if (!probes || !probes.IsSequence() || probes.size() == 0)
    throw SuiteError(source, line_of(probes ? probes : root), "\"probes\" must be a non-empty list");
  std::set<std::string> seen;
  std::size_t budget = kMaxParamValues;
  for (const auto& p : probes) {
    SuiteProbe sp;
    sp.line = line_of(p);
    if (p.IsScalar()) {
      sp.name = p.Scalar();
    } else if (p.IsMap()) {
      for (const auto& kv : p) {
        auto key = scalar(kv.first, source, "a key");
        if (key != "name" && key != "params")
          throw SuiteError(source, line_of(kv.first), "unknown key \"" + key + "\" in a probe entry (allowed: name, params)");
      }
      if (!p["name"]) throw SuiteError(source, line_of(p), "probe entry without a name");
      sp.name = scalar(p["name"], source, "a probe's name");
      if (p["params"]) {
        if (!p["params"].IsMap()) throw SuiteError(source, line_of(p["params"]), "params must be a mapping");
        sp.params = to_json(p["params"], source, budget);
        for (const auto& kv : p["params"]) sp.param_lines[kv.first.Scalar()] = line_of(kv.first);
      }
    } else {
      throw SuiteError(source, line_of(p), "a probe entry is a name or a mapping with name and params");
    }
    if (!seen.insert(sp.name).second) throw SuiteError(source, line_of(p), "probe \"" + sp.name + "\" listed twice");
    s.probes.push_back(std::move(sp));
  }
  return s;
}

}  // namespace

std::vector<std::string> builtin_suite_names() {
  std::vector<std::string> out;
  for (const auto& f : embedded_files()) {
    std::string n = f.name;
    if (n.rfind("suite-", 0) == 0) out.push_back(n.substr(6, n.size() - 6 - 5));
  }
  return out;
}

Suite load_suite(const std::string& name_or_path) {
  if (std::filesystem::is_regular_file(name_or_path)) {
    std::ifstream in(name_or_path);
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_suite(ss.str(), name_or_path);
  }
  for (const auto& f : embedded_files())
    if (std::string(f.name) == "suite-" + name_or_path + ".yaml") {
      auto s = parse_suite(f.text, "builtin:" + name_or_path);
      s.source = "builtin";
      return s;
    }
  std::string names;
  for (const auto& n : builtin_suite_names()) names += (names.empty() ? "" : ", ") + n;
  throw SuiteError(name_or_path, 0, "no such file and no built-in suite of that name (built-in: " + names + ")");
}

void apply_override(Suite& s, const std::string& a) {
  auto eq = a.find('=');
  auto dot = a.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq)
    throw SuiteError("--set", 0, "\"" + a + "\" is not of the form probe.key=value");
  const auto probe = a.substr(0, dot), key = a.substr(dot + 1, eq - dot - 1), value = a.substr(eq + 1);
  bool found = false;
  for (auto& p : s.probes)
    if (p.name == probe) {
      p.params[key] = scalar_json(value);
      p.param_lines.erase(key);  // from the command line now, not the file
      found = true;
    }
  if (!found) throw SuiteError("--set", 0, "probe \"" + probe + "\" is not in suite " + s.name);
}

}  // namespace ga
