// The criteria file parser. Every mistake is reported with the line it sits on, because a
// criteria file is a contract that people edit by hand and then hand to someone else.
#include "suites/criteria.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "base/utf8.hpp"
#include "suites/embedded_data.hpp"
#include "topology/place.hpp"

namespace ga {

namespace {

constexpr int kCriteriaSchemaVersion = 1;
constexpr const char* kBuiltinName = "criteria-default.yaml";
constexpr const char* kProfilePrefix = "criteria-profile-";

const std::vector<std::string>& criterion_keys() {
  static const std::vector<std::string> keys = {"name",  "metric",   "compare",     "value",    "low",  "high",
                                                "pct",   "k",        "floor_pct",   "floor",    "scope",    "where",
                                                "severity", "required", "unit",     "description", "source",
                                                "derivation"};
  return keys;
}

const std::vector<std::string>& top_keys() {
  static const std::vector<std::string> keys = {"schema_version", "criteria", "description"};
  return keys;
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// Reads one YAML document and turns it into criteria; `file` names the source in errors.
class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)) {}

  CriteriaSet parse(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
      throw CriteriaError(file_, e.mark.line + 1, "malformed YAML: " + e.msg);
    }
    if (!root.IsMap()) fail(root, "a criteria file is a map with schema_version and criteria");
    check_keys(root, top_keys(), "top level");
    const YAML::Node version = lookup(root, "schema_version");
    if (!version) fail(root, "no schema_version (this program reads schema_version: 1)");
    int v = 0;
    if (!version.IsScalar() || !YAML::convert<int>::decode(version, v) || v != kCriteriaSchemaVersion)
      fail(version, "schema_version " + scalar_text(version) + " is not supported (this program reads " +
                        std::to_string(kCriteriaSchemaVersion) + ")");
    CriteriaSet set;
    set.source = file_;
    if (const YAML::Node d = lookup(root, "description")) set.description = this->text(d, "description");
    const YAML::Node list = lookup(root, "criteria");
    if (!list) fail(root, "no criteria list");
    if (list.IsNull()) return set;  // `criteria:` with nothing under it: an empty contract
    if (!list.IsSequence()) fail(list, "criteria must be a list of criteria (each item starts with '- name:')");
    for (const auto& item : list) {
      Criterion c = criterion(item);
      for (const auto& prior : set.criteria)
        if (prior.name == c.name)
          fail(item, "duplicate criterion name \"" + c.name + "\" (first defined on line " +
                         std::to_string(prior.line) + ")");
      set.criteria.push_back(std::move(c));
    }
    return set;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    throw CriteriaError(file_, line_of(at), what);
  }
  static int line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

  static std::string scalar_text(const YAML::Node& n) {
    return n.IsScalar() ? "\"" + n.Scalar() + "\"" : std::string("(not a single value)");
  }

  // yaml-cpp keeps duplicate keys, and operator[] would silently take the first: look up by
  // iteration so that check_keys can reject the duplicates instead.
  static YAML::Node lookup(const YAML::Node& map, const std::string& key) {
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
    return YAML::Node(YAML::NodeType::Undefined);
  }

  void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& where) const {
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
      bool ok = false;
      for (const auto& a : allowed) ok = ok || a == key;
      if (!ok) fail(it->first, "unknown key \"" + key + "\" in " + where + " (allowed: " + join(allowed) + ")");
      if (!seen.insert(key).second) fail(it->first, "key \"" + key + "\" given twice in " + where);
    }
  }

  std::string text(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key + " must be a single value");
    return n.Scalar();
  }

  // A plain (unquoted) scalar that reads as a number. Quoted scalars stay text, so that
  // `value: "12.4"` compares a version string, not a number.
  static std::optional<double> number(const YAML::Node& n) {
    if (!n.IsScalar() || n.Tag() == "!") return std::nullopt;
    double d = 0;
    if (!YAML::convert<double>::decode(n, d) || !std::isfinite(d)) return std::nullopt;
    return d;
  }

  Bound bound(const YAML::Node& n, const std::string& key, Comparator cmp) const {
    Bound b;
    if (n.IsMap()) {
      check_keys(n, {"fraction", "of"}, key);
      const YAML::Node f = lookup(n, "fraction"), of = lookup(n, "of");
      if (!of) fail(n, key + ": {fraction, of} needs `of` (median, majority, expected or a topology.* feature)");
      b.of = text(of, "of");
      if (b.of != "median" && b.of != "majority" && b.of != "expected" && b.of.rfind("topology.", 0) != 0)
        fail(of, key + ": of \"" + b.of + "\" is not median, majority, expected or a topology.* feature");
      if (f) {
        auto d = number(f);
        if (!d || *d <= 0) fail(f, key + ": fraction must be a positive number, got " + scalar_text(f));
        b.fraction = *d;
      }
      return b;
    }
    if (!n.IsScalar()) fail(n, key + " must be a number, a text, majority, expected or {fraction: F, of: NAME}");
    const bool quoted = n.Tag() == "!";
    if (!quoted && (n.Scalar() == "majority" || n.Scalar() == "expected")) {
      b.of = n.Scalar();
      return b;
    }
    if (!quoted && n.Scalar() == "median") {
      if (cmp == Comparator::equals) fail(n, key + ": equals median is almost never true; use within_pct_of_median");
      b.of = "median";
      return b;
    }
    if (auto d = number(n)) {
      b.number = *d;
      return b;
    }
    if (cmp != Comparator::equals)
      fail(n, key + " \"" + n.Scalar() + "\" is not a number (text values are only for compare: equals)");
    b.text = n.Scalar();
    return b;
  }

  static std::optional<Comparator> comparator(const std::string& s) {
    for (auto c : {Comparator::ge, Comparator::le, Comparator::between, Comparator::equals,
                   Comparator::within_pct_of_median, Comparator::mad_outlier})
      if (s == to_string(c)) return c;
    return std::nullopt;
  }

  nlohmann::json where(const YAML::Node& n) const {
    if (!n.IsMap()) fail(n, "where must be a map of sample parameters, e.g. {size: 4194304}");
    nlohmann::json out = nlohmann::json::object();
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string key = text(it->first, "a where key");
      if (out.contains(key)) fail(it->first, "where: key \"" + key + "\" given twice");
      const YAML::Node v = it->second;
      if (!v.IsScalar()) fail(v, "where: " + key + " must be a single value");
      // Typed like the JSON the probes wrote: integers stay integers so that they compare
      // equal to the journal's params; quoted values stay text.
      long long i = 0;
      double d = 0;
      bool bl = false;
      if (v.Tag() == "!") out[key] = v.Scalar();
      else if (YAML::convert<long long>::decode(v, i)) out[key] = i;
      else if (YAML::convert<double>::decode(v, d)) out[key] = d;
      else if (YAML::convert<bool>::decode(v, bl)) out[key] = bl;
      else out[key] = v.Scalar();
    }
    return out;
  }

  Criterion criterion(const YAML::Node& item) const {
    if (!item.IsMap()) fail(item, "each criterion is a map (name, metric, compare, ...)");
    Criterion c;
    c.line = line_of(item);
    check_keys(item, criterion_keys(), "a criterion");
    const YAML::Node name = lookup(item, "name");
    if (!name) fail(item, "criterion without a name");
    c.name = text(name, "name");
    if (c.name.empty()) fail(name, "empty criterion name");
    const std::string who = "criterion \"" + c.name + "\": ";

    const YAML::Node metric = lookup(item, "metric");
    if (!metric) fail(item, who + "no metric (\"<probe>.<name>\", e.g. hostmem.triad_bw)");
    c.metric = text(metric, "metric");
    const auto dot = c.metric.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == c.metric.size())
      fail(metric, who + "metric \"" + c.metric + "\" is not \"<probe>.<name>\"");
    // A trailing `*` stands for every metric with that prefix (inventory.version.*).
    const auto star = c.metric.find('*');
    if (star != std::string::npos && star + 1 != c.metric.size())
      fail(metric, who + "metric \"" + c.metric + "\": `*` may only end a metric name");

    const YAML::Node cmp = lookup(item, "compare");
    const std::string closed = "\">=\", \"<=\", between, equals, within_pct_of_median, mad_outlier";
    if (!cmp) fail(item, who + "no compare (one of " + closed + ")");
    auto op = comparator(text(cmp, "compare"));
    if (!op) fail(cmp, who + "unknown comparator \"" + cmp.Scalar() + "\" (one of " + closed + ")");
    c.comparator = *op;

    const YAML::Node value = lookup(item, "value"), low = lookup(item, "low"), high = lookup(item, "high"),
                     pct = lookup(item, "pct"), k = lookup(item, "k"), floor_pct = lookup(item, "floor_pct"),
                     floor_abs = lookup(item, "floor");
    const std::string opname = to_string(c.comparator);
    auto forbid = [&](const YAML::Node& n, const char* key) {
      if (n) fail(n, who + key + " does not apply to compare: " + opname);
    };
    switch (c.comparator) {
      case Comparator::ge:
      case Comparator::le:
      case Comparator::equals:
        if (!value) fail(item, who + "compare: " + opname + " needs a value");
        c.value = bound(value, "value", c.comparator);
        forbid(low, "low"), forbid(high, "high"), forbid(pct, "pct");
        forbid(k, "k"), forbid(floor_pct, "floor_pct"), forbid(floor_abs, "floor");
        break;
      case Comparator::between:
        if (!low) fail(item, who + "compare: between needs low (and high)");
        if (!high) fail(item, who + "compare: between needs high (and low)");
        c.low = bound(low, "low", c.comparator);
        c.high = bound(high, "high", c.comparator);
        if (c.low.number && c.high.number && *c.low.number > *c.high.number)
          fail(high, who + "high is below low");
        forbid(value, "value"), forbid(pct, "pct");
        forbid(k, "k"), forbid(floor_pct, "floor_pct"), forbid(floor_abs, "floor");
        break;
      case Comparator::within_pct_of_median: {
        if (!pct) fail(item, who + "compare: within_pct_of_median needs pct (allowed deviation, in percent)");
        auto d = number(pct);
        if (!d || *d <= 0) fail(pct, who + "pct must be a positive number, got " + scalar_text(pct));
        c.pct = *d;
        forbid(value, "value"), forbid(low, "low"), forbid(high, "high");
        forbid(k, "k"), forbid(floor_pct, "floor_pct"), forbid(floor_abs, "floor");
        break;
      }
      case Comparator::mad_outlier: {
        // Both are required: a k alone fails a place 0.1% off a cluster whose places agree to
        // the last digit (MAD 0), and a floor alone is within_pct_of_median.
        if (!k) fail(item, who + "compare: mad_outlier needs k (allowed distance from the median, in scaled MADs)");
        // A count whose median is 0 (retransmissions on a clean fabric) needs its floor in
        // the metric's own unit (floor): no percentage of 0 allows anything.
        if (!floor_pct && !floor_abs)
          fail(item, who + "compare: mad_outlier needs floor_pct (the distance from the median always allowed, in "
                           "percent of it, so that a cluster whose places agree exactly does not fail one 0.1% off) "
                           "or floor (that distance in the metric's unit)");
        auto dk = number(k);
        if (!dk || *dk <= 0) fail(k, who + "k must be a positive number, got " + scalar_text(k));
        if (floor_pct) {
          auto df = number(floor_pct);
          if (!df || *df < 0) fail(floor_pct, who + "floor_pct must be a number >= 0, got " + scalar_text(floor_pct));
          c.floor_pct = *df;
        }
        if (floor_abs) {
          auto da = number(floor_abs);
          if (!da || *da < 0) fail(floor_abs, who + "floor must be a number >= 0, got " + scalar_text(floor_abs));
          c.floor = *da;
        }
        c.k = *dk;
        forbid(value, "value"), forbid(low, "low"), forbid(high, "high"), forbid(pct, "pct");
        break;
      }
    }

    if (const YAML::Node n = lookup(item, "scope")) {
      c.scope = text(n, "scope");
      if (!place::kind_from_string(c.scope))
        fail(n, who + "scope \"" + c.scope + "\" is not one of host, numa, gpu, nic, pair, cluster");
    }
    if (const YAML::Node n = lookup(item, "where")) c.where = where(n);
    if (const YAML::Node n = lookup(item, "severity")) {
      const std::string s = text(n, "severity");
      if (s == "error") c.severity = Severity::error;
      else if (s == "warning") c.severity = Severity::warning;
      else fail(n, who + "severity \"" + s + "\" is not error or warning");
    }
    if (const YAML::Node n = lookup(item, "required")) {
      const std::string s = text(n, "required");
      bool b = false;
      if (s == "auto") c.required = Required::automatic;
      else if (YAML::convert<bool>::decode(n, b)) c.required = b ? Required::yes : Required::no;
      else fail(n, who + "required \"" + s + "\" is not auto, true or false");
    }
    if (const YAML::Node n = lookup(item, "unit")) c.unit = text(n, "unit");
    if (const YAML::Node n = lookup(item, "description")) c.description = text(n, "description");
    if (const YAML::Node n = lookup(item, "source")) c.source = text(n, "source");
    if (const YAML::Node n = lookup(item, "derivation")) c.derivation = text(n, "derivation");
    return c;
  }

  std::string file_;
};

}  // namespace

