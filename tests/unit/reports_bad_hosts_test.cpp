// bad-hosts.txt: the hosts an operator acts on, each with its worst outcome, and the file back.
#include <gtest/gtest.h>

#include "reports/bad_hosts.hpp"
#include "reports_fixture.hpp"

namespace ga {
namespace {

TEST(BadHosts, WorstErrorOutcomePerHostWarningsIgnored) {
  const JournalData j = test::make_journal();
  const Judgement g = test::make_judgement();
  const Report r = build_report(j, g);
  const BadHosts b = bad_hosts(r);
  ASSERT_EQ(b.hosts.size(), 2u);
  // node2: gpu:1's HBM fails (error); the rdma fail is a warning and does not count.
  EXPECT_EQ(b.hosts[0].host, "node2");
  EXPECT_EQ(b.hosts[0].outcome, OutcomeClass::node_fault);
  EXPECT_EQ(b.hosts[0].criteria, std::vector<std::string>{"gpu-hbm-bw"});
  EXPECT_EQ(b.hosts[0].evidence.rfind("gpu-hbm-bw at node2/gpu:1: HBM bandwidth", 0), 0u) << b.hosts[0].evidence;
  // node10: a tool error on gpu:0, then a missing (a node fault, worse) on gpu:1, and its lost
  // rank (inconclusive, less bad): the node fault decides, with its own evidence.
  EXPECT_EQ(b.hosts[1].host, "node10");
  EXPECT_EQ(b.hosts[1].outcome, OutcomeClass::node_fault);
  EXPECT_EQ(b.hosts[1].evidence.rfind("gpu-hbm-bw at node10/gpu:1:", 0), 0u) << b.hosts[1].evidence;
  EXPECT_EQ(b.judged, (std::vector<std::string>{"node2", "node10"}));
  EXPECT_EQ(b.overall, "INCOMPLETE");
}

TEST(BadHosts, ALinkCountsForBothEndsTheClusterForNoHostAndALostRankIsInconclusive) {
  const JournalData j = test::make_journal();
  Judgement g = test::make_judgement();
  g.verdicts = {
      test::verdict("p2p-link", "p2p.link_slowdown", "node2~node10", VerdictStatus::inconclusive, 3.0, "x", {},
                    "not re-tested"),
      test::verdict("nccl-busbw", "nccl.allreduce_busbw", "cluster", VerdictStatus::fail, 1e9, "B/s", {}, "slow"),
      test::verdict("probe.nccl", "probe.nccl", "node10", VerdictStatus::tool_error, std::nullopt, "", {},
                    "probe nccl broke"),
  };
  const BadHosts b = bad_hosts(build_report(j, g));
  ASSERT_EQ(b.hosts.size(), 2u);
  EXPECT_EQ(b.hosts[0].host, "node2");
  EXPECT_EQ(b.hosts[0].outcome, OutcomeClass::inconclusive);
  EXPECT_EQ(b.hosts[0].criteria, std::vector<std::string>{"p2p-link"});
  // node10's tool error is gpuaccept's, never the host's (issue 32): it leaves bad-hosts.txt,
  // and what the host has of its own (the link, the lost rank) is what is written.
  EXPECT_EQ(b.hosts[1].host, "node10");
  EXPECT_EQ(b.hosts[1].outcome, OutcomeClass::inconclusive);
  EXPECT_EQ(b.hosts[1].criteria, (std::vector<std::string>{"p2p-link", "run.complete"}));
  EXPECT_EQ(bad_hosts_text(b).find("tool error"), std::string::npos) << bad_hosts_text(b);

  g.verdicts.pop_back();
  const BadHosts c = bad_hosts(build_report(j, g));
  ASSERT_EQ(c.hosts.size(), 2u);
  EXPECT_EQ(c.hosts[1].outcome, OutcomeClass::inconclusive);
  EXPECT_EQ(c.hosts[1].criteria, (std::vector<std::string>{"p2p-link", "run.complete"}));
}

TEST(BadHosts, AToolErrorAloneNamesNoHost) {
  const JournalData j = test::make_journal();
  Judgement g = test::make_judgement();
  g.incomplete.reset();
  g.verdicts = {test::verdict("probe.nccl", "probe.nccl", "node10", VerdictStatus::tool_error, std::nullopt, "", {},
                              "probe nccl broke: NCCL cannot be loaded on every host")};
  const BadHosts b = bad_hosts(build_report(j, g));
  EXPECT_TRUE(b.hosts.empty()) << bad_hosts_text(b);
  EXPECT_EQ(b.judged, (std::vector<std::string>{"node2", "node10"}));
}

TEST(BadHosts, TheFileReadsBackAndNamesTheLineOfAnythingElse) {
  const Report r = build_report(test::make_journal(), test::make_judgement());
  BadHosts b = bad_hosts(r);
  b.hosts[0].evidence += "\twith a tab\nand a newline";  // fields stay one line
  const std::string text = bad_hosts_text(b);
  const BadHosts back = parse_bad_hosts(text, "bad-hosts.txt");
  EXPECT_EQ(back.run_id, b.run_id);
  EXPECT_EQ(back.overall, "INCOMPLETE");
  EXPECT_EQ(back.judged, b.judged);
  ASSERT_EQ(back.hosts.size(), 2u);
  EXPECT_EQ(back.hosts[0].host, "node2");
  EXPECT_EQ(back.hosts[0].outcome, OutcomeClass::node_fault);
  EXPECT_EQ(back.hosts[0].evidence.find('\t'), std::string::npos);

  try {
    parse_bad_hosts(text + "node7\tbroken\tx\ty\n", "f.txt");
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("f.txt:8: unknown outcome \"broken\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_bad_hosts("node1\tnode fault\tc\te\n", "f.txt"), std::runtime_error);
  EXPECT_THROW(parse_bad_hosts(text + "node7\tnode fault\n", "f.txt"), std::runtime_error);
}

TEST(BadHosts, TheOperatorsActionsFromTheEvidenceOnceEach) {
  const JournalData j = test::make_journal();
  Judgement g = test::make_judgement();
  Verdict x = test::verdict("gpu.xid.none", "gpu.xid_errors", "node2/gpu:0", VerdictStatus::fail, 2, "count", {},
                            "gpu.xid_errors 2 is above the ceiling 0: Xid 79 (GPU has fallen off the bus): reboot");
  x.params = nlohmann::json{{"actions", {{{"xid", 79}, {"action", "RESTART_BM"}}, {{"xid", 48}, {"action", "RESET_GPU"}}}}};
  Verdict y = x;
  y.place = "node2/gpu:1";
  y.params = nlohmann::json{{"actions", {{{"xid", 79}, {"action", "RESTART_BM"}}}}};
  g.verdicts = {x, y};
  g.incomplete.reset();
  const BadHosts b = bad_hosts(build_report(j, g));
  ASSERT_EQ(b.hosts.size(), 1u);
  EXPECT_EQ(b.hosts[0].actions, (std::vector<std::string>{"RESTART_BM", "RESET_GPU"}));
  const BadHosts back = parse_bad_hosts(bad_hosts_text(b), "x");
  EXPECT_EQ(back.hosts[0].actions, b.hosts[0].actions);
  // A file of four columns (no actions) reads too.
  EXPECT_TRUE(parse_bad_hosts("# gpuaccept bad hosts\nn1\tnode fault\tc\te\n", "x").hosts[0].actions.empty());
}

TEST(BadHosts, ACleanRunHasTheHeaderAndNoHost) {
  const JournalData j = test::make_journal();
  Judgement g = test::make_judgement();
  g.verdicts.resize(1);  // the one pass
  g.incomplete.reset();
  g.summary.overall = "PASS";
  const std::string text = bad_hosts_text(bad_hosts(build_report(j, g)));
  EXPECT_EQ(text.rfind("# gpuaccept bad hosts: one line per host that did not pass (0 of 2)\n", 0), 0u) << text;
  EXPECT_EQ(parse_bad_hosts(text, "x").hosts.size(), 0u);
}

// Issue 31: where each host failed, so a re-test clears it only on the same places; drain's
// input check.
TEST(BadHosts, WhereEachHostFailedReadsBack) {
  const Report r = build_report(test::make_journal(), test::make_judgement());
  const BadHosts b = bad_hosts(r);
  ASSERT_FALSE(b.hosts.empty());
  EXPECT_EQ(b.hosts[0].failed_at, std::vector<std::string>{"gpu-hbm-bw@node2/gpu:1"});
  const BadHosts back = parse_bad_hosts(bad_hosts_text(b), "bad-hosts.txt");
  ASSERT_EQ(back.hosts.size(), b.hosts.size());
  for (std::size_t i = 0; i < b.hosts.size(); ++i) {
    EXPECT_EQ(back.hosts[i].failed_at, b.hosts[i].failed_at);
    EXPECT_GT(back.hosts[i].line, 0);
  }
  BadHost many = b.hosts[0];
  many.failed_at_cut = true;
  BadHosts m = b;
  m.hosts = {many};
  EXPECT_TRUE(parse_bad_hosts(bad_hosts_text(m), "f").hosts[0].failed_at_cut);
  // A five-column file of an older gpuaccept still reads, with nothing in failed_at.
  const auto old = parse_bad_hosts("# gpuaccept bad hosts\nn1\tnode fault\tc\te\tRESTART_BM\n", "f");
  EXPECT_TRUE(old.hosts[0].failed_at.empty());
}

TEST(BadHosts, APlainNodeNameIsOneNode) {
  for (const char* ok : {"gpu-017", "node_3", "h1.cluster.example"}) EXPECT_TRUE(plain_node_name(ok)) << ok;
  for (const char* bad : {"node[001-512]", "a,b", "a b", "node*", "", "n?", "$(reboot)"}) EXPECT_FALSE(plain_node_name(bad)) << bad;
}

}  // namespace
}  // namespace ga
