#include <stdexcept>

#include "probes/probe.hpp"

namespace ga {

void ProbeRegistry::add(std::unique_ptr<Probe> p) {
  auto name = p->info().name;
  if (probes_.count(name)) throw std::logic_error("probe registered twice: " + name);
  probes_.emplace(std::move(name), std::move(p));
}

Probe* ProbeRegistry::find(const std::string& name) const {
  auto it = probes_.find(name);
  return it == probes_.end() ? nullptr : it->second.get();
}

std::vector<const Probe*> ProbeRegistry::all() const {
  std::vector<const Probe*> out;
  for (const auto& [_, p] : probes_) out.push_back(p.get());
  return out;
}

std::optional<HelperCommand> ProbeRegistry::find_helper(const std::string& name) const {
  for (const auto& [_, p] : probes_)
    for (const auto& h : p->helper_commands())
      if (h.name == name) return h;
  return std::nullopt;
}

MetricCatalogue catalogue_of(const ProbeRegistry& reg) {
  MetricCatalogue c;
  for (const auto* p : reg.all()) {
    const ProbeInfo i = p->info();
    for (const auto& m : i.metrics) c.add(i.name, m);
  }
  return c;
}

const ParamDecl* find_param(const ProbeInfo& info, const std::string& name) {
  for (const auto& d : info.params)
    if (d.name == name) return &d;
  return nullptr;
}

std::optional<ParamProblem> check_params(const ProbeInfo& info, const nlohmann::json& params) {
  if (params.is_null()) return std::nullopt;
  if (!params.is_object()) return ParamProblem{"", info.name + ": parameters must be a mapping, got " + params.dump()};
  for (const auto& [key, value] : params.items()) {
    const ParamDecl* d = find_param(info, key);
    if (!d) {
      std::string known;
      for (const auto& p : info.params) known += (known.empty() ? "" : ", ") + p.name;
      return ParamProblem{key, info.name + "." + key + ": unknown parameter (" + info.name +
                                   (known.empty() ? " takes no parameters)" : " takes: " + known + ")")};
    }
    if (const std::string why = check_param(*d, value); !why.empty())
      return ParamProblem{key, info.name + "." + key + ": " + why};
  }
  return std::nullopt;
}

ParamProblem param_problem(const nlohmann::json& params, std::string message) {
  ParamProblem p{"", std::move(message)};
  if (params.is_object())
    for (const auto& [key, value] : params.items())
      if (key.size() > p.key.size() && p.message.find(key) != std::string::npos) p.key = key;
  return p;
}

std::optional<ParamProblem> check_params_and_parse(const ProbeInfo& info, const nlohmann::json& params,
                                                   const std::function<void(const nlohmann::json&)>& parse,
                                                   const std::string& prefix) {
  if (auto bad = check_params(info, params)) return bad;
  try {
    parse(params);
  } catch (const std::exception& e) {
    return param_problem(params, prefix + e.what());
  }
  return std::nullopt;
}

std::optional<ParamProblem> Probe::check_config(const nlohmann::json& params) const {
  return check_params(info(), params);
}

}  // namespace ga
