#include "probes/harness/signals.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>

namespace ga {

namespace {
sigset_t termination_set() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGHUP);
  return s;
}
}  // namespace

const char* signal_name(int s) {
  switch (s) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGKILL: return "SIGKILL";
    default: return "signal";
  }
}

SignalThread::SignalThread(std::function<void(int)> handler) {
  sigset_t s = termination_set();
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
  sigfd_ = signalfd(-1, &s, SFD_CLOEXEC);
  quitfd_ = eventfd(0, EFD_CLOEXEC);
  if (sigfd_ < 0 || quitfd_ < 0) throw std::runtime_error("cannot set up signal handling");
  thread_ = std::thread([this, handler = std::move(handler)] {
    pollfd fds[2] = {{sigfd_, POLLIN, 0}, {quitfd_, POLLIN, 0}};
    for (;;) {
      if (poll(fds, 2, -1) < 0) continue;
      if (fds[1].revents) return;
      signalfd_siginfo si;
      if (read(sigfd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) handler(static_cast<int>(si.ssi_signo));
    }
  });
}

SignalThread::~SignalThread() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = write(quitfd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  close(sigfd_);
  close(quitfd_);
}

}  // namespace ga
