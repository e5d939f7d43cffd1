// report.junit.xml: parses as XML, one suite per probe and one case per criterion, kind of
// place and outcome, failures only for what fails the run, counts that agree with the summary,
// the same file folded or not, and text that cannot break it.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "reports/markup_escape.hpp"
#include "reports/report.hpp"
#include "reports_fixture.hpp"
#include "topology/place.hpp"

namespace ga {
namespace {

using nlohmann::json;

struct Parsed {
  std::string text;
  pugi::xml_document doc;
  pugi::xml_node root() const { return doc.child("testsuites"); }
};

void parse(Parsed& p, const JournalData& j, const Judgement& g) {
  p.text = report_to_junit(build_report(j, g));
  auto res = p.doc.load_buffer(p.text.data(), p.text.size());
  ASSERT_TRUE(res) << res.description() << " at " << res.offset << ": " << p.text.substr(res.offset, 120);
}

int count_all(const pugi::xml_node& root, const char* xpath) {
  return static_cast<int>(root.select_nodes(xpath).size());
}

pugi::xml_node testcase(const Parsed& p, const std::string& name) {
  for (auto s : p.root().children("testsuite"))
    for (auto c : s.children("testcase"))
      if (name == c.attribute("name").value()) return c;
  return {};
}

TEST(ReportsJunit, ParsesAndCountsAgreeWithTheSummary) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  Parsed p;
  parse(p, j, g);
  auto root = p.root();
  ASSERT_TRUE(root);
  // One testcase per criterion, kind of place and outcome, plus one for the run itself: the
  // fixture's 7 verdicts are 6 cases (gpu-hbm-bw's fail and missing are one node fault).
  EXPECT_EQ(count_all(root, "//testcase"), 6 + 1);
  EXPECT_EQ(root.attribute("tests").as_int(), count_all(root, "//testcase"));
  // Node faults are <failure type="node_fault">s; tool errors are <error>s (beside the run's
  // own incomplete one): a dashboard keeps "the node is bad" apart from "the tool broke".
  EXPECT_EQ(count_all(root, "//failure"), 1);
  EXPECT_EQ(count_all(root, "//failure[@type='node_fault']"), 1);
  EXPECT_EQ(root.attribute("failures").as_int(), 1);
  EXPECT_EQ(count_all(root, "//skipped"), 0);
  EXPECT_EQ(count_all(root, "//error"), 2);
  EXPECT_EQ(count_all(root, "//error[@type='tool_error']"), 1);
  EXPECT_EQ(root.attribute("errors").as_int(), 2);
  EXPECT_EQ(std::string(root.attribute("name").value()), "gpuaccept INCOMPLETE");
  // each suite's attributes count its own children
  int tests = 0;
  for (auto s : root.children("testsuite")) {
    int cases = static_cast<int>(s.select_nodes("testcase").size());
    EXPECT_EQ(s.attribute("tests").as_int(), cases) << s.attribute("name").value();
    EXPECT_EQ(s.attribute("failures").as_int(), static_cast<int>(s.select_nodes("testcase/failure").size()));
    EXPECT_EQ(s.attribute("skipped").as_int(), static_cast<int>(s.select_nodes("testcase/skipped").size()));
    EXPECT_EQ(s.attribute("errors").as_int(), static_cast<int>(s.select_nodes("testcase/error").size()));
    tests += cases;
  }
  EXPECT_EQ(tests, root.attribute("tests").as_int());
}

TEST(ReportsJunit, OneSuitePerProbeAndACasePerCriterionKindAndOutcome) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  g.verdicts.push_back(test::verdict("probe.hostmem", "probe.hostmem", "node10", VerdictStatus::fail, std::nullopt,
                                     "", json::object(), "probe hostmem failed: no memory"));
  Parsed p;
  parse(p, j, g);
  std::vector<std::string> names;
  for (auto s : p.root().children("testsuite")) names.push_back(s.attribute("name").value());
  // the run, the probes in run order, then verdicts whose metric names no probe that ran
  EXPECT_EQ(names, (std::vector<std::string>{"run", "hostmem", "nccl", "gpuaccept"}));
  auto hostmem = p.root().find_child_by_attribute("testsuite", "name", "hostmem");
  EXPECT_EQ(hostmem.attribute("tests").as_int(), 2);  // hostmem-triad and probe.hostmem
  EXPECT_STREQ(hostmem.attribute("time").value(), "4.250");
  EXPECT_STREQ(hostmem.attribute("timestamp").value(), "2025-03-14T09:27:00Z");
  EXPECT_STREQ(hostmem.child("properties").find_child_by_attribute("property", "name", "probe.status")
                   .attribute("value").value(),
               "ok");
  EXPECT_TRUE(testcase(p, "probe.hostmem [host] node fault").child("failure"));

