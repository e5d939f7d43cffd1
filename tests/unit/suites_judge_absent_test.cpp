// The rule for absent things, probe failures, incomplete runs, aggregation and determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>

#include "suites_fixture.hpp"
#include "topology/topology.hpp"

namespace ga {
namespace {

using testing::JournalBuilder;
using testing::criteria;
using testing::verdict_at;
using testing::verdicts_of;

const char* kGpuCriterion = "  - {name: c, metric: gpu.mem_bw, compare: \">=\", value: 1.0e9, scope: gpu}\n";

TEST(JudgeAbsent, SkippedEverywhereIsSkippedAndDoesNotFail) {
  JournalBuilder b({"n1", "n2"});
  b.all_skipped("gpu", "no NVIDIA GPU on the PCI bus");
  auto j = judge(b.build(), criteria(kGpuCriterion));
  auto vs = verdicts_of(j, "c");
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0]->place, "cluster");
  EXPECT_EQ(vs[0]->status, VerdictStatus::skipped);
  EXPECT_EQ(vs[0]->reason, "no NVIDIA GPU on the PCI bus");
  EXPECT_EQ(j.summary.exit_code, 0);
  EXPECT_EQ(j.summary.overall, "PASS");
  EXPECT_EQ(j.summary.skipped, 1);
  ASSERT_EQ(j.probes.size(), 1u);
  EXPECT_EQ(j.probes[0].status, ProbeStatus::skipped);
  EXPECT_EQ(j.probes[0].reason, "no NVIDIA GPU on the PCI bus (skipped on all 2 hosts)");
}

TEST(JudgeAbsent, RequiredByTheCriteriaButAbsentIsMissing) {
  JournalBuilder b({"n1", "n2"});
  b.all_skipped("gpu", "no NVIDIA GPU on the PCI bus");
  auto j = judge(b.build(), criteria("  - {name: c, metric: gpu.mem_bw, compare: \">=\", value: 1.0e9, required: true}\n"));
  auto vs = verdicts_of(j, "c");
  ASSERT_EQ(vs.size(), 2u);
  for (const Verdict* v : vs) {
    EXPECT_EQ(v->status, VerdictStatus::missing);
    EXPECT_TRUE(v->fails_run());
  }
  EXPECT_EQ(vs[0]->reason,
            "no host produced gpu.mem_bw, and the criteria require it; probe gpu was skipped here: no NVIDIA GPU on "
            "the PCI bus");
  EXPECT_EQ(j.summary.exit_code, 1);
  EXPECT_EQ(j.summary.missing, 2);
}

TEST(JudgeAbsent, RequiredFalseNeverMissing) {
  JournalBuilder b({"n1", "n2"});
  b.probe("x").sample("x.v", "n1", 1, "count");
  auto j = judge(b.build(), criteria("  - {name: c, metric: x.v, compare: \">=\", value: 0, required: false}\n"));
  ASSERT_EQ(verdicts_of(j, "c").size(), 1u);
  EXPECT_EQ(j.summary.exit_code, 0);
}

TEST(JudgeAbsent, PresentOnThreeHostsMissingOnTheFourth) {
  JournalBuilder b({"n1", "n2", "n10", "n3"});
  b.probe("hostmem");
  for (const char* h : {"n1", "n2", "n10"}) b.sample("hostmem.triad_bw_cross", h, 10e9);
  auto j = judge(b.build(), criteria("  - {name: c, metric: hostmem.triad_bw_cross, compare: \">=\", value: 1.0e9}\n"));
  auto vs = verdicts_of(j, "c");
  ASSERT_EQ(vs.size(), 4u);
  // Natural order: n1, n2, n3, n10.
  EXPECT_EQ(vs[0]->place, "n1");
  EXPECT_EQ(vs[1]->place, "n2");
  EXPECT_EQ(vs[2]->place, "n3");
  EXPECT_EQ(vs[3]->place, "n10");
  EXPECT_EQ(vs[2]->status, VerdictStatus::missing);
  EXPECT_EQ(vs[2]->reason,
            "no hostmem.triad_bw_cross from n3: other hosts have it (3); probe hostmem ran but produced none here");
  for (int i : {0, 1, 3}) EXPECT_EQ(vs[i]->status, VerdictStatus::pass);
  EXPECT_EQ(j.summary.exit_code, 1);
}