const char* to_string(Comparator c) {
  switch (c) {
    case Comparator::ge: return ">=";
    case Comparator::le: return "<=";
    case Comparator::between: return "between";
    case Comparator::equals: return "equals";
    case Comparator::within_pct_of_median: return "within_pct_of_median";
    case Comparator::mad_outlier: return "mad_outlier";
  }
  return "?";
}

const char* to_string(Severity s) { return s == Severity::warning ? "warning" : "error"; }

nlohmann::json Bound::to_json() const {
  if (!of.empty()) return {{"of", of}, {"fraction", fraction}};
  if (number) return {{"value", *number}};
  if (text) return {{"text", *text}};
  return nullptr;
}

CriteriaSet parse_criteria(const std::string& yaml_text, const std::string& source) {
  // YAML is Unicode text, and the run records this text in its journal (JSON, UTF-8 only).
  if (int line = base::first_non_utf8_line(yaml_text))
    throw CriteriaError(source, line, "not UTF-8 text (a criteria file is YAML, UTF-8)");
  if (int line = base::first_control_char_line(yaml_text))
    throw CriteriaError(source, line, "control character (a NUL or other byte below 0x20) not allowed in YAML");
  return Parser(source).parse(yaml_text);
}

CriteriaSet load_criteria_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CriteriaError(path, 0, "cannot open the criteria file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_criteria(ss.str(), path);
}

