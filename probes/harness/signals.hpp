// Termination signals (SIGTERM from mpirun when another rank died, SIGINT, SIGHUP) handled
// on a thread of their own, where ordinary code may run: journal a record, write the report.
// Construct before MPI_Init and before any other thread, so every thread inherits the mask.
#pragma once
#include <functional>
#include <thread>

namespace ga {

class SignalThread {
 public:
  explicit SignalThread(std::function<void(int signo)> handler);
  ~SignalThread();
  SignalThread(const SignalThread&) = delete;
  SignalThread& operator=(const SignalThread&) = delete;
 private:
  int sigfd_ = -1, quitfd_ = -1;
  std::thread thread_;
};

const char* signal_name(int signo);

}  // namespace ga