TEST(JudgeAbsent, GpuWithoutSamplesIsMissing) {
  // The host's topology has 8 GPUs; gpu:7 produced nothing.
  JournalBuilder b({"n1"}, 8);
  b.probe("gpu");
  for (int g = 0; g < 7; ++g) b.sample("gpu.mem_bw", "n1/gpu:" + std::to_string(g), 3e12);
  auto j = judge(b.build(), criteria(kGpuCriterion));
  auto vs = verdicts_of(j, "c");
  ASSERT_EQ(vs.size(), 8u);
  EXPECT_EQ(vs[7]->place, "n1/gpu:7");
  EXPECT_EQ(vs[7]->status, VerdictStatus::missing);
  for (int g = 0; g < 7; ++g) EXPECT_EQ(vs[g]->status, VerdictStatus::pass);
}

TEST(JudgeAbsent, ExpectedTopologyWithGpusButNoGpuSamplesIsMissing) {
  JournalBuilder b({"n1", "n2"});
  b.all_skipped("gpu", "no NVIDIA GPU on the PCI bus");
  b.expect(JournalBuilder::host_topology("model", 8));
  auto j = judge(b.build(), criteria(kGpuCriterion));
  auto vs = verdicts_of(j, "c");
  ASSERT_EQ(vs.size(), 2u);
  EXPECT_EQ(vs[0]->place, "n1");
  EXPECT_EQ(vs[0]->status, VerdictStatus::missing);
  EXPECT_NE(vs[0]->reason.find("the expected topology has 8 GPUs"), std::string::npos) << vs[0]->reason;
  EXPECT_EQ(j.summary.exit_code, 1);
}

TEST(JudgeAbsent, ProbeNotInTheSuiteIsSkipped) {
  JournalBuilder b({"n1"});
  auto j = judge(b.build(), criteria(kGpuCriterion));
  auto vs = verdicts_of(j, "c");
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0]->status, VerdictStatus::skipped);
  EXPECT_EQ(vs[0]->reason, "probe gpu is not in this run's suite");
}

TEST(JudgeProbes, FailedOnOneHostFailsThatHost) {
  JournalBuilder b({"n1", "n2", "n3"});
  b.probe("hostmem", {{"n2", Outcome::failed("triad data check: 12 wrong elements")}});
  b.sample("hostmem.triad_bw", "n1/numa:0", 10e9).sample("hostmem.triad_bw", "n3/numa:0", 10e9);
  auto j = judge(b.build(), criteria("  - {name: c, metric: hostmem.triad_bw, compare: \">=\", value: 1.0e9, scope: numa}\n"));
  const Verdict* p = verdict_at(j, "probe.hostmem", "n2");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->status, VerdictStatus::fail);
  EXPECT_EQ(p->severity, Severity::error);
  EXPECT_EQ(p->reason, "probe hostmem failed: triad data check: 12 wrong elements");
  EXPECT_EQ(verdict_at(j, "probe.hostmem", "n1"), nullptr);
  // The probe verdicts come first, then the criteria's.
  EXPECT_EQ(j.verdicts.front().criterion, "probe.hostmem");
  EXPECT_EQ(verdict_at(j, "c", "n2/numa:0")->status, VerdictStatus::missing);
  EXPECT_NE(verdict_at(j, "c", "n2/numa:0")->reason.find("probe hostmem failed here"), std::string::npos);
  EXPECT_EQ(j.probes[0].status, ProbeStatus::failed);
  EXPECT_EQ(j.probes[0].reason, "triad data check: 12 wrong elements (failed on n2)");
  EXPECT_EQ(j.summary.exit_code, 1);
  EXPECT_EQ(j.summary.overall, "FAIL");
}

