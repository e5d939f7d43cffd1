#include "launchers/launch.hpp"

#include <numeric>
#include <stdexcept>

namespace ga::launch {

namespace {
int total(const Request& r) {
  if (r.total_ranks > 0) return r.total_ranks;
  return static_cast<int>(std::max<std::size_t>(1, r.hosts.size())) * r.ranks_per_host;
}
std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}
}  // namespace

std::vector<std::string> mpirun_argv(const Request& r) {
  if (r.program.empty()) throw std::invalid_argument("launch request without a program");
  std::vector<std::string> a = {"mpirun", "-np", std::to_string(total(r))};
  if (!r.hosts.empty()) {
    std::vector<std::string> slots;
    for (const auto& h : r.hosts) slots.push_back(h + ":" + std::to_string(r.ranks_per_host));
    a.insert(a.end(), {"--host", join(slots, ",")});
  }
  if (r.ranks_per_host > 1 || !r.hosts.empty()) a.insert(a.end(), {"--map-by", "ppr:" + std::to_string(r.ranks_per_host) + ":node"});
  if (r.oversubscribe) {
    // Busy-polling ranks that share cores turn microseconds into scheduler ticks.
    a.insert(a.end(), {"--oversubscribe", "--mca", "mpi_yield_when_idle", "1"});
  }
  if (r.allow_root) a.push_back("--allow-run-as-root");
  a.insert(a.end(), {"--bind-to", r.bind_to_numa ? "numa" : "none"});
  for (const auto& m : r.mca) {
    auto eq = m.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("MCA parameter without '=': " + m);
    a.insert(a.end(), {"--mca", m.substr(0, eq), m.substr(eq + 1)});
  }
  for (const auto& [k, v] : r.env) a.insert(a.end(), {"-x", k + "=" + v});
  for (const auto& k : r.forward) a.insert(a.end(), {"-x", k});
  a.insert(a.end(), r.program.begin(), r.program.end());
  return a;
}

std::vector<std::string> srun_argv(const Request& r) {
  if (r.program.empty()) throw std::invalid_argument("launch request without a program");
  std::vector<std::string> a = {"srun", "--mpi=pmix"};
  // Inside an allocation, with no hosts and no count named: every node of it, ranks_per_host
  // each (srun's own reading of --ntasks-per-node without --ntasks).
  // With job_tasks, none of it: srun takes the job's -n / --ntasks-per-node from its environment.
  if (!r.job_tasks) {
    if (!r.hosts.empty() || r.total_ranks > 0) a.push_back("--ntasks=" + std::to_string(total(r)));
    if (!r.hosts.empty()) {
      a.push_back("--nodes=" + std::to_string(r.hosts.size()));
      a.push_back("--nodelist=" + join(r.hosts, ","));
    }
    a.push_back("--ntasks-per-node=" + std::to_string(r.ranks_per_host));
  }
  a.push_back(r.bind_to_numa ? "--cpu-bind=ldoms" : "--cpu-bind=none");
  // --export=ALL exports the launcher's environment, the forwarded variables with it.
  if (!r.env.empty()) {
    std::vector<std::string> kv = {"ALL"};
    for (const auto& [k, v] : r.env) kv.push_back(k + "=" + v);
    a.push_back("--export=" + join(kv, ","));
  }
  a.insert(a.end(), r.program.begin(), r.program.end());
  return a;
}

}  // namespace ga::launch
