// What the run loop needs of a watchdog: every phase (startup, each probe, shutdown) runs
// under a deadline. The MPI watchdog (mpi_watchdog.hpp) pings the other ranks when one
// passes; the local one (local_watchdog.hpp, one process, no MPI) can only say it itself
// overran.
#pragma once
#include <string>

namespace ga {

class PhaseWatch {
 public:
  virtual ~PhaseWatch() = default;
  virtual void arm(const std::string& phase, double seconds) = 0;
  virtual void stage(const char* what) = 0;  // what the main thread is doing, for diagnostics
  virtual void disarm() = 0;
};

}  // namespace ga