TEST(JudgeProbes, SkippedOnSomeHostsOnlyIsShownThere) {
  JournalBuilder b({"n1", "n2"});
  b.probe("rdma", {{"n2", Outcome::skipped("no RDMA devices")}});
  b.sample("rdma.write_bw", "n1", 40e9);
  auto j = judge(b.build(),
                 criteria("  - {name: c, metric: rdma.write_bw, compare: \">=\", value: 1.0e9, required: false}\n"));
  const Verdict* p = verdict_at(j, "probe.rdma", "n2");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->status, VerdictStatus::skipped);
  EXPECT_FALSE(p->fails_run());
  EXPECT_EQ(j.summary.exit_code, 0);
  // Required there (automatic: the other host has it): missing and failing.
  auto k = judge(b.build(), criteria("  - {name: c, metric: rdma.write_bw, compare: \">=\", value: 1.0e9}\n"));
  EXPECT_EQ(verdict_at(k, "c", "n2")->status, VerdictStatus::missing);
  EXPECT_NE(verdict_at(k, "c", "n2")->reason.find("probe rdma was skipped here: no RDMA devices"), std::string::npos);
  EXPECT_EQ(k.summary.exit_code, 1);
}

TEST(JudgeIncomplete, FromTheWatchdogsRecord) {
  JournalBuilder b({"n1", "n2"});
  b.probe("x").sample("x.v", "n1", 1, "count").sample("x.v", "n2", 1, "count");
  IncompleteRecord r;
  r.probe = "x";
  r.reason = "rank 1 (host n2) did not arrive within 60 s";
  r.missing_ranks = {{1, "n2"}};
  r.waiting_ranks = {{0, "n1"}};
  r.detected_by = 0;
  b.data().incomplete.push_back(r);
  auto j = judge(b.build(), criteria("  - {name: c, metric: x.v, compare: \">=\", value: 0}\n"));
  ASSERT_TRUE(j.incomplete);
  EXPECT_EQ(j.incomplete->reason, r.reason);
  EXPECT_EQ(j.summary.exit_code, 3);
  EXPECT_EQ(j.summary.overall, "INCOMPLETE");
  EXPECT_EQ(j.summary.pass, 2);  // the verdicts are still there to read
}

TEST(JudgeIncomplete, KilledJobNamesTheLostRank) {
  std::ifstream in(std::string(GA_TEST_DATA_DIR) + "/suites/killed.jsonl");
  ASSERT_TRUE(in);
  JournalData d = parse_journal(in, "killed.jsonl");
  auto j = judge(d, parse_criteria(builtin_criteria_text(), "builtin"));
  ASSERT_TRUE(j.incomplete);
  EXPECT_EQ(j.incomplete->probe, "hostmem");
  ASSERT_EQ(j.incomplete->missing_ranks.size(), 1u);
  EXPECT_EQ(j.incomplete->missing_ranks[0].rank, 2);
  EXPECT_EQ(j.incomplete->missing_ranks[0].host, "n3");
  EXPECT_EQ(j.incomplete->waiting_ranks.size(), 3u);
  EXPECT_EQ(j.incomplete->reason,
            "the run ended before probe hostmem finished: rank 2 (host n3) left no record (killed or lost); "
            "ranks 0,1,3 (hosts n1, n2, n4) were terminated by SIGTERM");
  EXPECT_EQ(j.summary.exit_code, 3);
  EXPECT_EQ(j.summary.overall, "INCOMPLETE");
  // The probe that never ended reads as timed out.
  ASSERT_EQ(j.probes.size(), 2u);
  EXPECT_EQ(j.probes[1].status, ProbeStatus::timeout);
}

TEST(JudgeIncomplete, StartupAndShutdown) {
  JournalBuilder b({"n1"});
  b.data().run_ended = false;
  auto j = judge(b.build(), criteria(""));
  ASSERT_TRUE(j.incomplete);
  EXPECT_EQ(j.incomplete->probe, "startup");
  EXPECT_EQ(j.incomplete->reason,
            "the run ended during startup, before any probe began: rank 0 (host n1) left no record (killed or lost)");
  b.probe("x");
  auto k = judge(b.build(), criteria(""));
  EXPECT_EQ(k.incomplete->probe, "shutdown");
  EXPECT_EQ(k.summary.exit_code, 3);
}

TEST(JudgeIncomplete, TimeoutOutcomeMakesTheRunIncomplete) {
  JournalBuilder b({"n1", "n2"});
  b.probe("x", {{"n2", Outcome{ProbeStatus::timeout, "no answer in 60 s"}}});
  auto j = judge(b.build(), criteria(""));
  ASSERT_TRUE(j.incomplete);
  EXPECT_EQ(j.incomplete->probe, "x");
  EXPECT_EQ(j.incomplete->reason, "probe x timed out on rank 1 (host n2): no answer in 60 s (timed out on n2)");
  EXPECT_EQ(j.summary.exit_code, 3);
}

