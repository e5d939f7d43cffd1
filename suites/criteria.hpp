// Criteria are data: a YAML file (docs/criteria.md), parsed into a closed set of comparisons.
#pragma once
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/declare.hpp"

namespace ga {

// mad_outlier: a robust outlier test against the places the criterion selects (median and
// median absolute deviation), see docs/criteria.md.
enum class Comparator { ge, le, between, equals, within_pct_of_median, mad_outlier };
enum class Severity { error, warning };
// auto: required when the expected topology has things of the criterion's scope (GPUs for
// scope gpu, NICs for scope nic) or when some hosts produced the metric; yes/no: as stated.
enum class Required { automatic, yes, no };

const char* to_string(Comparator);
const char* to_string(Severity);

// A bound: an absolute number, a literal text (for equals), or a fraction of a reference:
//   a quantity derived from the place's topology (`of: gpu_count`, `nic_rate` ...),
//   `majority` (the most common value among places of the same kind),
//   `expected` (the same quantity in --expect-topology).
struct Bound {
  std::optional<double> number;
  std::optional<std::string> text;
  std::string of;                       // empty when absolute
  double fraction = 1.0;
  nlohmann::json to_json() const;
};

struct Criterion {
  std::string name;
  std::string metric;                   // "<probe>.<name>"
  Comparator comparator = Comparator::ge;
  Bound value;                          // ge, le, equals
  Bound low, high;                      // between
  double pct = 0;                       // within_pct_of_median
  double k = 0;                         // mad_outlier: allowed distance from the median in scaled MADs
  double floor_pct = 0;                 // mad_outlier: the distance always allowed, in % of the median
  double floor = 0;                     // mad_outlier: the distance always allowed, in the metric's unit
  Severity severity = Severity::error;
  Required required = Required::automatic;
  std::string scope;                    // place kind filter: host|numa|gpu|nic|pair|cluster; "" any
  nlohmann::json where = nlohmann::json::object();  // sample params that must match
  std::string unit;                     // optional; when given must match the samples' unit
  std::string description;
  std::string source;                   // optional: the published figure a threshold comes from
  std::string derivation;               // optional: how the threshold follows from it
  int line = 0;                         // line in the source file, for messages
};

struct CriteriaSet {
  std::string source;                   // "builtin" or the file path
  std::string description;              // the file's own, if it has one
  std::vector<Criterion> criteria;
};

struct CriteriaError : std::runtime_error {
  CriteriaError(const std::string& file, int line, const std::string& what)
      : std::runtime_error(file + ":" + std::to_string(line) + ": " + what), file(file), line(line) {}
  std::string file;
  int line;
};

CriteriaSet parse_criteria(const std::string& yaml_text, const std::string& source);  // throws CriteriaError
CriteriaSet load_criteria_file(const std::string& path);                              // throws CriteriaError
const std::string& builtin_criteria_text();

// System profiles: the built-in criteria with absolute thresholds for one system layered on
// top (suites/data/criteria-profile-NAME.yaml, each threshold naming its source figure and
// derivation). A profile adds criteria; it replaces none, so the relative rules still hold.
struct CriteriaProfile {
  std::string name;                     // "h100-sxm-ndr"
  std::string description;              // the profile file's description
  std::string file_text;                // the profile file as compiled in
  std::string text;                     // the built-in criteria with the profile's appended: what a run records
  std::string source;                   // "builtin + profile NAME": what the reports name
};
std::vector<std::string> criteria_profile_names();  // sorted
// Throws std::invalid_argument naming the known profiles for a name that is not one.
CriteriaProfile criteria_profile(const std::string& name);

// The criteria of the file TEXT (read from SOURCE) that NAMES lists, in the file's order, as a
// criteria file of their own with DESCRIPTION: what `gpuaccept health` judges by and records in
// its journal, so that `gpuaccept judge DIR` re-judges it the same way. Those in AS_ERROR get
// severity error. The thresholds stay where they are defined; this only picks. Throws
// CriteriaError naming the first name the file lacks.
std::string criteria_subset_text(const std::string& text, const std::string& source,
                                 const std::vector<std::string>& names, const std::vector<std::string>& as_error,
                                 const std::string& description);

// Whether a criterion of the same name, metric, scope and where ships with gpuaccept (the
// built-in criteria, their families and every profile): a user's copy of one keeps its
// meaning, including that its metric may be absent where it does not apply.
bool shipped_criterion(const Criterion&);

// Every criterion must name a declared metric (or, as a glob, declared ones): a typo would
// otherwise be accepted and only show up as "missing" after a whole cluster run. Throws
// CriteriaError naming the file and the criterion's line, with the nearest declared ids.
void check_criteria_metrics(const CriteriaSet&, const MetricCatalogue&);

}  // namespace ga
