// compare: mad_outlier, the robust outlier test for criteria calibrated from the cluster itself:
// a place fails when it is further from the median than k scaled MADs and than floor_pct of
// the median, on the worse side of the metric only.
#include <gtest/gtest.h>

#include "suites_fixture.hpp"

namespace ga {
namespace {

using testing::criteria;
using testing::JournalBuilder;
using testing::verdict_at;

const char* kRule = R"(  - name: bw.outlier
    metric: x.bw
    compare: mad_outlier
    k: 5
    floor_pct: 1
    scope: host
)";

// The rule above (without its scope) for another metric.
std::string rule_for(const std::string& name, const std::string& metric) {
  return "  - name: " + name + "\n    metric: " + metric + "\n    compare: mad_outlier\n    k: 5\n    floor_pct: 1\n";
}

// One value per host h1..hN, each host on a kernel of its own.
JournalBuilder hosts_with(const std::vector<double>& values, const std::string& metric = "x.bw",
                          const std::string& unit = "B/s") {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < values.size(); ++i) names.push_back("h" + std::to_string(i + 1));
  JournalBuilder b(names);
  for (std::size_t i = 0; i < values.size(); ++i) {
    b.boot_id(names[i], "kernel-" + names[i]);
    b.sample(metric, names[i], values[i], unit);
  }
  b.probe("x");
  return b;
}

MetricCatalogue catalogue() {
  MetricCatalogue c;
  c.add("x", {"x.bw", "B/s", Better::higher, "a bandwidth", Combine::median});
  c.add("x", {"x.lat", "s", Better::lower, "a latency", Combine::median});
  c.add("x", {"x.temp", "degC", Better::none, "a state held against its peers", Combine::median});
  return c;
}

TEST(MadOutlier, AnOutlierFailsAndItsPeersPass) {
  // Nine places spread by about 1% around 100 GB/s and one at half of it.
  const auto b = hosts_with({100e9, 101e9, 99e9, 100.5e9, 99.5e9, 100e9, 101e9, 99e9, 100e9, 50e9});
  const auto j = judge(b.build(), criteria(kRule));
  for (int h = 1; h <= 9; ++h) {
    const Verdict* v = verdict_at(j, "bw.outlier", "h" + std::to_string(h));
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->status, VerdictStatus::pass) << v->reason;
  }
  const Verdict* bad = verdict_at(j, "bw.outlier", "h10");
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->status, VerdictStatus::fail);
  EXPECT_NE(bad->reason.find("an outlier"), std::string::npos) << bad->reason;
  EXPECT_NE(bad->reason.find("over 10 hosts"), std::string::npos) << bad->reason;
  EXPECT_EQ(j.summary.overall, "FAIL");
  // The bound says what it was made of: the median and the MAD it was held against.
  EXPECT_EQ(bad->bounds.at("op"), "mad_outlier");
  EXPECT_DOUBLE_EQ(bad->bounds.at("median").get<double>(), 100e9);
  EXPECT_GT(bad->bounds.at("mad").get<double>(), 0);
}

TEST(MadOutlier, OnePlaceCannotDragTheReference) {
  // A mean and a standard deviation would be dragged by the two wild values until nothing
  // failed; the median and the MAD are not.
  const auto b = hosts_with({100e9, 100.2e9, 99.8e9, 100.1e9, 99.9e9, 1e9, 1e12});
  const auto j = judge(b.build(), criteria(kRule));
  EXPECT_EQ(verdict_at(j, "bw.outlier", "h6")->status, VerdictStatus::fail);
  EXPECT_EQ(verdict_at(j, "bw.outlier", "h7")->status, VerdictStatus::fail);  // no catalogue: both sides
  for (const char* h : {"h1", "h2", "h3", "h4", "h5"}) EXPECT_EQ(verdict_at(j, "bw.outlier", h)->status, VerdictStatus::pass);
}

