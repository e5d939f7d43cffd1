// Port error counters over the whole run (issue 11 item 4): the rdma probe's run-level
// readings on recorded sysfs trees whose counters the test rewrites between the run's start
// and end readings, the rates the judge derives from them (suites/rdma_rates.hpp), and the
// built-in criteria on those rates; and the MTU held against the other hosts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "probes_rdma_fixture.hpp"
#include "suites/rdma_rates.hpp"
#include "suites_fixture.hpp"
#include "topology/place.hpp"
#include "topology/topology.hpp"

namespace ga {
namespace {

namespace fs = std::filesystem;

// A host's copy of a recorded tree, in a scratch folder of its own.
struct Tree {
  fs::path root;
  Tree(const std::string& name, const std::string& host) {
    root = fs::temp_directory_path() / ("ga-rdma-counters-" + host + "-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::copy(std::string(GA_TEST_DATA_DIR) + "/rdma/" + name, root,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  ~Tree() { fs::remove_all(root); }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;
  void write(const std::string& dev, const std::string& rel, const std::string& v) const {
    std::ofstream(root / "sys/class/infiniband" / dev / "ports/1" / rel) << v << "\n";
  }
};

using rdma_fixture::HostRun;
using rdma_fixture::judge_runs;

// What a run does on one host: the start reading, the probe, `between` (the counters move
// while the run goes on), the end reading.
HostRun run_host(const std::string& host, const Tree& t, const std::function<void()>& between = {}) {
  return rdma_fixture::run_on(host, t.root.string(), between);
}

// criterion -> places that did not pass (fail, or warn at warning severity), rdma only
std::map<std::string, std::set<std::string>> not_passing(const Judgement& j) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& v : j.verdicts)
    if (v.criterion.rfind("rdma.", 0) == 0 && v.status != VerdictStatus::pass && v.status != VerdictStatus::skipped)
      out[v.criterion].insert(v.place);
  return out;
}

const Metric* metric_at(const std::vector<Metric>& ms, const std::string& name, const std::string& place) {
  for (const auto& m : ms)
    if (m.metric == name && m.place == place) return &m;
  return nullptr;
}

// ---- the derivation alone, on metrics made by hand (known clocks)

std::vector<Metric> readings(double t0, double t1, double sym0, double sym1, double rate_gbps) {
  std::vector<Sample> s;
  auto add = [&](const std::string& metric, const std::string& place, double v, const char* read, const char* unit) {
    Sample x = value_sample(place, metric, v, unit, read ? nlohmann::json{{"read", read}} : nlohmann::json::object());
    x.probe = "rdma";
    s.push_back(std::move(x));
  };
  add("rdma.counters_read_at", "h1", t0, "start", "s");
  add("rdma.counters_read_at", "h1", t1, "end", "s");
  add("rdma.counter.symbol_error", "h1/nic:mlx5_0", sym0, "start", "count");
  add("rdma.counter.symbol_error", "h1/nic:mlx5_0", sym1, "end", "count");
  add("rdma.counter.link_downed", "h1/nic:mlx5_0", 3, "start", "count");
  add("rdma.counter.link_downed", "h1/nic:mlx5_0", 3, "end", "count");
  add("rdma.rate_gbps", "h1/nic:mlx5_0", rate_gbps, nullptr, "Gb/s");
  return aggregate(s);
}

TEST(RdmaCounterRates, RiseIntervalAndErrorsPerBitFromTheTwoReadings) {
  // 400 Gb/s for 100 s is 4e13 bits: 20 symbol errors are 5e-13 per bit.
  const auto ms = readings(1000, 1100, 7, 27, 400);
  const auto d = judging::derive_rdma_counter_metrics(ms);
  const Metric* iv = metric_at(d, "rdma.counter_interval", "h1/nic:mlx5_0");
  ASSERT_TRUE(iv);
  EXPECT_DOUBLE_EQ(*iv->value, 100);
  const Metric* rise = metric_at(d, "rdma.counter_rise.symbol_error", "h1/nic:mlx5_0");
  ASSERT_TRUE(rise);
  EXPECT_DOUBLE_EQ(*rise->value, 20);
  EXPECT_EQ(rise->better, Better::lower);
  EXPECT_DOUBLE_EQ(*metric_at(d, "rdma.counter_rise.link_downed", "h1/nic:mlx5_0")->value, 0);
  const Metric* ber = metric_at(d, "rdma.counter_per_bit.symbol_error", "h1/nic:mlx5_0");
  ASSERT_TRUE(ber);
  EXPECT_DOUBLE_EQ(*ber->value, 20 / 4e13);
  EXPECT_EQ(ber->unit, "errors/bit");
  // link_downed is judged by its count, not per bit.
  EXPECT_FALSE(metric_at(d, "rdma.counter_per_bit.link_downed", "h1/nic:mlx5_0"));
}

TEST(RdmaCounterRates, ACounterThatWentDownWasResetAndCountsItsNewValue) {
  const auto d = judging::derive_rdma_counter_metrics(readings(0, 10, 500, 4, 400));
  EXPECT_DOUBLE_EQ(*metric_at(d, "rdma.counter_rise.symbol_error", "h1/nic:mlx5_0")->value, 4);
}

TEST(RdmaCounterRates, TheFirstAndLastReadingGoByTheClockNotByName) {
  // Readings named the other way round: the earlier clock is the start.
  const auto d = judging::derive_rdma_counter_metrics(readings(200, 100, 30, 10, 400));
  EXPECT_DOUBLE_EQ(*metric_at(d, "rdma.counter_rise.symbol_error", "h1/nic:mlx5_0")->value, 20);
  EXPECT_DOUBLE_EQ(*metric_at(d, "rdma.counter_interval", "h1/nic:mlx5_0")->value, 100);
}

TEST(RdmaCounterRates, OneReadingDerivesNothing) {
  // A run that died before its end keeps its start reading in the journal, and nothing is
  // made up from it.
  auto ms = readings(0, 10, 0, 5, 400);
  std::erase_if(ms, [](const Metric& m) { return m.params.value("read", "") == "end"; });
  EXPECT_TRUE(judging::derive_rdma_counter_metrics(ms).empty());
}

TEST(RdmaCounterRates, AddedInTheJudgesOrder) {
  auto ms = readings(0, 10, 0, 5, 400);
  judging::add_rdma_counter_metrics(ms);
  EXPECT_TRUE(std::is_sorted(ms.begin(), ms.end(), [](const Metric& a, const Metric& b) { return a.metric < b.metric; }));
  EXPECT_TRUE(metric_at(ms, "rdma.counter_per_bit.symbol_error", "h1/nic:mlx5_0"));
}

// The threshold as the built-in criteria hold it: just above 1e-12 fails, just below passes.
TEST(RdmaCounterRates, SymbolErrorRateAgainstTheBuiltInThreshold) {
  const auto crit = parse_criteria(builtin_criteria_text(), "builtin");
  auto status = [&](double errors) {
    testing::JournalBuilder jb({"h1"});
    // 400 Gb/s over 100 s carries 4e13 bits: the bound is 40 errors.
    for (const char* read : {"start", "end"}) {
      const bool end = std::string(read) == "end";
      jb.sample("rdma.counters_read_at", "h1", end ? 1100 : 1000, "s", {{"read", read}});
      jb.sample("rdma.counter.symbol_error", "h1/nic:mlx5_0", end ? errors : 0, "count", {{"read", read}});
    }
    jb.sample("rdma.rate_gbps", "h1/nic:mlx5_0", 400, "Gb/s", {{"link_layer", "InfiniBand"}});
    jb.probe("rdma");
    const auto j = judge(jb.build(), crit);
    const Verdict* v = testing::verdict_at(j, "rdma.link.symbol_ber", "h1/nic:mlx5_0");
    return v ? v->status : VerdictStatus::skipped;
  };
  EXPECT_EQ(status(39), VerdictStatus::pass);
  EXPECT_EQ(status(40), VerdictStatus::pass);
  EXPECT_EQ(status(41), VerdictStatus::fail);
  EXPECT_EQ(status(0), VerdictStatus::pass);
}

// ---- the probe on recorded trees, counters rewritten between the run's two readings

TEST(RdmaCounters, TheProbeReadsRawCountersAndTheClockAtTheRunsStartAndEnd) {
  Tree t("mixed-faults", "n1");
  const auto r = run_host("n1", t);
  std::set<std::string> reads;
  int counters = 0, hw = 0;
  for (const auto& s : r.samples) {
    if (s.metric == "rdma.counters_read_at") {
      EXPECT_EQ(s.place, "n1");
      reads.insert(s.params.at("read").get<std::string>());
    }
    if (s.metric.rfind("rdma.counter.", 0) == 0) ++counters;
    if (s.metric == "rdma.counter.out_of_sequence") ++hw;
    EXPECT_EQ(s.metric.find("errors_delta"), std::string::npos) << "the probe derives nothing";
  }
  EXPECT_EQ(reads, (std::set<std::string>{"start", "end"}));
  // 11 ports x 11 IB counters, plus the two RoCE ports' 5 hardware counters, twice.
  EXPECT_EQ(counters, 2 * (11 * 11 + 2 * 5));
  EXPECT_EQ(hw, 4);  // mlx5_5 and mlx5_6, start and end
}

TEST(RdmaCounters, CountersThatMoveDuringTheRunFailExactlyTheirPort) {
  Tree a("dell-8cx7-ndr400", "n1"), b("dell-8cx7-ndr400", "n2"), c("dell-8cx7-ndr400", "n3");
  const auto r1 = run_host("n1", a);
  // n2: mlx5_3's link went down and came back; mlx5_5 took 5000 symbol errors (in the
  // milliseconds of a unit test's run: far above 1e-12 of 400 Gb/s).
  const auto r2 = run_host("n2", b, [&] {
    b.write("mlx5_3", "counters/link_downed", "1");
    b.write("mlx5_5", "counters/symbol_error", "5000");
  });
  // n3: a link retrain and an excessive buffer overrun on mlx5_9, and traffic counters moving
  // on every port (data, not errors: never judged).
  const auto r3 = run_host("n3", c, [&] {
    c.write("mlx5_9", "counters/link_error_recovery", "2");
    c.write("mlx5_10", "counters/excessive_buffer_overrun_errors", "1");
    for (const char* d : {"mlx5_0", "mlx5_3", "mlx5_4"}) c.write(d, "counters/port_xmit_data", "123456789");
  });
  const auto j = judge_runs({r1, r2, r3});
  const auto np = not_passing(j);
  EXPECT_EQ(np.at("rdma.link.downed"), (std::set<std::string>{"n2/nic:mlx5_3"}));
  EXPECT_EQ(np.at("rdma.link.symbol_ber"), (std::set<std::string>{"n2/nic:mlx5_5"}));
  EXPECT_EQ(np.at("rdma.link.error_recovery"), (std::set<std::string>{"n3/nic:mlx5_9"}));
  EXPECT_EQ(np.at("rdma.link.buffer_overrun"), (std::set<std::string>{"n3/nic:mlx5_10"}));
  std::set<std::string> all;
  for (const auto& [crit, places] : np) all.insert(places.begin(), places.end());
  EXPECT_EQ(all, (std::set<std::string>{"n2/nic:mlx5_3", "n2/nic:mlx5_5", "n3/nic:mlx5_9", "n3/nic:mlx5_10"}));
  // Every port of every host was judged on link_downed: 8 ports x 3 hosts.
  int judged = 0;
  for (const auto& v : j.verdicts) judged += v.criterion == "rdma.link.downed";
  EXPECT_EQ(judged, 24);
  const Verdict* v = testing::verdict_at(j, "rdma.link.downed", "n2/nic:mlx5_3");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::fail);
  EXPECT_EQ(j.summary.exit_code, kExitNodeFault);
}

TEST(RdmaCounters, RoceTransportCountersWarnOnTheirPort) {
  Tree t("mixed-faults", "n1");
  const auto r = run_host("n1", t, [&] { t.write("mlx5_6", "hw_counters/out_of_sequence", "17"); });
  const auto j = judge_runs({r});
  const Verdict* v = testing::verdict_at(j, "rdma.roce.out_of_sequence", "n1/nic:mlx5_6");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::fail);
  EXPECT_EQ(v->severity, Severity::warning);
  const Verdict* quiet = testing::verdict_at(j, "rdma.roce.out_of_sequence", "n1/nic:mlx5_5");
  ASSERT_TRUE(quiet);
  EXPECT_EQ(quiet->status, VerdictStatus::pass);
}

