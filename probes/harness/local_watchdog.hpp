// The deadline of a one-process run (gpuaccept built without MPI): a timer thread that calls
// on_timeout(phase, seconds) when the armed phase overruns. The callback journals and exits.
#pragma once
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "probes/harness/phase_watch.hpp"

namespace ga {

class LocalWatchdog final : public PhaseWatch {
 public:
  explicit LocalWatchdog(std::function<void(const std::string& phase, double seconds)> on_timeout);
  ~LocalWatchdog() override;
  LocalWatchdog(const LocalWatchdog&) = delete;
  LocalWatchdog& operator=(const LocalWatchdog&) = delete;
  void arm(const std::string& phase, double seconds) override;
  void stage(const char*) override {}
  void disarm() override;

 private:
  std::function<void(const std::string&, double)> on_timeout_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false, armed_ = false;
  std::string phase_;
  double seconds_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;
};

}  // namespace ga
