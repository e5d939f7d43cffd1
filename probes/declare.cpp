#include "probes/declare.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace ga
