#include "suites/suite_file.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

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

nlohmann::json to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& kv : n) j[kv.first.as<std::string>()] = to_json(kv.second);
      return j;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& v : n) j.push_back(to_json(v));
      return j;
    }
    case YAML::NodeType::Scalar: return scalar_json(n.Scalar());
    default: return nullptr;
  }
}

}  // namespace

nlohmann::json Suite::to_json() const {
  nlohmann::json ps = nlohmann::json::array();
  for (const auto& p : probes) ps.push_back({{"name", p.name}, {"params", p.params}});
  return {{"name", name}, {"description", description}, {"source", source}, {"probes", ps}};
}

Suite parse_suite(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw SuiteError(source, e.mark.line + 1, e.msg);
  }
  if (!root.IsMap()) throw SuiteError(source, 1, "a suite is a mapping with name and probes");
  static const std::set<std::string> allowed = {"schema_version", "name", "description", "probes"};
  for (const auto& kv : root) {
    auto key = kv.first.as<std::string>();
    if (!allowed.count(key))
      throw SuiteError(source, line_of(kv.first), "unknown key \"" + key + "\" (allowed: schema_version, name, description, probes)");
  }
  if (root["schema_version"] && root["schema_version"].as<std::string>() != "1")
    throw SuiteError(source, line_of(root["schema_version"]), "schema_version must be 1");
  Suite s;
  s.source = source;
  s.name = root["name"] ? root["name"].as<std::string>() : std::filesystem::path(source).stem().string();
  if (root["description"]) s.description = root["description"].as<std::string>();
  const auto probes = root["probes"];
  if (!probes || !probes.IsSequence() || probes.size() == 0)
    throw SuiteError(source, line_of(probes ? probes : root), "\"probes\" must be a non-empty list");
  std::set<std::string> seen;
  for (const auto& p : probes) {
    SuiteProbe sp;
    sp.line = line_of(p);
    if (p.IsScalar()) {
      sp.name = p.as<std::string>();
    } else if (p.IsMap()) {
      for (const auto& kv : p) {
        auto key = kv.first.as<std::string>();
        if (key != "name" && key != "params")
          throw SuiteError(source, line_of(kv.first), "unknown key \"" + key + "\" in a probe entry (allowed: name, params)");
      }
      if (!p["name"]) throw SuiteError(source, line_of(p), "probe entry without a name");
      sp.name = p["name"].as<std::string>();
      if (p["params"]) {
        if (!p["params"].IsMap()) throw SuiteError(source, line_of(p["params"]), "params must be a mapping");
        sp.params = to_json(p["params"]);
        for (const auto& kv : p["params"]) sp.param_lines[kv.first.as<std::string>()] = line_of(kv.first);
      }
    } else {
      throw SuiteError(source, line_of(p), "a probe entry is a name or a mapping with name and params");
    }
    if (!seen.insert(sp.name).second) throw SuiteError(source, line_of(p), "probe \"" + sp.name + "\" listed twice");
    s.probes.push_back(std::move(sp));
  }
  return s;
}

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