TEST(JudgeAggregate, MedianMinMaxAndTexts) {
  std::vector<Sample> s(5);
  const double values[] = {3, 1, 100, 2, 4};
  for (int i = 0; i < 5; ++i) s[i] = {"x", "n1", "x.v", values[i], std::nullopt, "s", nlohmann::json::object(), 0, i};
  Sample t1{"x", "n1", "x.t", std::nullopt, std::string("a"), "text", nlohmann::json::object(), 0, 0};
  Sample t2 = t1, t3 = t1;
  t3.text = "b";
  s.insert(s.end(), {t1, t2, t3});
  auto m = aggregate(s);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].metric, "x.t");
  EXPECT_EQ(*m[0].text, "a");
  EXPECT_EQ(m[0].count, 3);
  EXPECT_EQ(m[0].note, "kept \"a\" (2x); also seen \"b\" (1x)");
  EXPECT_EQ(*m[1].value, 3);  // the median: one slow iteration does not move it
  EXPECT_EQ(*m[1].min, 1);
  EXPECT_EQ(*m[1].max, 100);
  EXPECT_EQ(m[1].count, 5);
  EXPECT_FALSE(m[1].note);
}

TEST(JudgeAggregate, SeparatesParams) {
  std::vector<Sample> s;
  for (int size : {8, 1024})
    s.push_back({"x", "n1", "x.v", double(size), std::nullopt, "B", nlohmann::json{{"size", size}}, 0, 0});
  EXPECT_EQ(aggregate(s).size(), 2u);
}

std::string serialize(const Judgement& j) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& v : j.verdicts)
    out.push_back({{"c", v.criterion}, {"m", v.metric}, {"p", v.place}, {"s", to_string(v.status)},
                   {"r", v.reason}, {"b", v.bounds}, {"params", v.params}});
  for (const auto& m : j.metrics) out.push_back({{"m", m.metric}, {"p", m.place}, {"v", m.value.value_or(-1)}});
  return out.dump();
}

TEST(JudgeDeterminism, SameInputSameOutputWhateverTheSampleOrder) {
  JournalBuilder b({"n1", "n2", "n10", "n3"}, 2);
  b.probe("hostmem");
  b.probe("inventory");
  double v = 10e9;
  for (const char* h : {"n1", "n2", "n10", "n3"}) {
    for (int it = 0; it < 3; ++it) b.sample("hostmem.triad_bw", std::string(h) + "/numa:0", v + it * 1e8);
    b.sample("inventory.gpu_count", h, 2, "count");
    b.text("inventory.kernel", h, std::string(h) == "n3" ? "6.2" : "6.1");
    v *= 1.1;
  }
  const CriteriaSet set = parse_criteria(builtin_criteria_text(), "builtin");
  const std::string first = serialize(judge(b.build(), set));
  EXPECT_EQ(first, serialize(judge(b.build(), set)));
  std::mt19937 rng(7);
  for (int round = 0; round < 5; ++round) {
    JournalData shuffled = b.build();
    std::shuffle(shuffled.samples.begin(), shuffled.samples.end(), rng);
    EXPECT_EQ(first, serialize(judge(shuffled, set)));
  }
  // And the order is the natural one: n3 before n10.
  auto j = judge(b.build(), set);
  auto vs = verdicts_of(j, "inventory.gpu_count.majority");
  ASSERT_EQ(vs.size(), 4u);
  EXPECT_EQ(vs[2]->place, "n3");
  EXPECT_EQ(vs[3]->place, "n10");
  EXPECT_EQ(verdict_at(j, "inventory.kernel.majority", "n3")->status, VerdictStatus::fail);
  EXPECT_EQ(verdict_at(j, "inventory.kernel.majority", "n3")->severity, Severity::warning);
}

