// The time-daemon parsers against every recorded output in tests/data/recorded/timesync/,
// asserting what PROVENANCE.md says of each file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "probes/clock/sync_state.hpp"
#include "probes/clock/timesync_parsers.hpp"

namespace ga::clock {
namespace {

std::string fixture(const std::string& name) {
  const std::string path = std::string(GA_FIXTURES_DIR) + "/timesync/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("missing fixture " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ClockParsers, ChronyTrackingSyncedDocsExample) {
  auto t = parse_chronyc_tracking(fixture("chronyc-tracking-synced-chrony-docs-example.txt"));
  EXPECT_EQ(t.reference_id, "CB00710F");
  EXPECT_EQ(t.reference_name, "ntp1.example.net");
  EXPECT_EQ(t.stratum, 3);
  ASSERT_TRUE(t.system_offset);
  EXPECT_DOUBLE_EQ(*t.system_offset, -0.000006523);  // "slow of NTP time": negative
  ASSERT_TRUE(t.last_offset);
  EXPECT_DOUBLE_EQ(*t.last_offset, -0.000006747);
  ASSERT_TRUE(t.frequency_ppm);
  EXPECT_DOUBLE_EQ(*t.frequency_ppm, -3.225);
  ASSERT_TRUE(t.root_delay);
  EXPECT_DOUBLE_EQ(*t.root_delay, 0.013639022);
  EXPECT_EQ(t.leap_status, "Normal");
  EXPECT_TRUE(t.synchronized());
}

TEST(ClockParsers, ChronyTrackingSyncedFnalFast) {
  auto t = parse_chronyc_tracking(fixture("chronyc-tracking-synced-fnal-real.txt"));
  EXPECT_EQ(t.reference_id, "83E17991");
  EXPECT_EQ(t.reference_name, "chablis.fnal.gov");
  EXPECT_EQ(t.stratum, 3);
  ASSERT_TRUE(t.system_offset);
  EXPECT_DOUBLE_EQ(*t.system_offset, 0.000004709);  // "fast": positive
  EXPECT_DOUBLE_EQ(*t.frequency_ppm, 2.192);
  EXPECT_DOUBLE_EQ(*t.root_dispersion, 0.018570010);
  EXPECT_EQ(t.leap_status, "Normal");
  EXPECT_TRUE(t.synchronized());
}

TEST(ClockParsers, ChronyTrackingNotSynchronisedStratum0) {
  auto t = parse_chronyc_tracking(fixture("chronyc-tracking-not-synchronised-stratum0.txt"));
  EXPECT_EQ(t.reference_id, "00000000");
  EXPECT_EQ(t.reference_name, "");
  EXPECT_EQ(t.stratum, 0);
  EXPECT_DOUBLE_EQ(*t.root_delay, 1.0);
  EXPECT_DOUBLE_EQ(*t.root_dispersion, 1.0);
  EXPECT_EQ(t.leap_status, "Not synchronised");
  EXPECT_FALSE(t.synchronized());
}

TEST(ClockParsers, ChronyTrackingRejectsOtherText) {
  EXPECT_THROW(parse_chronyc_tracking("506 Cannot talk to daemon\n"), std::runtime_error);
  EXPECT_THROW(parse_chronyc_tracking(fixture("timedatectl-synced-systemd-man-example.txt")), std::runtime_error);
}

TEST(ClockParsers, ChronySourcesDocsExample) {
  auto s = parse_chronyc_sources(fixture("chronyc-sources-chrony-docs-example.txt"));
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].mode, '#');
  EXPECT_EQ(s[0].state, '*');
  EXPECT_EQ(s[0].name, "GPS0");
  EXPECT_EQ(s[0].stratum, 0);
  EXPECT_EQ(s[0].reach, 0377);
  ASSERT_TRUE(s[0].offset);
  EXPECT_NEAR(*s[0].offset, -621e-9, 1e-15);  // the adjusted offset, in brackets
  EXPECT_NEAR(*s[0].error, 134e-9, 1e-15);
  EXPECT_EQ(s[1].state, '?');
  EXPECT_EQ(s[1].name, "ntp1.example.net");
  EXPECT_NEAR(*s[1].error, 43e-3, 1e-12);
  EXPECT_EQ(s[2].state, '+');
  EXPECT_EQ(s[2].stratum, 1);
  EXPECT_NEAR(*s[2].offset, -2619e-6, 1e-12);
  const ChronySource* sel = selected_source(s);
  ASSERT_NE(sel, nullptr);
  EXPECT_EQ(sel->name, "GPS0");
}

