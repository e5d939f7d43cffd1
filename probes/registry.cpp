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

}  // namespace ga