TEST(BuiltinCriteria, CleanSingleHostRunPasses) {
  // A host like the development machine: one NUMA node, no GPU, no RDMA; hostmem gives no
  // cross-NUMA figure and triad varies 2x between iterations.
  JournalBuilder b({"dev"});
  b.probe("inventory").probe("topology").probe("hostmem");
  b.sample("inventory.gpu_count", "dev", 0, "count").sample("inventory.rdma_device_count", "dev", 0, "count");
  b.sample("inventory.cores", "dev", 2, "count").sample("inventory.memory_bytes", "dev", 8e9, "B");
  b.text("inventory.kernel", "dev", "6.1").text("inventory.cpu_model", "dev", "AMD EPYC");
  b.text("inventory.version.nccl", "dev", "none").text("inventory.version.mpi", "dev", "Open MPI v4.1.4");
  for (const auto& f : topo::features(b.build().topology.hosts[0])) {
    Sample s;
    s.metric = f.metric;
    s.place = f.subplace.empty() ? "dev" : "dev/" + f.subplace;
    s.value = f.value;
    s.text = f.text;
    s.unit = f.unit;
    b.data().samples.push_back(s);
  }
  for (double bw : {5e9, 10e9, 7e9}) b.sample("hostmem.triad_bw", "dev/numa:0", bw);
  auto j = judge(b.build(), parse_criteria(builtin_criteria_text(), "builtin"));
  for (const auto& v : j.verdicts)
    EXPECT_TRUE(v.status == VerdictStatus::pass || v.status == VerdictStatus::skipped)
        << v.criterion << " " << v.place << ": " << v.reason;
  EXPECT_EQ(j.summary.exit_code, 0);
  EXPECT_GT(j.summary.pass, 10);
}

// A gate its probe could not apply (soak.gemm_of_theory for a GPU model with no peak) is
// inconclusive, never skipped into a pass, never missing (issue 32): the metric's declaration
// says an absence where the probe ran is unjudged.
TEST(JudgeAbsent, AGateTheProbeCouldNotApplyIsInconclusiveWithTheProbesWords) {
  MetricCatalogue cat;
  cat.add("soak", MetricDecl{"soak.gemm_of_theory", "%", Better::higher, "of the peak"}.unjudged_when_absent());
  cat.add("soak", MetricDecl{"soak.gemm_flops", "FLOP/s", Better::higher, "rate"});
  const char* gate = "  - {name: soak.throughput, metric: soak.gemm_of_theory, compare: \">=\", value: 70, scope: gpu}\n";
  const std::string note = "n1/gpu:0: no peak for model \"NVIDIA X9\" (not in gpu_models.cpp): give soak.peak_tflops, the "
                           "model's dense bf16 TFLOP/s, for soak.gemm_of_theory";
  JournalBuilder b({"n1", "n2"});
  b.sample("soak.gemm_flops", "n1/gpu:0", 5e14, "FLOP/s");
  b.sample("soak.gemm_flops", "n2/gpu:0", 5e14, "FLOP/s");
  b.probe("soak", {{"n1", Outcome::ok(note)}, {"n2", Outcome::ok(note)}});
  auto j = judge(b.build(), criteria(gate), &cat);
  auto vs = verdicts_of(j, "soak.throughput");
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0]->place, "cluster");
  EXPECT_EQ(vs[0]->status, VerdictStatus::inconclusive);
  EXPECT_NE(vs[0]->reason.find("give soak.peak_tflops"), std::string::npos) << vs[0]->reason;
  EXPECT_EQ(j.summary.exit_code, kExitInconclusive);

  // One GPU of a known model, one not: the other is inconclusive at its GPU, not missing.
  JournalBuilder m({"n1", "n2"}, 1);
  m.sample("soak.gemm_of_theory", "n1/gpu:0", 80, "%");
  m.sample("soak.gemm_flops", "n1/gpu:0", 5e14, "FLOP/s");
  m.sample("soak.gemm_flops", "n2/gpu:0", 5e14, "FLOP/s");
  m.probe("soak", {{"n2", Outcome::ok(note)}});
  auto jm = judge(m.build(), criteria(gate), &cat);
  const Verdict* v = verdict_at(jm, "soak.throughput", "n2/gpu:0");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->status, VerdictStatus::inconclusive) << v->reason;
  EXPECT_EQ(jm.summary.exit_code, kExitInconclusive);

  // Without the declaration's word, the same absence is skipped as before.
  MetricCatalogue plain;
  plain.add("soak", MetricDecl{"soak.gemm_of_theory", "%", Better::higher, "of the peak"});
  auto jp = judge(b.build(), criteria(gate), &plain);
  EXPECT_EQ(verdicts_of(jp, "soak.throughput")[0]->status, VerdictStatus::skipped);
}

}  // namespace
}  // namespace ga