TEST(ClockParsers, ChronySourcesUnreachable) {
  auto s = parse_chronyc_sources(fixture("chronyc-sources-unreachable-reach0.txt"));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].mode, '^');
  EXPECT_EQ(s[0].state, '?');
  EXPECT_EQ(s[0].name, "192.168.0.5");
  EXPECT_EQ(s[0].stratum, 0);
  EXPECT_EQ(s[0].reach, 0);
  EXPECT_EQ(selected_source(s), nullptr);
  EXPECT_THROW(parse_chronyc_sources("nothing here\n"), std::runtime_error);
}

TEST(ClockParsers, TimedatectlSyncedManExample) {
  auto t = parse_timedatectl_status(fixture("timedatectl-synced-systemd-man-example.txt"));
  EXPECT_EQ(t.time_zone, "Europe/Warsaw");
  ASSERT_TRUE(t.synchronized);
  EXPECT_TRUE(*t.synchronized);
  EXPECT_EQ(t.ntp_service, "active");
  ASSERT_TRUE(t.rtc_in_local_tz);
  EXPECT_FALSE(*t.rtc_in_local_tz);
  EXPECT_EQ(t.universal_time, "Thu 2017-09-21 14:08:56 UTC");
}

TEST(ClockParsers, TimedatectlNotSyncedNtpInactive) {
  auto t = parse_timedatectl_status(fixture("timedatectl-not-synced-ntp-inactive-openeuler-docs.txt"));
  EXPECT_EQ(t.time_zone, "America/New_York");
  EXPECT_FALSE(*t.synchronized);
  EXPECT_EQ(t.ntp_service, "inactive");
  EXPECT_FALSE(*t.rtc_in_local_tz);
}

TEST(ClockParsers, TimedatectlNotSyncedRtcInLocalTz) {
  auto t = parse_timedatectl_status(fixture("timedatectl-not-synced-rtc-drift-rtc-local-tz-yes.txt"));
  EXPECT_EQ(t.time_zone, "UTC");
  EXPECT_FALSE(*t.synchronized);
  EXPECT_EQ(t.ntp_service, "active");
  EXPECT_TRUE(*t.rtc_in_local_tz);
  EXPECT_EQ(t.local_time, "Sat 2027-12-25 00:02:26 UTC");
  EXPECT_EQ(t.rtc_time, "Fri 2025-10-31 05:07:35");
}

TEST(ClockParsers, TimedatectlSyncedButNtpInactive) {
  auto t = parse_timedatectl_status(fixture("timedatectl-synced-yes-but-ntp-inactive.txt"));
  EXPECT_EQ(t.time_zone, "Asia/Shanghai");
  EXPECT_TRUE(*t.synchronized);
  EXPECT_EQ(t.ntp_service, "inactive");
  EXPECT_FALSE(*t.rtc_in_local_tz);
}

TEST(ClockParsers, TimedatectlOlderKeys) {
  auto t = parse_timedatectl_status(
      "      Local time: Mon 2017-01-02 10:00:00 UTC\n       Time zone: Etc/UTC (UTC, +0000)\n"
      " Network time on: yes\nNTP synchronized: no\n RTC in local TZ: no\n");
  EXPECT_EQ(t.time_zone, "Etc/UTC");
  EXPECT_FALSE(*t.synchronized);
  EXPECT_EQ(t.ntp_service, "active");
  EXPECT_THROW(parse_timedatectl_status("Failed to connect to bus: Host is down\n"), std::runtime_error);
}