  // Both failing GPUs in one case, each with its value, bound and reason.
  auto hbm = testcase(p, "gpu-hbm-bw [gpu] node fault");
  ASSERT_TRUE(hbm);
  EXPECT_STREQ(hbm.attribute("classname").value(), "gpu-hbm-bw");
  EXPECT_STREQ(hbm.child("failure").attribute("message").value(), "2 places: node2/gpu:1, node10/gpu:1");
  EXPECT_STREQ(hbm.child("failure").attribute("type").value(), "node_fault");
  const std::string body = hbm.child("failure").text().get();
  EXPECT_NE(body.find("node2/gpu:1: fail, value 3.1 TB/s, bound >= 4 TB/s: HBM bandwidth | well below the H200's 4.8 TB/s"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("node10/gpu:1: missing"), std::string::npos) << body;
  // a tool error is JUnit's <error>, a case of its own, not a <failure> of the place
  auto tool = testcase(p, "gpu-hbm-bw [gpu] tool error");
  EXPECT_FALSE(tool.child("failure"));
  EXPECT_STREQ(tool.child("error").attribute("type").value(), "tool_error");
  EXPECT_NE(std::string(tool.child("error").attribute("message").value()).find("1 place: node10/gpu:0"), std::string::npos);
  // a pass counts its places and names the worst margin
  auto triad = testcase(p, "hostmem-triad [numa] pass");
  ASSERT_TRUE(triad);
  EXPECT_FALSE(triad.child("failure"));
  auto props = triad.child("properties");
  EXPECT_STREQ(props.find_child_by_attribute("property", "name", "places").attribute("value").value(), "1");
  EXPECT_STREQ(props.find_child_by_attribute("property", "name", "worst.place").attribute("value").value(), "node2/numa:1");
  EXPECT_STREQ(props.find_child_by_attribute("property", "name", "worst.margin").attribute("value").value(), "0.204");
  // a failed warning passes, saying so
  auto rdma = testcase(p, "rdma-write-bw [nic] warning");
  ASSERT_TRUE(rdma);
  EXPECT_FALSE(rdma.child("failure"));
  EXPECT_NE(std::string(rdma.child("system-out").text().get()).find("31 GB/s below"), std::string::npos);
}

// Issue 36: the file of a folded judgement is the file of the same judgement unfolded.
TEST(ReportsJunit, FoldedAndListedPassesGiveTheSameFile) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  // Every pass folds, node2's and node10's beside their failures too.
  g.verdicts.push_back(test::verdict("hostmem-triad", "hostmem.triad_bw", "node20/numa:0", VerdictStatus::pass, 1.1e11,
                                     "B/s", {{"op", ">="}, {"value", 1e11}}, "110 GB/s >= 100 GB/s"));
  Parsed listed;
  parse(listed, j, g);
  auto folded = g;
  fold_passing_verdicts(folded, {});
  ASSERT_TRUE(folded.folded);
  ASSERT_LT(folded.verdicts.size(), g.verdicts.size());
  Parsed p;
  parse(p, j, folded);
  EXPECT_EQ(p.text, listed.text);
  auto props = testcase(p, "hostmem-triad [numa] pass").child("properties");
  EXPECT_STREQ(props.find_child_by_attribute("property", "name", "places").attribute("value").value(), "2");
  EXPECT_STREQ(props.find_child_by_attribute("property", "name", "worst.place").attribute("value").value(), "node20/numa:0");
}

TEST(ReportsJunit, IncompleteRunIsAnErrorNamingTheMissingRanks) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  Parsed p;
  parse(p, j, g);
  auto err = testcase(p, "run completes @ cluster").child("error");
  ASSERT_TRUE(err);
  EXPECT_STREQ(err.attribute("message").value(), "probe nccl did not finish: watchdog: no progress for 120 s");
  EXPECT_NE(std::string(err.text().get()).find("rank 3 (node10)"), std::string::npos);
  g.incomplete.reset();
  Parsed q;
  parse(q, j, g);
  EXPECT_EQ(count_all(q.root(), "//error"), 1);  // only the tool error's
  EXPECT_EQ(q.root().attribute("errors").as_int(), 1);
  EXPECT_FALSE(testcase(q, "run completes @ cluster").child("error"));
  EXPECT_EQ(q.root().attribute("tests").as_int(), 6 + 1);
  auto run = testcase(q, "run completes @ cluster");
  ASSERT_TRUE(run);
  EXPECT_FALSE(run.first_child());  // passes
  auto command = q.root().child("testsuite").child("properties").find_child_by_attribute("property", "name", "command");
  EXPECT_STREQ(command.attribute("value").value(), "gpuaccept run --suite quick --expect-topology h200.xml");
}

