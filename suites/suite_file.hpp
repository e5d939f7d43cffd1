// Suites say what to run: which probes, in which order, with which parameters.
// Built-in suites ship inside the binary (suites/data/suite-*.yaml); a path names a file.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ga {

struct SuiteProbe {
  std::string name;
  nlohmann::json params = nlohmann::json::object();
  int line = 0;                              // of the probe's entry in the suite file
  std::map<std::string, int> param_lines;    // key -> its line in the file; absent: set by --set
};

struct Suite {
  std::string name;
  std::string description;
  std::string source;                   // "builtin" or the file path
  std::vector<SuiteProbe> probes;
  nlohmann::json to_json() const;
};

struct SuiteError : std::runtime_error {
  SuiteError(const std::string& file, int line, const std::string& what)
      : std::runtime_error(file + (line > 0 ? ":" + std::to_string(line) : std::string{}) + ": " + what) {}
};

// A path to an existing file, else the name of a built-in suite. Throws SuiteError.
Suite load_suite(const std::string& name_or_path);
Suite parse_suite(const std::string& yaml_text, const std::string& source);
std::vector<std::string> builtin_suite_names();

// `probe.key=value` overrides from the command line (--set), applied to every matching probe.
void apply_override(Suite&, const std::string& assignment);  // throws SuiteError

}  // namespace ga
