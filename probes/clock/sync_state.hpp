// Whether a host's clock is synchronised, from every witness available: the kernel
// (adjtimex) always, chrony and systemd-timesyncd (through timedatectl) when present. One
// "no" is enough: a daemon that lost its sources leaves the kernel flag set for a while, and
// a kernel marked unsynchronised means nothing disciplines the clock whatever a tool says.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "probes/clock/kernel_clock.hpp"
#include "probes/clock/timesync_parsers.hpp"

namespace ga::clock {

struct SyncWitnesses {
  std::optional<KernelClock> kernel;
  std::string kernel_error;                  // why the kernel could not be read
  std::optional<ChronyTracking> chrony;
  // chronyc is installed but gave no usable answer (chronyd down, hung, refused): a daemon
  // that should keep the clock and does not, so not synchronised. The kernel flag alone
  // would still say yes for hours after chronyd died (STA_UNSYNC returns only once maxerror
  // passes 16 s).
  std::string chrony_error;
  std::optional<TimedatectlShow> timedatectl_show;
  std::optional<TimedatectlStatus> timedatectl_status;
  std::vector<std::string> notes;            // tools failing in ways that prove nothing (timedatectl without systemd)
};

struct SyncVerdict {
  bool synchronized = false;
  std::string daemon;                        // "chrony", "systemd-timesyncd", "none found"
  std::string reason;                        // one line: who said what
};

SyncVerdict decide_synchronized(const SyncWitnesses& w);

// The host's time zone: TZ (without a leading ':') when set, else what /etc/localtime links
// to below "zoneinfo/", else /etc/timezone, else "unknown". Pure over its inputs; the probe
// reads them. `localtime_target` is readlink's result ("" when not a link).
std::string time_zone_from(const char* tz_env, const std::string& localtime_target, const std::string& etc_timezone);
// Reads the inputs from this host (under `root`, "" for /) and calls time_zone_from.
std::string host_time_zone(const std::string& root = "");

}  // namespace ga::clock
