// Parsers for what time daemons say about the clock: `chronyc tracking`, `chronyc sources`,
// `timedatectl` (status), `timedatectl show` and `timedatectl timesync-status`. Pure functions
// of the text (run with LC_ALL=C), tested on recorded outputs in tests/data/recorded/timesync/.
// A field a version does not print stays empty; text that is not the tool's output at all
// throws std::runtime_error naming the tool and what is missing.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ga::clock {

struct ChronyTracking {
  std::string reference_id;        // hex, "00000000" when there is no reference
  std::string reference_name;      // in parentheses after the id; may be empty
  int stratum = 0;
  std::optional<double> system_offset;  // s; system clock minus NTP time: "slow" is negative
  std::optional<double> last_offset;    // s, signed as printed
  std::optional<double> rms_offset;     // s
  std::optional<double> frequency_ppm;  // "fast" positive, "slow" negative
  std::optional<double> root_delay, root_dispersion;  // s
  std::string leap_status;         // "Normal", "Insert second", "Delete second", "Not synchronised"
  // chrony's own verdict: a reference, a stratum, and a leap status other than "Not synchronised".
  bool synchronized() const;
};
ChronyTracking parse_chronyc_tracking(const std::string& text);

struct ChronySource {
  char mode = '?';                 // ^ server, = peer, # reference clock
  char state = '?';                // * selected, + combined, - not combined, ? unusable, x falseticker, ~ too variable
  std::string name;
  int stratum = 0;
  int poll = 0;
  int reach = 0;                   // the octal register as a number (0377 = 255: the last 8 polls answered)
  std::optional<double> offset;    // s, the "Last sample" adjusted offset
  std::optional<double> error;     // s, the +/- margin
};
std::vector<ChronySource> parse_chronyc_sources(const std::string& text);
// The selected source (state '*'), if any.
const ChronySource* selected_source(const std::vector<ChronySource>& sources);

struct TimedatectlStatus {
  std::string local_time, universal_time, rtc_time;
  std::string time_zone;           // the zone name only ("Europe/Warsaw"), without "(CEST, +0200)"
  std::optional<bool> synchronized;   // "System clock synchronized" (older: "NTP synchronized")
  std::string ntp_service;            // "active", "inactive", "n/a" (older "Network time on": yes/no)
  std::optional<bool> rtc_in_local_tz;
};
TimedatectlStatus parse_timedatectl_status(const std::string& text);

struct TimedatectlShow {
  std::map<std::string, std::string> values;  // every key=value line
  std::string timezone;
  std::optional<bool> local_rtc, can_ntp, ntp, ntp_synchronized;
};
TimedatectlShow parse_timedatectl_show(const std::string& text);

struct TimesyncStatus {
  std::string server;
  std::string leap;
  int stratum = 0;
  std::optional<double> offset;    // s
  std::optional<double> delay;     // s
  std::optional<double> root_distance;  // s
  std::optional<double> frequency_ppm;
};
TimesyncStatus parse_timesync_status(const std::string& text);

// "+316us", "1min 4s", "-2629us", "134ns", "0" -> seconds; nullopt if not a duration.
std::optional<double> parse_duration(const std::string& s);

}  // namespace ga::clock
