// gpuaccept drain DIR / undrain DIR: act on a run's verdict in Slurm. Both read DIR's
// bad-hosts.txt (reports/bad_hosts.hpp), print the scontrol lines they would run (argv built
// in launchers/slurm_admin.hpp) and run them only with --apply. Only node faults are drained:
// never a host whose worst is a tool error or inconclusive evidence (Nebius soperator does not
// drain when its checker errors; LBNL NHC drains with a reason, as this does).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <stdexcept>

#include "app/commands.hpp"
#include "app/run_argv.hpp"
#include "base/file_io.hpp"
#include "launchers/slurm_admin.hpp"
#include "reports/bad_hosts.hpp"

extern char** environ;

namespace ga::app {

int run_argv(const std::vector<std::string>& argv, std::string* out) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fds[2] = {-1, -1};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (out) {
    if (::pipe(fds) != 0) throw std::runtime_error("pipe: " + base::errno_text(errno));
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
  }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (out) ::close(fds[1]);
  if (rc != 0) {
    if (out) ::close(fds[0]);
    throw std::runtime_error("cannot run " + argv[0] + ": " + base::errno_text(rc));
  }
  if (out) {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out->append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

namespace {

// Runs each line, saying which failed; kExitToolError if any did (Slurm refused: not a node's fault).
int apply(const std::vector<std::vector<std::string>>& lines) {
  int failed = 0;
  for (const auto& argv : lines) {
    const int rc = run_argv(argv, nullptr);
    if (rc != 0) {
      ++failed;
      std::cerr << "gpuaccept: failed (exit " << rc << "): " << launch::shell_line(argv) << "\n";
    }
  }
  return failed;
}

}  // namespace

int drain_command(const DrainOptions& o) {
  try {
    const BadHosts b = read_bad_hosts(o.dir);
    std::vector<std::vector<std::string>> lines;
    std::size_t other = 0;
    for (const auto& h : b.hosts) {
      if (h.outcome != OutcomeClass::node_fault) {
        ++other;
        continue;
      }
      std::string why, act;
      for (const auto& c : h.criteria) why += (why.empty() ? "" : ",") + c;
      for (const auto& a : h.actions) act += (act.empty() ? "" : ",") + a;
      // The operator's action where the evidence names one (NVIDIA's Xid catalogue: RESTART_BM ...).
      if (!act.empty()) why += " [" + act + "]";
      lines.push_back(launch::scontrol_drain_argv(h.host, why + " (" + b.run_id + ")"));
    }
    for (const auto& l : lines) std::cout << launch::shell_line(l) << "\n";
    if (other)
      std::cerr << "gpuaccept: " << other
                << " host(s) of bad-hosts.txt are a tool error or inconclusive: not drained (re-test or fix the tool)\n";
    if (lines.empty()) return kExitPass;
    if (!o.apply) return kExitNodeFault;
    // The circuit breaker: a run that fails most of the cluster more likely says something about
    // the run (a bad criteria file, the fabric's spine) than about that many nodes.
    const std::size_t judged = std::max<std::size_t>(b.judged.size(), 1);
    const double share = double(lines.size()) / double(judged);
    if (share > o.max_share && !o.force) {
      std::cerr << "gpuaccept: refusing to drain " << lines.size() << " of " << judged << " hosts ("
                << std::lround(share * 100) << "%, above --max-share " << o.max_share
                << "): check the run first; --force drains them anyway\n";
      return kExitUsage;
    }
    return apply(lines) ? kExitToolError : kExitNodeFault;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept: " << e.what() << "\n";
    return kExitUsage;
  }
}

int undrain_command(const UndrainOptions& o) {
  try {
    const BadHosts b = read_bad_hosts(o.dir);
    std::set<std::string> bad;
    for (const auto& h : b.hosts) bad.insert(h.host);
    std::set<std::string> passed;
    for (const auto& h : b.judged)
      if (!bad.count(h)) passed.insert(h);
    std::string out;
    const auto sinfo = launch::sinfo_nodes_argv();
    if (const int rc = run_argv(sinfo, &out); rc != 0)
      throw std::runtime_error(launch::shell_line(sinfo) + " failed (exit " + std::to_string(rc) + ")");
    std::vector<std::vector<std::string>> lines;
    for (const auto& n : launch::parse_sinfo_nodes(out)) {
      if (!passed.count(n.name) || !n.drained()) continue;
      if (!n.drained_by_gpuaccept()) {
        std::cerr << "gpuaccept: " << n.name << " passed but stays drained: its reason is not gpuaccept's (\""
                  << n.reason << "\")\n";
        continue;
      }
      lines.push_back(launch::scontrol_resume_argv(n.name));
    }
    for (const auto& l : lines) std::cout << launch::shell_line(l) << "\n";
    if (lines.empty()) return kExitPass;
    if (!o.apply) return kExitNodeFault;
    return apply(lines) ? kExitToolError : kExitNodeFault;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace ga::app
