#include <iostream>

#include "app/commands.hpp"
#include "probes/probe.hpp"
#include "suites/suite_file.hpp"

namespace ga::app {

int list_command(const ListOptions&) {
  ProbeRegistry reg;
  register_builtin_probes(reg);
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
  return kExitPass;
}

}  // namespace ga::app
