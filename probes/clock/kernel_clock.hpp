// The kernel's own view of the clock, read through ntp_adjtime(3) with no modes set (a
// read-only call that needs no privilege). The kernel marks the clock unsynchronised
// (STA_UNSYNC) until a daemon disciplines it, and again when maxerror grows past 16 s.
#pragma once
#include <optional>
#include <string>

namespace ga::clock {

struct KernelClock {
  int state = 0;            // TIME_OK, TIME_INS, TIME_DEL, TIME_OOP, TIME_WAIT, TIME_ERROR
  int status = 0;           // STA_* bits
  double maxerror = 0;      // s
  double esterror = 0;      // s
  bool synchronized() const;   // STA_UNSYNC clear and state not TIME_ERROR
  std::string state_name() const;
  std::string status_flags() const;  // "STA_PLL|STA_UNSYNC", "0" when none
  std::string why_not() const;   // a sentence saying why it is not synchronised ("" when it is)
};

// Pure: from the fields of struct timex (maxerror and esterror in microseconds).
KernelClock kernel_clock_from(int state, int status, long maxerror_us, long esterror_us);

// Reads this host's kernel clock; nullopt with `error` set when ntp_adjtime fails.
std::optional<KernelClock> read_kernel_clock(std::string& error);

}  // namespace ga::clock
