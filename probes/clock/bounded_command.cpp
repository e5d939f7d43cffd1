#include "probes/clock/bounded_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace ga::clock {
namespace {

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  void reset() { if (fd >= 0) ::close(fd); fd = -1; }
};

struct Pipe {
  Fd r, w;
  Pipe() {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    r.fd = p[0];
    w.fd = p[1];
  }
};

struct FileActions {
  posix_spawn_file_actions_t a;
  FileActions() { posix_spawn_file_actions_init(&a); }
  ~FileActions() { posix_spawn_file_actions_destroy(&a); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
};

struct SpawnAttr {
  posix_spawnattr_t a;
  SpawnAttr() { posix_spawnattr_init(&a); }
  ~SpawnAttr() { posix_spawnattr_destroy(&a); }
  SpawnAttr(const SpawnAttr&) = delete;
  SpawnAttr& operator=(const SpawnAttr&) = delete;
};

std::string find_on_path(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return ::access(prog.c_str(), X_OK) == 0 ? prog : "";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
  for (std::string d; std::getline(dirs, d, ':');) {
    const std::string p = (d.empty() ? "." : d) + "/" + prog;
    struct stat st{};
    if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

}  // namespace

CommandResult run_bounded(const std::vector<std::string>& argv, double timeout_s) {
  CommandResult r;
  if (argv.empty()) {
    r.problem = "no command";
    return r;
  }
  const std::string exe = find_on_path(argv[0]);
  if (exe.empty()) {
    r.problem = argv[0] + " not found on PATH";
    return r;
  }
  r.found = true;

  std::vector<std::string> env_store;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "LC_ALL=", 7) != 0 && std::strncmp(*e, "LANG=", 5) != 0) env_store.emplace_back(*e);
  env_store.emplace_back("LC_ALL=C");
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  Pipe out, err;
  FileActions fa;
  posix_spawn_file_actions_addopen(&fa.a, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa.a, out.w.fd, 1);
  posix_spawn_file_actions_adddup2(&fa.a, err.w.fd, 2);
  SpawnAttr sa;
  // Its own process group, so a timeout kills whatever it started too.
  posix_spawnattr_setflags(&sa.a, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&sa.a, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa.a, &sa.a, cargv.data(), envp.data());
  out.w.reset();
  err.w.reset();
  if (rc != 0) {
    r.problem = "cannot start " + exe + ": " + std::strerror(rc);
    return r;
  }
  r.started = true;

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  constexpr std::size_t kMax = 1 << 20;
  pollfd fds[2] = {{out.r.fd, POLLIN, 0}, {err.r.fd, POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      r.timed_out = true;
      break;
    }
    const int n = ::poll(fds, 2, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        if (sinks[i]->size() < kMax) sinks[i]->append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  if (r.timed_out) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    r.problem = argv[0] + " did not finish within " + std::to_string(timeout_s) + " s (killed)";
    return r;
  }
  // Output closed: the child is exiting; still bound the wait, it may have daemonised a helper.
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      r.problem = argv[0] + " did not exit within " + std::to_string(timeout_s) + " s (killed)";
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (r.exit_code != 0) {
    std::string first = r.err.substr(0, r.err.find('\n'));
    if (first.empty()) first = r.out.substr(0, r.out.find('\n'));
    r.problem = argv[0] + (WIFSIGNALED(status) ? " killed by signal " + std::to_string(WTERMSIG(status))
                                               : " exited with " + std::to_string(r.exit_code)) +
                (first.empty() ? "" : ": " + first);
  }
  return r;
}

}  // namespace ga::clock
