#include "probes/harness/local_watchdog.hpp"

namespace ga {

LocalWatchdog::LocalWatchdog(std::function<void(const std::string&, double)> on_timeout)
    : on_timeout_(std::move(on_timeout)) {
  thread_ = std::thread([this] {
    std::unique_lock lk(mu_);
    while (!stop_) {
      if (!armed_) {
        cv_.wait(lk);
        continue;
      }
      if (cv_.wait_until(lk, deadline_) == std::cv_status::timeout && armed_ && !stop_ &&
          std::chrono::steady_clock::now() >= deadline_) {
        armed_ = false;
        const auto phase = phase_;
        const auto secs = seconds_;
        lk.unlock();
        on_timeout_(phase, secs);
        lk.lock();
      }
    }
  });
}

LocalWatchdog::~LocalWatchdog() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void LocalWatchdog::arm(const std::string& phase, double seconds) {
  {
    std::lock_guard lk(mu_);
    armed_ = true;
    phase_ = phase;
    seconds_ = seconds;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  }
  cv_.notify_all();
}

void LocalWatchdog::disarm() {
  {
    std::lock_guard lk(mu_);
    armed_ = false;
  }
  cv_.notify_all();
}

}  // namespace ga