std::string criteria_subset_text(const std::string& text, const std::string& source,
                                 const std::vector<std::string>& names, const std::vector<std::string>& as_error,
                                 const std::string& description) {
  const CriteriaSet all = parse_criteria(text, source);  // a bad file fails here, with its line
  for (const auto& n : names)
    if (std::none_of(all.criteria.begin(), all.criteria.end(), [&](const Criterion& c) { return c.name == n; }))
      throw CriteriaError(source, 0, "no criterion named \"" + n + "\"");
  const auto listed = [](const std::vector<std::string>& v, const std::string& n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  const YAML::Node root = YAML::Load(text);
  YAML::Node picked(YAML::NodeType::Sequence);
  for (const auto& item : root["criteria"]) {
    const std::string name = item["name"].as<std::string>();
    if (!listed(names, name)) continue;
    YAML::Node c = YAML::Clone(item);
    if (listed(as_error, name)) c["severity"] = "error";
    picked.push_back(c);
  }
  YAML::Node out;
  out["schema_version"] = kCriteriaSchemaVersion;
  out["description"] = description;
  out["criteria"] = picked;
  YAML::Emitter e;
  e << out;
  return std::string(e.c_str()) + "\n";
}

const std::string& builtin_criteria_text() {
  // Built once from the compiled-in table; the table itself is constant, so this is not
  // mutable state, only a cached copy of a constant.
  // criteria-default.yaml, then each probe family's criteria-default-<family>.yaml appended
  // to its list: those files hold only list items, so each family's thresholds live beside
  // each other and a new probe adds a file rather than editing a shared one.
  static const std::string text = [] {
    std::string out;
    for (const auto& f : embedded_files())
      if (std::string(f.name) == kBuiltinName) out = f.text;
    for (const auto& f : embedded_files()) {
      const std::string n = f.name;
      if (n != kBuiltinName && n.rfind("criteria-default-", 0) == 0) {
        if (!out.empty() && out.back() != '\n') out += '\n';
        out += "\n# ---- from " + n + "\n" + f.text;
      }
    }
    return out;
  }();
  return text;
}

namespace {

// A criterion's scope and where against what its metric's declaration says it offers: a scope
// or key it never carries would select nothing, and the clause would drop out of the contract
// as "skipped" (issue 32). A glob passes when any metric it covers could match.
void check_places(const CriteriaSet& set, const Criterion& c, const MetricCatalogue& catalogue) {
  const bool glob = !c.metric.empty() && c.metric.back() == '*';
  std::vector<const MetricDecl*> decls;
  if (glob) {
    const std::string prefix = c.metric.substr(0, c.metric.size() - 1);
    for (const auto& d : catalogue.all())
      if (d.decl.id.compare(0, prefix.size(), prefix) == 0) decls.push_back(&d.decl);
  } else if (const auto* d = catalogue.find(c.metric)) {
    decls.push_back(&d->decl);
  }
  if (decls.empty()) return;
  const std::string what = glob ? "no metric of " + c.metric : c.metric;
  if (!c.scope.empty()) {
    const auto kind = place::kind_from_string(c.scope);
    if (kind && std::none_of(decls.begin(), decls.end(), [&](const MetricDecl* d) { return d->emitted_at(*kind); })) {
      std::string offers;
      for (const auto* d : decls)
        for (auto k : d->places)
          if (offers.find(place::to_string(k)) == std::string::npos) offers += (offers.empty() ? "" : ", ") + std::string(place::to_string(k));
      throw CriteriaError(set.source, c.line,
                          "criterion " + c.name + ": " + what + " is emitted at " + offers + ", not " + c.scope +
                              " (scope " + c.scope + " would select nothing)");
    }
  }
  if (c.where.is_object())
    for (auto it = c.where.begin(); it != c.where.end(); ++it) {
      const std::string key = it.key();  // a plain string: clang lets no lambda capture a structured binding
      if (std::any_of(decls.begin(), decls.end(), [&](const MetricDecl* d) { return d->may_carry(key); })) continue;
      std::string keys;
      for (const auto* d : decls)
        if (d->param_keys)
          for (const auto& k : *d->param_keys)
            if (keys.find(k) == std::string::npos) keys += (keys.empty() ? "" : ", ") + k;
      throw CriteriaError(set.source, c.line,
                          "criterion " + c.name + ": where " + key + ": " + what + " carries no param " + key + " (" +
                              (keys.empty() ? std::string("it carries none") : "it carries " + keys) +
                              "; the criterion would select nothing)");
    }
}

}  // namespace

void check_criteria_metrics(const CriteriaSet& set, const MetricCatalogue& catalogue) {
  for (const auto& c : set.criteria) {
    const bool glob = !c.metric.empty() && c.metric.back() == '*';
    if (glob ? catalogue.covers_glob(c.metric) : catalogue.find(c.metric) != nullptr) {
      check_places(set, c, catalogue);
      continue;
    }
    std::string msg = "criterion " + c.name + ": metric " + c.metric + " is declared by no probe";
    const auto near = catalogue.near(c.metric);
    for (std::size_t i = 0; i < near.size(); ++i) msg += (i ? ", " : "; did you mean ") + near[i];
    if (!near.empty()) msg += "?";
    msg += " (gpuaccept list --metrics shows them all)";
    throw CriteriaError(set.source, c.line, msg);
  }
}

bool shipped_criterion(const Criterion& c) {
  // Parsed once, read only after: the shipped files do not change while the process runs.
  static const std::set<std::string> shipped = [] {
    std::set<std::string> keys;
    auto add = [&](const CriteriaSet& set) {
      for (const auto& k : set.criteria) keys.insert(k.name + "\n" + k.metric + "\n" + k.scope + "\n" + k.where.dump());
    };
    add(parse_criteria(builtin_criteria_text(), "builtin"));
    for (const auto& name : criteria_profile_names()) {
      const auto p = criteria_profile(name);
      add(parse_criteria(p.file_text, name));
    }
    return keys;
  }();
  return shipped.count(c.name + "\n" + c.metric + "\n" + c.scope + "\n" + c.where.dump()) > 0;
}

std::vector<std::string> criteria_profile_names() {
  std::vector<std::string> names;
  const std::string prefix = kProfilePrefix, suffix = ".yaml";
  for (const auto& f : embedded_files()) {
    const std::string n = f.name;
    if (n.rfind(prefix, 0) == 0 && n.size() > prefix.size() + suffix.size())
      names.push_back(n.substr(prefix.size(), n.size() - prefix.size() - suffix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

CriteriaProfile criteria_profile(const std::string& name) {
  const std::string file = kProfilePrefix + name + ".yaml";
  const EmbeddedFile* found = nullptr;
  for (const auto& f : embedded_files())
    if (file == f.name) found = &f;
  if (!found) throw std::invalid_argument("unknown criteria profile \"" + name + "\" (known: " +
                                          join(criteria_profile_names()) + ")");
  CriteriaProfile p;
  p.name = name;
  p.file_text = found->text;
  // The profile file is a criteria file of its own (it parses alone, with its description);
  // its list is appended to the built-in criteria as the family files are, so that the text a
  // run records is one file, with every comment that says why, and `judge DIR` reads it back.
  const CriteriaSet own = parse_criteria(p.file_text, file);
  p.description = own.description;
  const std::string marker = "\ncriteria:\n";
  const auto at = p.file_text.find(marker);
  if (at == std::string::npos) throw CriteriaError(file, 0, "a profile's list must start on a line `criteria:`");
  p.text = builtin_criteria_text();
  if (!p.text.empty() && p.text.back() != '\n') p.text += '\n';
  p.text += "\n# ---- profile " + name + " (" + file + "): " + p.description + "\n" +
            p.file_text.substr(at + marker.size());
  p.source = "builtin + profile " + name;
  return p;
}

}  // namespace ga