TEST(ReportsJunit, SkippedVerdictsAreSkipped) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  g.verdicts.push_back(test::verdict("gpu-count", "topology.gpu_count", "cluster", VerdictStatus::skipped,
                                     std::nullopt, "count", json::object(), "no --expect-topology given"));
  g.summary.skipped = 1;
  Parsed p;
  parse(p, j, g);
  auto c = testcase(p, "gpu-count [cluster] skipped");
  EXPECT_STREQ(c.child("skipped").attribute("message").value(), "1 place: cluster (no --expect-topology given)");
  EXPECT_EQ(p.root().attribute("skipped").as_int(), 1);
}

TEST(ReportsJunit, HostileTextStaysText) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  const std::string host = "<script>x</script>&\"'";
  g.verdicts.push_back(test::verdict("crit]]><x>", "gpu.hbm_bw", host + "/gpu:0", VerdictStatus::fail, 1.0, "B/s",
                                     {{"op", ">="}, {"value", 2.0}},
                                     "line one\nline two <b>&amp; \"q\" \x01\x1b bad:\xff\xfe end"));
  Parsed p;
  parse(p, j, g);
  auto c = testcase(p, std::string("crit]]><x> [") + place::to_string(place::kind(host + "/gpu:0")) + "] node fault");
  ASSERT_TRUE(c);
  // the place is in the attribute as it is; newlines survive in the text; control characters
  // and bad bytes become U+FFFD
  EXPECT_EQ(std::string(c.child("failure").attribute("message").value()), "1 place: " + host + "/gpu:0");
  EXPECT_NE(std::string(c.child("failure").text().get())
                .find("line one\nline two <b>&amp; \"q\" \xEF\xBF\xBD\xEF\xBF\xBD bad:\xEF\xBF\xBD\xEF\xBF\xBD end"),
            std::string::npos);
  EXPECT_EQ(p.text.find("<script>"), std::string::npos);
  EXPECT_EQ(p.text.find("<x>"), std::string::npos);
}

TEST(MarkupEscape, KeepsValidUtf8AndReplacesTheRest) {
  EXPECT_EQ(markup::escaped("GPU 3 ↔ mlx5_0 ✓ 𝄞"), "GPU 3 ↔ mlx5_0 ✓ 𝄞");
  EXPECT_EQ(markup::escaped("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
  EXPECT_EQ(markup::escaped("\t\n\r"), "&#9;&#10;&#13;");
  EXPECT_EQ(markup::escaped(std::string("\0", 1)), "\xEF\xBF\xBD");
  EXPECT_EQ(markup::escaped("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");        // overlong '/'
  EXPECT_EQ(markup::escaped("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(markup::escaped("\xE2\x86"), "\xEF\xBF\xBD\xEF\xBF\xBD");        // truncated
  EXPECT_EQ(markup::escaped("\xEF\xBF\xBF"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // U+FFFF
}

}  // namespace
// Issue 32: an inconclusive verdict never reads green. Dashboards show <skipped> as passed.
TEST(ReportsJunit, AnInconclusiveVerdictIsAFailureOfItsOwnTypeNeverSkipped) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  g.verdicts.push_back(test::verdict("p2p-link", "p2p.link_slowdown", "node2~node10", VerdictStatus::inconclusive, 3.0,
                                     "x", {}, "slow in the first pass, not confirmed"));
  Parsed p;
  parse(p, j, g);
  auto root = p.root();
  ASSERT_TRUE(root);
  pugi::xpath_node c = root.select_node("//testcase[@name='p2p-link [pair] inconclusive']");
  ASSERT_TRUE(c);
  EXPECT_FALSE(c.node().child("skipped"));
  pugi::xml_node f = c.node().child("failure");
  ASSERT_TRUE(f);
  EXPECT_STREQ(f.attribute("type").value(), "inconclusive");
  EXPECT_NE(std::string(f.attribute("message").value()).find("inconclusive (re-test): 1 place: node2~node10"),
            std::string::npos);
  EXPECT_NE(std::string(f.text().get()).find("re-test them"), std::string::npos);
  EXPECT_NE(std::string(f.text().get()).find("slow in the first pass, not confirmed"), std::string::npos);
  EXPECT_EQ(count_all(root, "//skipped[@type='inconclusive']"), 0);
}

}  // namespace ga
