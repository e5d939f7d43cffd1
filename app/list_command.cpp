// `gpuaccept list`: what this build can run, from the registry's declarations alone.
#include <cstdio>
#include <iostream>

#include "app/commands.hpp"
#include "base/quantity.hpp"
#include "probes/probe.hpp"
#include "suites/criteria.hpp"
#include "suites/suite_file.hpp"

namespace ga::app {

namespace {

// A Markdown cell: pipes would end it early.
std::string cell(std::string s) {
  for (std::size_t at = 0; (at = s.find('|', at)) != std::string::npos; at += 2) s.replace(at, 1, "\\|");
  return s;
}

std::string code(const std::string& s) { return s.empty() ? "" : "`" + s + "`"; }

std::string number_text(double v) {
  nlohmann::json j = v;
  if (v == static_cast<double>(static_cast<long long>(v))) j = static_cast<long long>(v);
  return j.dump();
}

std::string allowed(const ParamDecl& d) {
  std::string s;
  if (!d.choices.empty())
    for (const auto& c : d.choices) s += (s.empty() ? "" : ", ") + c;
  else if (d.min && d.max) s = number_text(*d.min) + " to " + number_text(*d.max);
  else if (d.min) s = ">= " + number_text(*d.min);
  else if (d.max) s = "<= " + number_text(*d.max);
  return s;
}

ProbeRegistry builtins() {
  ProbeRegistry reg;
  register_builtin_probes(reg);
  return reg;
}

// A criterion's bound as the profile table shows it, in the metric's unit.
std::string bound_cell(const Criterion& c, const MetricCatalogue& catalogue) {
  const DeclaredMetric* d = catalogue.find(c.metric);
  const std::string unit = d ? d->decl.unit : c.unit;
  auto one = [&](const Bound& b) {
    if (!b.of.empty()) return (b.fraction == 1.0 ? "" : base::format_number(b.fraction) + " x ") + b.of;
    if (b.number) {
      // The readable form (3 significant digits) where it is exact, else the number as written.
      char exact[32], short_form[32];
      std::snprintf(exact, sizeof exact, "%g", *b.number);
      std::snprintf(short_form, sizeof short_form, "%.3g", *b.number);
      // Bytes print in GiB: the datasheet's decimal GB stays beside them.
      if (unit == "B") return std::string(exact) + " B (" + base::format_quantity(*b.number, unit) + ")";
      if (std::string(exact) == short_form) return base::format_quantity(*b.number, unit);
      return std::string(exact) + (unit.empty() ? "" : " " + unit);
    }
    return "\"" + b.text.value_or("") + "\"";
  };
  switch (c.comparator) {
    case Comparator::between: return "between " + one(c.low) + " and " + one(c.high);
    case Comparator::within_pct_of_median: return "within " + base::format_number(c.pct) + "% of the median";
    case Comparator::mad_outlier:
      return "within " + base::format_number(c.k) + " scaled MADs of the median (floor " + base::format_number(c.floor_pct) + "%)";
    case Comparator::equals: return "= " + one(c.value);
    default: return std::string(to_string(c.comparator)) + " " + one(c.value);
  }
}

}  // namespace

std::string profiles_table() {
  const MetricCatalogue catalogue = catalogue_of(builtins());
  std::string t;
  for (const auto& name : criteria_profile_names()) {
    const CriteriaProfile p = criteria_profile(name);
    const CriteriaSet own = parse_criteria(p.file_text, "criteria-profile-" + name + ".yaml");
    t += (t.empty() ? "" : "\n") + std::string("### `") + name + "`\n\n" + p.description + "\n\n" +
         "| criterion | metric | threshold | where | severity | source | derivation |\n|---|---|---|---|---|---|---|\n";
    for (const auto& c : own.criteria) {
      std::string where = c.scope.empty() ? "" : "scope " + c.scope;
      if (!c.where.empty()) where += (where.empty() ? "" : ", ") + c.where.dump();
      if (c.required == Required::yes) where += (where.empty() ? "" : ", ") + std::string("required");
      t += "| " + code(c.name) + " | " + code(c.metric) + " | " + cell(bound_cell(c, catalogue)) + " | " + cell(where) +
           " | " + to_string(c.severity) + " | " + cell(c.source) + " | " + cell(c.derivation) + " |\n";
    }
  }
  return t;
}

std::string metrics_table() {
  // `at` and `params` are what a criterion's scope and where may name (checked before a run).
  std::string t = "| metric | probe | unit | better | combine | at | params | what |\n|---|---|---|---|---|---|---|---|\n";
  const ProbeRegistry reg = builtins();
  const MetricCatalogue catalogue = catalogue_of(reg);
  for (const auto& d : catalogue.all()) {
    std::string keys;
    if (d.decl.param_keys)
      for (const auto& k : *d.decl.param_keys) keys += (keys.empty() ? "" : ", ") + k;
    t += "| " + code(d.decl.id) + " | " + d.probe + " | " + code(d.decl.unit) + " | " + to_string(d.decl.better) +
         " | " + to_string(d.decl.combine) + " | " + places_text(d.decl) + " | " + cell(keys) + " | " +
         cell(d.decl.summary) + " |\n";
  }
  return t;
}

std::string params_table() {
  std::string t = "| probe | parameter | type | default | allowed | what |\n|---|---|---|---|---|---|\n";
  const ProbeRegistry reg = builtins();
  for (const auto* p : reg.all()) {
    const ProbeInfo i = p->info();
    for (const auto& d : i.params)
      t += "| " + i.name + " | " + code(d.name) + " | " + to_string(d.type) + " | " +
           (d.default_value.is_null() ? std::string("(derived)") : code(d.default_value.dump())) + " | " +
           cell(allowed(d)) + " | " + cell(d.summary) + " |\n";
  }
  return t;
}

int list_command(const ListOptions& o) {
  if (o.criteria) {
    std::cout << builtin_criteria_text();
    return kExitPass;
  }
  if (o.profiles) {
    std::cout << profiles_table();
    return kExitPass;
  }
  if (o.metrics || o.params) {
    if (o.metrics) std::cout << metrics_table();
    if (o.metrics && o.params) std::cout << "\n";
    if (o.params) std::cout << params_table();
    return kExitPass;
  }
  const ProbeRegistry reg = builtins();
  std::cout << "probes:\n";
  for (const auto* p : reg.all()) {
    const auto i = p->info();
    std::string needs;
    if (i.needs.gpu) needs += " GPU";
    if (i.needs.rdma) needs += " RDMA";
    if (i.needs.multi_host) needs += " 2+hosts";
    std::cout << "  " << i.name << "  needs:" << (needs.empty() ? " nothing special" : needs) << "\n      "
              << i.summary << "\n";
    if (!i.caveat.empty()) std::cout << "      note: " << i.caveat << "\n";
  }
  std::cout << "suites:\n";
  for (const auto& n : builtin_suite_names()) {
    const auto s = load_suite(n);
    std::cout << "  " << n << ":";
    for (const auto& p : s.probes) std::cout << " " << p.name;
    std::cout << "\n      " << s.description << "\n";
  }
  std::cout << "criteria profiles (run, judge, verify --criteria-profile NAME):\n";
  for (const auto& n : criteria_profile_names()) std::cout << "  " << n << "\n      " << criteria_profile(n).description << "\n";
  std::cout << "(gpuaccept list --metrics and --params: what each probe declares; --criteria: the built-in criteria;\n"
               " --profiles: each profile's thresholds with their sources)\n";
  return kExitPass;
}

}  // namespace ga::app
