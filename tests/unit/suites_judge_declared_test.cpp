// The judge with the build's declarations: unit, direction, owning probe and how samples
// combine come from the catalogue, not from a sample or a metric's name.
#include <gtest/gtest.h>

#include "suites_fixture.hpp"

namespace ga {
namespace {

using testing::criteria;
using testing::JournalBuilder;

MetricCatalogue catalogue() {
  MetricCatalogue c;
  c.add("x", {"x.bw", "B/s", Better::higher, "a bandwidth", Combine::median});
  c.add("x", {"x.errors", "count", Better::lower, "errors, every sample counted", Combine::sum});
  c.add("x", {"x.worst_lat", "s", Better::lower, "the slowest sample", Combine::max});
  c.add("x", {"x.running", "%", Better::lower, "a running figure restated each interval", Combine::last});
  // A metric whose name says one probe and whose declaration says another.
  c.add("owner", {"x.adopted", "s", Better::lower, "declared by owner", Combine::median});
  return c;
}

const Metric* metric(const Judgement& j, const std::string& name) {
  for (const auto& m : j.metrics)
    if (m.metric == name) return &m;
  return nullptr;
}

TEST(JudgeDeclared, SamplesCombineAsDeclared) {
  JournalBuilder b({"n1"});
  b.probe("x");
  for (double v : {1.0, 2.0, 10.0}) {
    b.sample("x.bw", "n1", v * 1e9);
    b.sample("x.errors", "n1", v, "count");
    b.sample("x.worst_lat", "n1", v * 1e-6, "s");
  }
  const auto cat = catalogue();
  const auto j = judge(b.build(), criteria(""), &cat);
  ASSERT_TRUE(metric(j, "x.bw") && metric(j, "x.errors") && metric(j, "x.worst_lat"));
  EXPECT_DOUBLE_EQ(*metric(j, "x.bw")->value, 2e9);         // median
  EXPECT_DOUBLE_EQ(*metric(j, "x.errors")->value, 13);      // sum
  EXPECT_DOUBLE_EQ(*metric(j, "x.worst_lat")->value, 1e-5); // max
  EXPECT_EQ(metric(j, "x.bw")->better, Better::higher);
  // Without the catalogue: the median, as before declarations existed.
  const auto plain = judge(b.build(), criteria(""));
  EXPECT_DOUBLE_EQ(*metric(plain, "x.errors")->value, 2);
}

TEST(JudgeDeclared, LastIsTheSampleWithTheHighestIter) {
  // A running figure (soak.step_drift) stated after each interval: the latest statement counts,
  // whatever order the journal has them in.
  JournalBuilder b({"n1"});
  b.probe("x");
  for (double v : {7.0, -3.0, 5.0}) b.sample("x.running", "n1", v, "%");
  JournalData journal = b.build();
  const int iters[] = {3, 1, 2};  // 7 is the statement after the third interval, journaled first
  int k = 0;
  for (auto& s : journal.samples)
    if (s.metric == "x.running") s.iter = iters[k++];
  const auto cat = catalogue();
  const auto j = judge(journal, criteria(""), &cat);
  ASSERT_TRUE(metric(j, "x.running"));
  EXPECT_DOUBLE_EQ(*metric(j, "x.running")->value, 7);
}

TEST(JudgeDeclared, UnitComesFromTheDeclarationAndADisagreeingSampleIsNoted) {
  JournalBuilder b({"n1"});
  b.probe("x").sample("x.bw", "n1", 5e9, "GB/s");
  const auto cat = catalogue();
  const auto j = judge(b.build(), criteria(""), &cat);
  const Metric* m = metric(j, "x.bw");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->unit, "B/s");
  ASSERT_TRUE(m->note);
  EXPECT_NE(m->note->find("not the declared \"B/s\""), std::string::npos) << *m->note;
}

TEST(JudgeDeclared, OwningProbeComesFromTheDeclaration) {
  // The criterion's metric was produced by nobody; the missing verdict must name the probe
  // that declares it (owner), not the name's prefix (x).
  JournalBuilder b({"n1"});
  b.probe("x").sample("x.bw", "n1", 5e9);
  const auto cat = catalogue();
  const auto j = judge(b.build(), criteria("  - {name: c, metric: x.adopted, compare: \"<=\", value: 1, required: true}\n"),
                       &cat);
  bool seen = false;
  for (const auto& v : j.verdicts)
    if (v.criterion == "c") {
      seen = true;
      EXPECT_EQ(v.status, VerdictStatus::missing);
      EXPECT_NE(v.reason.find("probe owner did not run"), std::string::npos) << v.reason;
    }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace ga
