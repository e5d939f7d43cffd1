#include "probes/clock/kernel_clock.hpp"

#include <sys/timex.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace ga::clock {

bool KernelClock::synchronized() const { return !(status & STA_UNSYNC) && state != TIME_ERROR; }

std::string KernelClock::state_name() const {
  switch (state) {
    case TIME_OK: return "TIME_OK";
    case TIME_INS: return "TIME_INS";
    case TIME_DEL: return "TIME_DEL";
    case TIME_OOP: return "TIME_OOP";
    case TIME_WAIT: return "TIME_WAIT";
    case TIME_ERROR: return "TIME_ERROR";
    default: return "state " + std::to_string(state);
  }
}

std::string KernelClock::status_flags() const {
  static const std::vector<std::pair<int, const char*>> names = {
      {STA_PLL, "STA_PLL"},         {STA_PPSFREQ, "STA_PPSFREQ"}, {STA_PPSTIME, "STA_PPSTIME"},
      {STA_FLL, "STA_FLL"},         {STA_INS, "STA_INS"},         {STA_DEL, "STA_DEL"},
      {STA_UNSYNC, "STA_UNSYNC"},   {STA_FREQHOLD, "STA_FREQHOLD"}, {STA_PPSSIGNAL, "STA_PPSSIGNAL"},
      {STA_PPSJITTER, "STA_PPSJITTER"}, {STA_PPSWANDER, "STA_PPSWANDER"}, {STA_PPSERROR, "STA_PPSERROR"},
      {STA_CLOCKERR, "STA_CLOCKERR"}, {STA_NANO, "STA_NANO"},     {STA_MODE, "STA_MODE"},
      {STA_CLK, "STA_CLK"}};
  std::string out;
  for (const auto& [bit, name] : names)
    if (status & bit) out += (out.empty() ? "" : "|") + std::string(name);
  return out.empty() ? "0" : out;
}

std::string KernelClock::why_not() const {
  if (synchronized()) return "";
  std::string why = "kernel clock unsynchronised (";
  if (status & STA_UNSYNC) why += "STA_UNSYNC set";
  if (state == TIME_ERROR) why += std::string(status & STA_UNSYNC ? ", " : "") + "adjtimex state TIME_ERROR";
  return why + ", maxerror " + std::to_string(maxerror) + " s): no time daemon has disciplined it";
}

KernelClock kernel_clock_from(int state, int status, long maxerror_us, long esterror_us) {
  KernelClock k;
  k.state = state;
  k.status = status;
  k.maxerror = static_cast<double>(maxerror_us) * 1e-6;
  k.esterror = static_cast<double>(esterror_us) * 1e-6;
  return k;
}

std::optional<KernelClock> read_kernel_clock(std::string& error) {
  timex tx{};
  tx.modes = 0;  // read only: needs no CAP_SYS_TIME
  const int state = ntp_adjtime(&tx);
  if (state < 0) {
    error = std::string("ntp_adjtime: ") + std::strerror(errno);
    return std::nullopt;
  }
  return kernel_clock_from(state, tx.status, tx.maxerror, tx.esterror);
}

}  // namespace ga::clock
