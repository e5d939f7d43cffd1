#include "probes/declare.hpp"

#include "base/text.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ga {

const char* to_string(Better b) {
  switch (b) {
    case Better::higher: return "higher";
    case Better::lower: return "lower";
    case Better::none: return "none";
  }
  return "none";
}

const char* to_string(Combine c) {
  switch (c) {
    case Combine::median: return "median";
    case Combine::min: return "min";
    case Combine::max: return "max";
    case Combine::sum: return "sum";
    case Combine::last: return "last";
  }
  return "median";
}

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::integer: return "integer";
    case ParamType::number: return "number";
    case ParamType::boolean: return "boolean";
    case ParamType::string: return "string";
    case ParamType::list: return "list";
    case ParamType::mapping: return "mapping";
    case ParamType::any: return "any";
  }
  return "any";
}

bool declares(const MetricDecl& decl, const std::string& id) {
  if (!decl.id.empty() && decl.id.back() == '*')
    return id.compare(0, decl.id.size() - 1, decl.id, 0, decl.id.size() - 1) == 0;
  return decl.id == id;
}

bool MetricDecl::emitted_at(place::Kind k) const {
  return places.empty() || std::find(places.begin(), places.end(), k) != places.end();
}

bool MetricDecl::may_carry(const std::string& key) const {
  return !param_keys || std::find(param_keys->begin(), param_keys->end(), key) != param_keys->end();
}

std::string places_text(const MetricDecl& d) {
  std::string s;
  for (auto k : d.places) s += (s.empty() ? "" : ", ") + std::string(place::to_string(k));
  return s;
}

namespace {

std::string number_text(double v) {
  nlohmann::json j = v;
  if (std::floor(v) == v && std::fabs(v) < 1e15) j = static_cast<long long>(v);
  return j.dump();
}

std::string range_text(const ParamDecl& d) {
  if (d.min && d.max) return " from " + number_text(*d.min) + " to " + number_text(*d.max);
  if (d.min) return " >= " + number_text(*d.min);
  if (d.max) return " <= " + number_text(*d.max);
  return "";
}

}  // namespace

std::string check_param(const ParamDecl& d, const nlohmann::json& v) {
  const std::string got = ", got " + v.dump();
  switch (d.type) {
    case ParamType::any: return "";
    case ParamType::boolean: return v.is_boolean() ? "" : "must be true or false" + got;
    case ParamType::list: return v.is_array() ? "" : "must be a list" + got;
    case ParamType::mapping: return v.is_object() ? "" : "must be a mapping" + got;
    case ParamType::string:
      if (!v.is_string()) return "must be a string" + got;
      if (!d.choices.empty() && std::find(d.choices.begin(), d.choices.end(), v.get<std::string>()) == d.choices.end()) {
        std::string one_of;
        for (const auto& c : d.choices) one_of += (one_of.empty() ? "" : ", ") + c;
        return "must be one of " + one_of + got;
      }
      return "";
    case ParamType::integer:
    case ParamType::number: {
      const bool integer = d.type == ParamType::integer;
      if (integer ? !v.is_number_integer() : !v.is_number())
        return std::string(integer ? "must be a whole number" : "must be a number") + range_text(d) + got;
      const double x = v.get<double>();
      if ((d.min && x < *d.min) || (d.max && x > *d.max))
        return std::string(integer ? "must be a whole number" : "must be a number") + range_text(d) + got;
      return "";
    }
  }
  return "";
}

void MetricCatalogue::add(const std::string& probe, const MetricDecl& decl) {
  auto [it, fresh] = exact_.try_emplace(decl.id, all_.size());
  if (!fresh)
    throw std::logic_error("metric " + decl.id + " declared by both " + all_[it->second].probe + " and " + probe);
  all_.push_back({probe, decl});
}

const DeclaredMetric* MetricCatalogue::find(const std::string& id) const {
  if (auto it = exact_.find(id); it != exact_.end()) return &all_[it->second];
  const DeclaredMetric* best = nullptr;
  for (const auto& d : all_)
    if (!d.decl.id.empty() && d.decl.id.back() == '*' && declares(d.decl, id) &&
        (!best || d.decl.id.size() > best->decl.id.size()))
      best = &d;
  return best;
}

bool MetricCatalogue::covers_glob(const std::string& glob) const {
  const std::string prefix = !glob.empty() && glob.back() == '*' ? glob.substr(0, glob.size() - 1) : glob;
  for (const auto& d : all_) {
    const std::string& id = d.decl.id;
    const std::string stem = !id.empty() && id.back() == '*' ? id.substr(0, id.size() - 1) : id;
    // "topology.*" covers topology.gpu_count; "inventory.version.mpi*" lies inside inventory.version.*
    if (stem.compare(0, prefix.size(), prefix) == 0 || prefix.compare(0, stem.size(), stem) == 0) return true;
  }
  return false;
}

std::vector<std::string> MetricCatalogue::near(const std::string& id) const {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& d : all_) {
    const std::size_t e = base::edit_distance(id, d.decl.id);
    if (e <= std::max<std::size_t>(2, id.size() / 5)) scored.emplace_back(e, d.decl.id);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace ga
