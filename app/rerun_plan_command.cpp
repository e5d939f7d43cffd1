// gpuaccept rerun-plan DIR: the re-test of a run's node-fault and inconclusive hosts, each with
// hosts that passed in DIR as known-good partners (a suspect that passes against them is cleared;
// one that fails again is confirmed). Prints the hostfile and the mpirun and sbatch lines, built
// by the launchers, that run `gpuaccept run --rerun DIR` (DIR's suite, both runs merged into one
// campaign: reports/campaign.hpp); runs nothing.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "base/file_io.hpp"
#include "launchers/launch.hpp"
#include "launchers/slurm_admin.hpp"
#include "reports/bad_hosts.hpp"

namespace ga::app {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

int rerun_plan_command(const RerunPlanOptions& o) {
  try {
    const BadHosts b = read_bad_hosts(o.dir);
    std::vector<std::string> suspects, faults, unsure;
    std::set<std::string> listed;
    for (const auto& h : b.hosts) {
      listed.insert(h.host);
      if (h.outcome == OutcomeClass::node_fault) faults.push_back(h.host);
      else if (h.outcome == OutcomeClass::inconclusive) unsure.push_back(h.host);
      else continue;  // a tool error: fix the tool, then run again; no host is suspected
      suspects.push_back(h.host);
    }
    if (suspects.empty()) {
      std::cerr << "gpuaccept: nothing to re-test in " << o.dir << " (no node fault, no inconclusive host)\n";
      return kExitPass;
    }
    std::vector<std::string> passed;
    for (const auto& h : b.judged)
      if (!listed.count(h)) passed.push_back(h);
    // Partners spread over the hosts that passed (natural order), not the first few: neighbours in
    // a name often share a leaf switch, and the re-test should not hold a suspect only against one.
    std::vector<std::string> partners;
    const std::size_t k = std::min<std::size_t>(passed.size(), std::max(1, o.partners));
    for (std::size_t i = 0; i < k; ++i) partners.push_back(passed[i * passed.size() / k]);
    std::vector<std::string> hosts = suspects;
    hosts.insert(hosts.end(), partners.begin(), partners.end());

    std::cout << "# re-test of " << suspects.size() << " host(s) of " << o.dir << " (node fault: "
              << (faults.empty() ? "none" : join(faults)) << "; inconclusive: " << (unsure.empty() ? "none" : join(unsure))
              << ") with " << partners.size() << " that passed: " << (partners.empty() ? "none" : join(partners)) << "\n";
    if (partners.empty()) std::cout << "# no host passed in this run: the suspects are held only against each other\n";
    std::cout << "# hostfile:\n";
    for (const auto& h : hosts) std::cout << h << "\n";
    launch::Request r;
    r.hosts = hosts;
    r.ranks_per_host = o.ranks_per_host > 0 ? o.ranks_per_host : 1;
    // `run --rerun DIR` runs DIR's suite again and merges the two runs into one campaign.
    const std::string abs_dir = std::filesystem::absolute(o.dir).lexically_normal().string();
    r.program = {"gpuaccept", "run", "--rerun", abs_dir};
    std::cout << "# outside Slurm (or `gpuaccept launch --hostfile FILE --ranks-per-host N -- --rerun " << abs_dir << "`):\n"
              << launch::shell_line(launch::mpirun_argv(r)) << "\n";
    std::cout << "# in Slurm (drained nodes take no jobs: resume them first, or use a maintenance reservation):\n"
              << launch::shell_line({"sbatch", "--nodes=" + std::to_string(hosts.size()), "--nodelist=" + join(hosts),
                                     "slurm/gpuaccept.sbatch", "--rerun", abs_dir})
              << "\n";
    return kExitNodeFault;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace ga::app
