// gpuaccept launch: the mpirun or srun line for a run, built from one launch description by
// launchers/launch.hpp (which only builds argv), printed with --dry-run, else exec'd.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "app/commands.hpp"
#include "base/file_io.hpp"
#include "base/redact.hpp"
#include "launchers/launch.hpp"
#include "launchers/slurm_admin.hpp"

extern char** environ;

namespace ga::app {

namespace {

// One host per line; "host slots=8" (Open MPI's hostfile) and "# comments" read as the host.
std::vector<std::string> read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read hostfile " + path + ": " + std::strerror(errno));
  std::vector<std::string> hosts;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string host;
    if (words >> host) hosts.push_back(host);
  }
  if (hosts.empty()) throw std::runtime_error("hostfile " + path + " names no host");
  return hosts;
}

std::vector<std::string> split_hosts(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : list + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

// What NCCL, UCX and Open MPI read from the environment: forwarded by name to every rank, so a
// site's NCCL_IB_HCA or UCX_NET_DEVICES reaches remote hosts (mpirun does not forward it).
std::vector<std::string> forwarded_names() {
  std::vector<std::string> names;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const auto name = kv.substr(0, kv.find('='));
    for (const char* prefix : {"NCCL_", "UCX_", "OMPI_MCA_", "GPUACCEPT_"})
      if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string self_path() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("gpuaccept") : p.string();
}

}  // namespace

launch::Request launch_request(const LaunchOptions& o) {
  launch::Request r;
  if (!o.hostfile.empty()) r.hosts = read_hostfile(o.hostfile);
  else if (!o.hosts.empty()) r.hosts = split_hosts(o.hosts);
  r.ranks_per_host = o.ranks_per_host;
  r.job_tasks = o.slurm && o.job_tasks;
  if (o.job_tasks && !o.slurm) throw std::invalid_argument("--job-tasks is for --slurm (the job's own tasks)");
  if (o.job_tasks && (o.ranks_per_host > 0 || !r.hosts.empty()))
    throw std::invalid_argument("--job-tasks takes the job's layout: give neither --ranks-per-host nor hosts");
  if (r.ranks_per_host <= 0) {
    // One rank per GPU: Slurm says how many this node has; elsewhere one per host.
    const char* g = std::getenv("SLURM_GPUS_ON_NODE");
    r.ranks_per_host = g && std::atoi(g) > 0 ? std::atoi(g) : 1;
  }
  r.oversubscribe = o.oversubscribe;
  r.allow_root = ::geteuid() == 0;
  r.bind_to_numa = !o.no_bind;
  r.mca = o.mca;
  r.forward = forwarded_names();
  // The ranks run `gpuaccept run RUN_OPTIONS`; RUN_OPTIONS that already start with `run` keep
  // their own (one `run`, not two).
  r.program = {o.program.empty() ? self_path() : o.program};
  if (o.run_args.empty() || o.run_args.front() != "run") r.program.push_back("run");
  r.program.insert(r.program.end(), o.run_args.begin(), o.run_args.end());
  return r;
}

int launch_command(const LaunchOptions& o) {
  try {
    const launch::Request r = launch_request(o);
    const auto argv = o.slurm ? launch::srun_argv(r) : launch::mpirun_argv(r);
    // Printed without a secret (base/redact.hpp); the variables go by name (-x NAME) anyway.
    if (o.dry_run) {
      std::cout << launch::shell_line(base::redact_argv(argv)) << "\n";
      return kExitPass;
    }
    // A run asked to be quiet is quiet from its first line, the launcher's included.
    if (std::find(o.run_args.begin(), o.run_args.end(), "--quiet") == o.run_args.end())
      std::cerr << "[gpuaccept] " << launch::shell_line(base::redact_argv(argv)) << "\n";
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::cerr << "gpuaccept: cannot run " << argv[0] << ": " << std::strerror(errno) << "\n";
    return kExitToolError;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace ga::app