TEST(MadOutlier, TheFloorKeepsAnIdenticalClusterFromFailingATinyDifference) {
  // Seven places agree to the last digit: the MAD is 0, and without a floor a place 0.1% off
  // would be "infinitely many MADs" away.
  const auto b = hosts_with({100e9, 100e9, 100e9, 100e9, 100e9, 100e9, 100e9, 99.9e9});
  const auto floored = judge(b.build(), criteria(kRule));
  const Verdict* v = verdict_at(floored, "bw.outlier", "h8");
  ASSERT_NE(v, nullptr);
  EXPECT_DOUBLE_EQ(v->bounds.at("mad").get<double>(), 0);
  EXPECT_EQ(v->status, VerdictStatus::pass) << v->reason;

  const auto none = judge(b.build(), criteria(R"(  - name: bw.outlier
    metric: x.bw
    compare: mad_outlier
    k: 5
    floor_pct: 0
    scope: host
)"));
  EXPECT_EQ(verdict_at(none, "bw.outlier", "h8")->status, VerdictStatus::fail);

  // The floor is a floor, not a pass: 5% off still fails a 1% floor.
  const auto far = hosts_with({100e9, 100e9, 100e9, 100e9, 100e9, 100e9, 100e9, 95e9});
  EXPECT_EQ(verdict_at(judge(far.build(), criteria(kRule)), "bw.outlier", "h8")->status, VerdictStatus::fail);
}

TEST(MadOutlier, OnlyTheWorseSideFails) {
  const auto cat = catalogue();
  // Higher is better: the slow place fails, the fast one is no fault of its own.
  const auto bw = hosts_with({100e9, 101e9, 99e9, 100e9, 100.5e9, 50e9, 200e9});
  const auto jb = judge(bw.build(), criteria(kRule), &cat);
  EXPECT_EQ(verdict_at(jb, "bw.outlier", "h6")->status, VerdictStatus::fail);
  const Verdict* fast = verdict_at(jb, "bw.outlier", "h7");
  EXPECT_EQ(fast->status, VerdictStatus::pass) << fast->reason;
  EXPECT_NE(fast->reason.find("better side"), std::string::npos) << fast->reason;
  EXPECT_TRUE(fast->bounds.contains("low"));
  EXPECT_FALSE(fast->bounds.contains("high"));

  // Lower is better: the slow (high) latency fails, the quick one passes.
  const auto lat = hosts_with({2e-6, 2.02e-6, 1.98e-6, 2e-6, 2.01e-6, 0.5e-6, 8e-6}, "x.lat", "s");
  const auto jl = judge(lat.build(), criteria(rule_for("lat.outlier", "x.lat")), &cat);
  EXPECT_EQ(verdict_at(jl, "lat.outlier", "h6")->status, VerdictStatus::pass);
  EXPECT_EQ(verdict_at(jl, "lat.outlier", "h7")->status, VerdictStatus::fail);

  // No better direction: both sides fail.
  const auto t = hosts_with({60, 61, 59, 60, 60.5, 30, 90}, "x.temp", "degC");
  const auto jt = judge(t.build(), criteria(rule_for("temp.outlier", "x.temp")), &cat);
  EXPECT_EQ(verdict_at(jt, "temp.outlier", "h6")->status, VerdictStatus::fail);
  EXPECT_EQ(verdict_at(jt, "temp.outlier", "h7")->status, VerdictStatus::fail);
  EXPECT_TRUE(verdict_at(jt, "temp.outlier", "h7")->bounds.contains("low"));
  EXPECT_TRUE(verdict_at(jt, "temp.outlier", "h7")->bounds.contains("high"));
}

TEST(MadOutlier, HostsOnOneKernelAreNotHeldAgainstEachOther) {
  // h1..h3 share one kernel (fake hosts) and were slow together: skipped, as for
  // within_pct_of_median; the median and MAD are those of the hosts with a kernel of their own.
  auto b = hosts_with({10e9, 10e9, 10e9, 100e9, 100e9, 101e9, 99e9, 50e9});
  for (const char* h : {"h1", "h2", "h3"}) b.boot_id(h, "shared");
  const auto j = judge(b.build(), criteria(kRule));
  for (const char* h : {"h1", "h2", "h3"}) {
    const Verdict* v = verdict_at(j, "bw.outlier", h);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->status, VerdictStatus::skipped);
    EXPECT_NE(v->reason.find("shares one kernel"), std::string::npos) << v->reason;
  }
  EXPECT_EQ(verdict_at(j, "bw.outlier", "h8")->status, VerdictStatus::fail);
  EXPECT_EQ(verdict_at(j, "bw.outlier", "h4")->status, VerdictStatus::pass);
  EXPECT_NE(verdict_at(j, "bw.outlier", "h4")->reason.find("over 5 hosts"), std::string::npos)
      << verdict_at(j, "bw.outlier", "h4")->reason;
}

