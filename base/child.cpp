// See child.hpp.
#include "base/child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "base/file_io.hpp"

namespace ga::base {

ChildOutcome run_in_child(const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe: " + errno_text(errno));
  UniqueFd rd(fds[0]), wr(fds[1]);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork: " + errno_text(errno));
  if (pid == 0) {
    // One byte says how `work` ended (0 returned, 1 threw), the rest is its text.
    char tag = 0;
    std::string text;
    try {
      text = work();
    } catch (const std::exception& e) {
      tag = 1, text = e.what();
    } catch (...) {
      tag = 1, text = "unknown exception";
    }
    try {
      write_all(wr.get(), &tag, 1, "the parent's pipe");
      write_all(wr.get(), text.data(), text.size(), "the parent's pipe");
    } catch (...) {
      ::_exit(1);  // the parent sees no result
    }
    ::_exit(0);
  }
  wr.reset();  // the child's end: EOF reaches us when the child is gone
  std::string got;
  char buf[1 << 16];
  for (;;) {
    const ssize_t r = ::read(rd.get(), buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got.append(buf, static_cast<std::size_t>(r));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ChildOutcome out;
  if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
    out.text = std::string("killed by signal ") + std::to_string(out.signal) + " (" + ::strsignal(out.signal) + ")";
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got.empty()) {
    out.text = "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + " without a result";
  } else {
    out.kind = got[0] == 0 ? ChildOutcome::Kind::returned : ChildOutcome::Kind::threw;
    out.text = got.substr(1);
  }
  return out;
}

}  // namespace ga::base