TEST(RdmaCounters, NothingMovedNothingFails) {
  Tree a("dell-8cx7-ndr400", "n1"), b("dell-8cx7-ndr400", "n2");
  const auto j = judge_runs({run_host("n1", a), run_host("n2", b)});
  EXPECT_TRUE(not_passing(j).empty());
  EXPECT_EQ(j.summary.exit_code, kExitPass) << j.summary.overall;
  int judged = 0;
  for (const auto& v : j.verdicts) judged += v.criterion == "rdma.link.symbol_ber" && v.status == VerdictStatus::pass;
  EXPECT_EQ(judged, 16);
}

// ---- agreement across hosts

TEST(RdmaAgreement, AnMtuMismatchOnOneHostFailsThatHostsPortAlone) {
  Tree a("dell-8cx7-ndr400", "n1"), b("dell-8cx7-ndr400", "n2"), c("dell-8cx7-ndr400", "n3");
  c.write("mlx5_4", "active_mtu", "2048");
  const auto j = judge_runs({run_host("n1", a), run_host("n2", b), run_host("n3", c)});
  const auto np = not_passing(j);
  EXPECT_EQ(np.at("rdma.mtu.majority"), (std::set<std::string>{"n3/nic:mlx5_4"}));
  EXPECT_EQ(np.size(), 1u);
  const Verdict* v = testing::verdict_at(j, "rdma.mtu.majority", "n3/nic:mlx5_4");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->severity, Severity::error);
  EXPECT_EQ(j.summary.exit_code, kExitNodeFault);
}

TEST(RdmaAgreement, LinkLayerAndWidthMismatchFailThatHostsPortAlone) {
  Tree a("dell-8cx7-ndr400", "n1"), b("dell-8cx7-ndr400", "n2"), c("dell-8cx7-ndr400", "n3");
  b.write("mlx5_9", "rate", "200 Gb/sec (2X NDR)");
  c.write("mlx5_11", "link_layer", "Ethernet");
  const auto j = judge_runs({run_host("n1", a), run_host("n2", b), run_host("n3", c)});
  const auto np = not_passing(j);
  EXPECT_EQ(np.at("rdma.width.majority"), (std::set<std::string>{"n2/nic:mlx5_9"}));
  EXPECT_EQ(np.at("rdma.rate.majority"), (std::set<std::string>{"n2/nic:mlx5_9"}));
  EXPECT_EQ(np.at("rdma.link_layer.majority"), (std::set<std::string>{"n3/nic:mlx5_11"}));
}

}  // namespace
}  // namespace ga