TEST(ClockParsers, TimedatectlShowMachineReadable) {
  auto s = parse_timedatectl_show(fixture("timedatectl-show-machine-readable-synced.txt"));
  EXPECT_EQ(s.timezone, "Asia/Shanghai");
  EXPECT_FALSE(*s.local_rtc);
  EXPECT_TRUE(*s.can_ntp);
  EXPECT_FALSE(*s.ntp);
  EXPECT_TRUE(*s.ntp_synchronized);
  EXPECT_EQ(s.values.at("TimeUSec"), "Sat 2020-07-04 20:01:41 CST");
  EXPECT_THROW(parse_timedatectl_show("System has not been booted with systemd as init system (PID 1).\n"),
               std::runtime_error);
}

TEST(ClockParsers, TimesyncStatusManExample) {
  auto t = parse_timesync_status(fixture("timedatectl-timesync-status-systemd-man-example.txt"));
  EXPECT_EQ(t.server, "216.239.38.15 (time4.google.com)");
  EXPECT_EQ(t.leap, "normal");
  EXPECT_EQ(t.stratum, 1);
  ASSERT_TRUE(t.offset);
  EXPECT_NEAR(*t.offset, 316e-6, 1e-12);
  EXPECT_NEAR(*t.delay, 349e-6, 1e-12);
  EXPECT_NEAR(*t.root_distance, 335e-6, 1e-12);
  EXPECT_NEAR(*t.frequency_ppm, -8.802, 1e-12);
}

TEST(ClockParsers, Durations) {
  EXPECT_NEAR(*parse_duration("1min 4s"), 64, 1e-12);
  EXPECT_NEAR(*parse_duration("34min 8s"), 2048, 1e-12);
  EXPECT_NEAR(*parse_duration("-2629us"), -2.629e-3, 1e-15);
  EXPECT_NEAR(*parse_duration("+0ns"), 0, 0);
  EXPECT_NEAR(*parse_duration("0"), 0, 0);
  EXPECT_FALSE(parse_duration("fast"));
  EXPECT_FALSE(parse_duration(""));
}

// Every fixture in the folder is read by some test above: a new recording cannot be ignored.
TEST(ClockParsers, EveryFixtureIsCovered) {
  const std::set<std::string> covered = {
      "chronyc-sources-chrony-docs-example.txt",       "chronyc-sources-unreachable-reach0.txt",
      "chronyc-tracking-not-synchronised-stratum0.txt", "chronyc-tracking-synced-chrony-docs-example.txt",
      "chronyc-tracking-synced-fnal-real.txt",          "timedatectl-not-synced-ntp-inactive-openeuler-docs.txt",
      "timedatectl-not-synced-rtc-drift-rtc-local-tz-yes.txt", "timedatectl-show-machine-readable-synced.txt",
      "timedatectl-synced-systemd-man-example.txt",     "timedatectl-synced-yes-but-ntp-inactive.txt",
      "timedatectl-timesync-status-systemd-man-example.txt"};
  for (const auto& e : std::filesystem::directory_iterator(std::string(GA_FIXTURES_DIR) + "/timesync"))
    EXPECT_TRUE(covered.count(e.path().filename().string())) << e.path() << " has no test";
}

