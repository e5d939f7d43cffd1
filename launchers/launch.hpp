// Launchers only build argv: what to run is the suite's business, where and how is theirs.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace ga::launch {

struct Request {
  std::vector<std::string> hosts;       // empty: this host only
  int ranks_per_host = 1;
  int total_ranks = 0;                  // 0: hosts.size() * ranks_per_host
  bool job_tasks = false;               // srun: the job's own tasks (sbatch -n), no count of ours
  bool oversubscribe = false;           // more ranks than cores (CI, laptops)
  bool allow_root = false;              // containers and CI run as root
  bool bind_to_numa = true;             // off for fake hosts sharing one machine's cores
  std::map<std::string, std::string> env;  // exported to every rank
  std::vector<std::string> forward;     // variables exported by name with the launcher's value (never printed)
  std::vector<std::string> mca;         // extra "key=value" Open MPI parameters
  std::vector<std::string> program;     // gpuaccept and its arguments
};

std::vector<std::string> mpirun_argv(const Request&);
std::vector<std::string> srun_argv(const Request&);

}  // namespace ga::launch
