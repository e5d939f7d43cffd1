// Turns a hang into a report. Every phase (startup, each probe, shutdown) runs under a
// deadline. When it passes, rank 0 pings every rank on a private control communicator;
// ranks whose watchdog thread answers are alive (blocked waiting, or still inside the
// probe), ranks that do not answer are stopped, dead or cut off. Rank 0 then writes the
// incomplete record and the report and aborts the job with exit code 3. If rank 0 itself
// is the one that hangs, a deputy (the first rank on another host) does the same after a
// grace period, unless rank 0 told it to stand down.
// The watchdog thread touches MPI only near a deadline, so it does not disturb measurements.
#pragma once
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "probes/harness/phase_watch.hpp"
#include "probes/journal.hpp"

namespace ga {

struct WatchdogOptions {
  double grace_s = 4.0;        // deputy waits this much longer than rank 0
  double ping_wait_s = 2.0;    // how long to wait for answers
  double listen_margin_s = 2.0;  // start listening for pings this long before the own deadline
  int poll_ms = 50;
};

struct WatchdogHooks {
  // On the detecting rank, after pinging: journal the record, write the report. Then MPI_Abort(3).
  std::function<void(const IncompleteRecord&)> on_hang;
  // A local-only phase (MPI_Finalize) overran: no MPI possible any more. Then _exit(3).
  std::function<void(const std::string& phase, double seconds)> on_local_timeout;
};

class Watchdog final : public PhaseWatch {
 public:
  // Collective over world (duplicates it).
  Watchdog(MPI_Comm world, std::vector<std::string> rank_hosts, WatchdogHooks hooks, WatchdogOptions opt = {});
  ~Watchdog() override;
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(const std::string& phase, double seconds) override;
  void stage(const char* what) override;  // what the main thread is doing now, for pong answers
  void disarm() override;
  // Frees the control communicator; later phases can only be timed out locally. Collective.
  void release_mpi();
  void arm_local(const std::string& phase, double seconds);

  int deputy() const { return deputy_; }

 private:
  void loop();
  void poll_control();
  void fire();
  std::vector<RankRef> refs(const std::vector<int>& ranks) const;

  MPI_Comm control_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, deputy_ = -1;
  std::vector<std::string> hosts_;
  WatchdogHooks hooks_;
  WatchdogOptions opt_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool armed_ = false;
  bool local_only_ = false;
  bool stood_down_ = false;
  bool fired_ = false;
  std::string phase_;
  std::string stage_ = "idle";
  double seconds_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;
};

}  // namespace ga