TEST(MadOutlier, TheParserAsksForKAndTheFloor) {
  auto error_of = [](const std::string& body) {
    try {
      criteria(body);
    } catch (const CriteriaError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string head = "  - name: r\n    metric: x.bw\n    compare: mad_outlier\n";
  EXPECT_NE(error_of(head + "    floor_pct: 1\n").find("test.yaml:3: criterion \"r\": compare: mad_outlier needs k"),
            std::string::npos)
      << error_of(head + "    floor_pct: 1\n");
  EXPECT_NE(error_of(head + "    k: 5\n").find("needs floor_pct"), std::string::npos);
  EXPECT_NE(error_of(head + "    k: -1\n    floor_pct: 1\n").find("k must be a positive number"), std::string::npos);
  EXPECT_NE(error_of(head + "    k: 5\n    floor_pct: 1\n    pct: 3\n").find("pct does not apply to compare: mad_outlier"),
            std::string::npos);
  EXPECT_NE(error_of("  - name: r\n    metric: x.bw\n    compare: \">=\"\n    value: 1\n    k: 5\n")
                .find("k does not apply to compare: >="),
            std::string::npos);
  const CriteriaSet ok = criteria(head + "    k: 3.5\n    floor_pct: 0.5\n");
  ASSERT_EQ(ok.criteria.size(), 1u);
  EXPECT_EQ(ok.criteria[0].comparator, Comparator::mad_outlier);
  EXPECT_DOUBLE_EQ(ok.criteria[0].k, 3.5);
  EXPECT_DOUBLE_EQ(ok.criteria[0].floor_pct, 0.5);
}

}  // namespace
}  // namespace ga

namespace ga {
namespace {

const char* kCountRule = R"(  - name: timeouts.outlier
    metric: net.tcp.timeouts
    compare: mad_outlier
    k: 6
    floor: 5
    scope: host
)";

// As the net probe declares it: a count, lower is better, a network namespace's own.
MetricCatalogue net_catalogue() {
  MetricCatalogue c;
  c.add("net", MetricDecl{"net.tcp.timeouts", "count", Better::lower, "timeouts", Combine::median}.own_network());
  return c;
}

TEST(MadOutlier, AnAbsoluteFloorAllowsACountWhoseMedianIsZero) {
  // Counts of a clean fabric: the median and MAD are 0, so no percentage of either allows the
  // host with 3; `floor` does, and the host with 50 is still an outlier.
  const auto b = hosts_with({0, 0, 0, 0, 0, 0, 3, 50}, "net.tcp.timeouts", "count");
  const auto cat = net_catalogue();
  const auto j = judge(b.build(), criteria(kCountRule), &cat);
  EXPECT_EQ(verdict_at(j, "timeouts.outlier", "h7")->status, VerdictStatus::pass) << verdict_at(j, "timeouts.outlier", "h7")->reason;
  const Verdict* bad = verdict_at(j, "timeouts.outlier", "h8");
  EXPECT_EQ(bad->status, VerdictStatus::fail);
  EXPECT_NE(bad->reason.find("at least 5"), std::string::npos) << bad->reason;
  EXPECT_DOUBLE_EQ(bad->bounds.at("floor").get<double>(), 5);
  std::string pct = kCountRule;
  pct.replace(pct.find("floor: 5"), 8, "floor_pct: 50");
  EXPECT_EQ(verdict_at(judge(b.build(), criteria(pct), &cat), "timeouts.outlier", "h7")->status, VerdictStatus::fail);
}

TEST(MadOutlier, ANetworkNamespacesCountersAreComparedAcrossHostsOnOneKernel) {
  // Fake hosts share one kernel but each has its own network stack: their net.* counters are
  // independent evidence (MetricDecl::own_network), so none is skipped and the lossy one fails.
  auto b = hosts_with({0, 1, 0, 2, 0, 1, 0, 40}, "net.tcp.timeouts", "count");
  for (int i = 1; i <= 8; ++i) b.boot_id("h" + std::to_string(i), "shared");
  const auto cat = net_catalogue();
  const auto j = judge(b.build(), criteria(kCountRule), &cat);
  EXPECT_EQ(verdict_at(j, "timeouts.outlier", "h8")->status, VerdictStatus::fail);
  for (int i = 1; i <= 7; ++i)
    EXPECT_EQ(verdict_at(j, "timeouts.outlier", "h" + std::to_string(i))->status, VerdictStatus::pass) << i;
}

TEST(MadOutlier, TheFloorIsANumberAtLeastZeroAndEitherFloorWillDo) {
  const std::string head = "  - name: r\n    metric: x.bw\n    compare: mad_outlier\n    k: 5\n";
  EXPECT_THROW(criteria(head + "    floor: -1\n"), CriteriaError);
  EXPECT_THROW(criteria(head + "    floor: lots\n"), CriteriaError);
  EXPECT_DOUBLE_EQ(criteria(head + "    floor: 2\n").criteria[0].floor, 2);
  EXPECT_THROW(criteria("  - name: r\n    metric: x.bw\n    compare: \">=\"\n    value: 1\n    floor: 5\n"), CriteriaError);
}

}  // namespace
}  // namespace ga