// The synchronised verdict from the fixtures' witnesses: any "no" wins and is named.
TEST(ClockSync, EveryWitnessMustSayYes) {
  SyncWitnesses w;
  w.kernel = kernel_clock_from(0 /*TIME_OK*/, 0x2001 /*STA_PLL|STA_NANO*/, 1500, 20);
  w.chrony = parse_chronyc_tracking(fixture("chronyc-tracking-synced-chrony-docs-example.txt"));
  auto v = decide_synchronized(w);
  EXPECT_TRUE(v.synchronized) << v.reason;
  EXPECT_EQ(v.daemon, "chrony");
  EXPECT_NE(v.reason.find("CB00710F (ntp1.example.net) stratum 3"), std::string::npos) << v.reason;

  w.chrony = parse_chronyc_tracking(fixture("chronyc-tracking-not-synchronised-stratum0.txt"));
  v = decide_synchronized(w);
  EXPECT_FALSE(v.synchronized);
  EXPECT_NE(v.reason.find("Not synchronised"), std::string::npos) << v.reason;

  w.chrony.reset();
  w.timedatectl_status = parse_timedatectl_status(fixture("timedatectl-not-synced-rtc-drift-rtc-local-tz-yes.txt"));
  v = decide_synchronized(w);
  EXPECT_FALSE(v.synchronized);
  EXPECT_EQ(v.daemon, "systemd-timesyncd");
  EXPECT_NE(v.reason.find("timedatectl: clock synchronized no, NTP service active"), std::string::npos) << v.reason;

  // `show` wins over the status page when both are there.
  w.timedatectl_show = parse_timedatectl_show(fixture("timedatectl-show-machine-readable-synced.txt"));
  v = decide_synchronized(w);
  EXPECT_TRUE(v.synchronized) << v.reason;
  EXPECT_EQ(v.daemon, "none found");  // NTP=no: timesyncd is not what keeps this clock
}

TEST(ClockSync, UnsyncedKernelFailsAlone) {
  SyncWitnesses w;
  w.kernel = kernel_clock_from(5 /*TIME_ERROR*/, 0x40 /*STA_UNSYNC*/, 16000000, 16000000);
  w.notes.push_back("`timedatectl show` unusable: timedatectl exited with 1");
  auto v = decide_synchronized(w);
  EXPECT_FALSE(v.synchronized);
  EXPECT_EQ(v.daemon, "none found");
  EXPECT_NE(v.reason.find("STA_UNSYNC set, adjtimex state TIME_ERROR, maxerror 16"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("timedatectl show"), std::string::npos) << v.reason;

  // chronyc installed, chronyd silent: not synchronised even with a happy kernel.
  SyncWitnesses dead;
  dead.kernel = kernel_clock_from(0, 0x2001, 1500, 20);
  dead.chrony_error = "`chronyc -n tracking` unusable: chronyc exited with 1: 506 Cannot talk to daemon";
  v = decide_synchronized(dead);
  EXPECT_FALSE(v.synchronized);
  EXPECT_EQ(v.daemon, "chrony");
  EXPECT_NE(v.reason.find("did not answer"), std::string::npos) << v.reason;

  SyncWitnesses none;
  none.kernel_error = "ntp_adjtime: Operation not permitted";
  v = decide_synchronized(none);
  EXPECT_FALSE(v.synchronized);
  EXPECT_NE(v.reason.find("unreadable"), std::string::npos);
}

TEST(ClockKernel, FlagsAndState) {
  auto k = kernel_clock_from(5, 0x40, 16000000, 16000000);
  EXPECT_FALSE(k.synchronized());
  EXPECT_EQ(k.state_name(), "TIME_ERROR");
  EXPECT_EQ(k.status_flags(), "STA_UNSYNC");
  EXPECT_DOUBLE_EQ(k.maxerror, 16.0);
  auto ok = kernel_clock_from(0, 0x2001, 1500, 20);
  EXPECT_TRUE(ok.synchronized());
  EXPECT_EQ(ok.status_flags(), "STA_PLL|STA_NANO");
  EXPECT_EQ(ok.why_not(), "");
  EXPECT_DOUBLE_EQ(ok.esterror, 20e-6);
}

TEST(ClockTimeZone, SourcesInOrder) {
  EXPECT_EQ(time_zone_from(":Europe/Paris", "/usr/share/zoneinfo/Etc/UTC", "Etc/UTC\n"), "Europe/Paris");
  EXPECT_EQ(time_zone_from("", "/usr/share/zoneinfo/Asia/Tokyo", "Etc/UTC\n"), "Asia/Tokyo");
  EXPECT_EQ(time_zone_from(nullptr, "../usr/share/zoneinfo/America/New_York", ""), "America/New_York");
  EXPECT_EQ(time_zone_from(nullptr, "", "Etc/UTC\n"), "Etc/UTC");
  EXPECT_EQ(time_zone_from(nullptr, "", ""), "unknown");
}

}  // namespace
}  // namespace ga::clock
