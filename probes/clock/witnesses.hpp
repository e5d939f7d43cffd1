// Asks this host's kernel and time daemons about the clock (adjtimex, chronyc, timedatectl),
// each tool under a time limit; what is absent or broken becomes a note, never an error.
#pragma once
#include <string>

#include "probes/clock/sync_state.hpp"

namespace ga::clock {

struct HostTimeView {
  SyncWitnesses witnesses;
  std::optional<ChronySource> chrony_selected;
  int chrony_sources = -1;           // -1: not asked
  std::optional<TimesyncStatus> timesync;
};

HostTimeView collect_host_time_view(double command_timeout_s);

}  // namespace ga::clock
