// A resume worker as a child process of this gpuaccept rank: started with posix_spawn (safe
// in a threaded MPI process, unlike fork), connected by a socket pair, killed and reaped here.
// The destructor kills and reaps a worker that is still running, so none outlives the probe.
#pragma once
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/file_io.hpp"

namespace ga::resume {

class WorkerProcess {
 public:
  // exe is run as `exe args...`; the worker's end of the socket is its fd 3; stdout and
  // stderr go to log_path. Throws std::runtime_error naming exe when it cannot start.
  WorkerProcess(const std::string& exe, const std::vector<std::string>& args, const std::string& log_path);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }
  int fd() const { return sock_.get(); }
  bool readable_within(double seconds) const;  // data or end of file waiting on the socket
  void signal(int signo) const;
  void stop_talking();                         // the worker reads end of file: "the job is stopped"
  int wait();                                  // blocks; the waitpid status (cached)
  std::optional<int> status() const { return status_; }

 private:
  pid_t pid_ = -1;
  base::UniqueFd sock_;
  std::optional<int> status_;
};

// "exited with code 3", "killed by SIGKILL"
std::string describe_wait_status(int status);
std::string signal_abbrev(int signo);  // "SIGKILL"

}  // namespace ga::resume
