#include "probes/resume/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace ga::resume {

namespace {

// posix_spawn's file actions and attributes, freed by RAII.
struct SpawnSetup {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

}  // namespace

WorkerProcess::WorkerProcess(const std::string& exe, const std::vector<std::string>& args, const std::string& log_path) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw std::runtime_error(std::string("resume: socketpair failed: ") + std::strerror(errno));
  sock_ = base::UniqueFd(sv[0]);
  base::UniqueFd theirs(sv[1]);

  SpawnSetup s;
  posix_spawn_file_actions_addopen(&s.fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&s.fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&s.fa, 1, 2);
  posix_spawn_file_actions_adddup2(&s.fa, theirs.get(), 3);
  // Nothing else of this MPI process (its sockets to the launcher, shared memory) leaks into
  // the worker: it must be a process the MPI job does not know.
  posix_spawn_file_actions_addclosefrom_np(&s.fa, 4);
  // The gpuaccept rank blocks termination signals for its signal thread; the worker must not
  // inherit that mask, or SIGTERM would not stop it.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&s.attr, &none);
  posix_spawnattr_setsigdefault(&s.attr, &defaults);
  posix_spawnattr_setflags(&s.attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> argv_s = {exe};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = ::posix_spawn(&pid_, exe.c_str(), &s.fa, &s.attr, argv.data(), environ);
  if (rc != 0) throw std::runtime_error("resume: cannot start worker " + exe + ": " + std::strerror(rc));
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0 && !status_) {
    ::kill(pid_, SIGKILL);
    wait();
  }
}

bool WorkerProcess::readable_within(double seconds) const {
  pollfd p{sock_.get(), POLLIN, 0};
  const int ms = seconds <= 0 ? 0 : static_cast<int>(seconds * 1000);
  for (;;) {
    const int r = ::poll(&p, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    return r > 0;
  }
}

void WorkerProcess::signal(int signo) const {
  if (pid_ > 0 && !status_) ::kill(pid_, signo);
}

void WorkerProcess::stop_talking() {
  if (sock_) ::shutdown(sock_.get(), SHUT_RDWR);
}

int WorkerProcess::wait() {
  if (status_) return *status_;
  int st = 0;
  while (::waitpid(pid_, &st, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("resume: waitpid failed: ") + std::strerror(errno));
  }
  status_ = st;
  return st;
}

std::string signal_abbrev(int signo) {
  const char* a = ::sigabbrev_np(signo);
  return a ? std::string("SIG") + a : "signal " + std::to_string(signo);
}

std::string describe_wait_status(int st) {
  if (WIFEXITED(st)) return "exited with code " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) return "killed by " + signal_abbrev(WTERMSIG(st));
  return "status " + std::to_string(st);
}

}  // namespace ga::resume
