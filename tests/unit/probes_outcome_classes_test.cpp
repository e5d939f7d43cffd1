// Outcome classes that fail closed (issue 32), at the probe contract: a library no host loads
// is the run's environment (a tool error), one that one host lacks is that host's fault; a
// parameter a probe's own parser refuses is caught before any probe runs, naming its key; a
// suite's stated soak duration sets the soak's deadline.
#include <gtest/gtest.h>

#include "probes/probe.hpp"

namespace ga {
namespace {

std::vector<Outcome> outcomes(std::initializer_list<Outcome> o) { return o; }

TEST(SettleLibraryFailures, MissingOnEveryHostIsAToolError) {
  auto o = outcomes({Outcome::missing_library("NCCL cannot be loaded: /opt/none.so"),
                     Outcome::missing_library("NCCL cannot be loaded: /opt/none.so"),
                     Outcome::skipped("no NVIDIA GPU on the PCI bus")});
  EXPECT_TRUE(settle_library_failures(o));
  EXPECT_EQ(o[0].status, ProbeStatus::error);
  EXPECT_EQ(o[1].status, ProbeStatus::error);
  EXPECT_NE(o[0].reason.find("on every host"), std::string::npos) << o[0].reason;
  EXPECT_NE(o[0].reason.find("NCCL cannot be loaded"), std::string::npos) << o[0].reason;
  EXPECT_EQ(o[2].status, ProbeStatus::skipped);  // a host without GPUs is not part of it
}

TEST(SettleLibraryFailures, MissingOnOneHostIsThatHostsFault) {
  auto o = outcomes({Outcome::ok(), Outcome::missing_library("cuBLAS cannot be loaded"), Outcome::ok()});
  EXPECT_FALSE(settle_library_failures(o));
  EXPECT_EQ(o[1].status, ProbeStatus::failed);
  EXPECT_EQ(o[1].reason, "cuBLAS cannot be loaded");
}

TEST(SettleLibraryFailures, OtherFailuresAndAllSkippedAreLeftAlone) {
  auto failed = outcomes({Outcome::missing_library("NCCL cannot be loaded"), Outcome::failed("HBM slow")});
  EXPECT_FALSE(settle_library_failures(failed));
  EXPECT_EQ(failed[0].status, ProbeStatus::failed);
  auto skipped = outcomes({Outcome::skipped("no GPU"), Outcome::skipped("no GPU")});
  EXPECT_FALSE(settle_library_failures(skipped));
  EXPECT_EQ(skipped[0].status, ProbeStatus::skipped);
}

TEST(SettleWaitingRanks, WaitersAreClearedOnlyWhereTheLateRankSaidSo) {
  auto told = outcomes({Outcome::waited_for_late("cut short"), Outcome{ProbeStatus::timeout, "late"}, Outcome::waited_for_late("cut short")});
  EXPECT_FALSE(settle_waiting_ranks(told));
  EXPECT_EQ(told[0].status, ProbeStatus::ok);  // not blamed: the run is incomplete through the late rank
  EXPECT_EQ(told[1].status, ProbeStatus::timeout);
  // Everyone waited, nobody says it was late (a rank stopped inside the barrier itself): no
  // rank is cleared, the probe is cut short on every rank, never a pass.
  auto nobody = outcomes({Outcome::waited_for_late("cut short"), Outcome::waited_for_late("cut short")});
  EXPECT_TRUE(settle_waiting_ranks(nobody));
  EXPECT_EQ(nobody[0].status, ProbeStatus::timeout);
  EXPECT_NE(nobody[0].reason.find("no rank reported itself late"), std::string::npos) << nobody[0].reason;
  auto plain = outcomes({Outcome::ok(), Outcome::ok()});
  EXPECT_FALSE(settle_waiting_ranks(plain));
}

const Probe& probe(const ProbeRegistry& reg, const std::string& name) {
  const Probe* p = reg.find(name);
  if (!p) throw std::runtime_error("no probe " + name);
  return *p;
}

TEST(CheckConfig, TheProbesOwnParsersRunBeforeTheRun) {
  ProbeRegistry reg;
  register_builtin_probes(reg);
  // Declared as "any" (a number or a text such as "64K"): only the sweep's parser can say.
  for (const char* name : {"nccl", "mpi-coll"}) {
    SCOPED_TRACE(name);
    const auto bad = probe(reg, name).check_config({{"min_bytes", "abc"}});
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->key, "min_bytes");
    EXPECT_NE(bad->message.find("\"abc\" is not a size"), std::string::npos) << bad->message;
    EXPECT_FALSE(probe(reg, name).check_config({{"min_bytes", "64K"}}));
  }
  const auto range = probe(reg, "nccl").check_config({{"min_bytes", 1024}, {"max_bytes", 16}});
  ASSERT_TRUE(range);
  EXPECT_NE(range->message.find("below min_bytes"), std::string::npos) << range->message;
  // One key checked against another, past what a declaration states.
  const auto soak = probe(reg, "soak").check_config({{"memory_share", 0.99}, {"duration_s", 10}});
  EXPECT_FALSE(soak) << soak->message;
  const auto gpu = probe(reg, "gpu").check_config({{"cuda_library", ""}});
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->key, "cuda_library");
  // Undeclared keys are still the declarations' to refuse, in every probe.
  const auto typo = probe(reg, "hostmem").check_config({{"arary_mib", 4}});
  ASSERT_TRUE(typo);
  EXPECT_EQ(typo->key, "arary_mib");
}

TEST(ParamProblem, NamesTheLongestKeyTheMessageMentions) {
  const nlohmann::json params = {{"iters", 1}, {"max_iters", 2}};
  EXPECT_EQ(param_problem(params, "max_iters must be >= 1").key, "max_iters");
  EXPECT_EQ(param_problem(params, "something else").key, "");
}

TEST(ProbeDeadline, ASoaksStatedDurationSetsItsDeadline) {
  ProbeRegistry reg;
  register_builtin_probes(reg);
  const Probe& soak = probe(reg, "soak");
  // The burn-in's 30 minutes, with the default 300 s --probe-timeout: the length, its stop
  // margin (15 s) and 120 s of set-up.
  EXPECT_DOUBLE_EQ(soak.deadline_s({{"duration_s", 1800}}, 300), 1800 + 15 + 120);
  EXPECT_DOUBLE_EQ(soak.deadline_s({{"duration_s", 1800}, {"stop_margin_s", 30}}, 300), 1800 + 30 + 120);
  // A longer --probe-timeout still holds.
  EXPECT_DOUBLE_EQ(soak.deadline_s({{"duration_s", 10}}, 600), 600);
  // The other probes keep --probe-timeout.
  EXPECT_DOUBLE_EQ(probe(reg, "gpu").deadline_s(nlohmann::json::object(), 300), 300);
  EXPECT_DOUBLE_EQ(probe(reg, "nccl").deadline_s(nlohmann::json::object(), 42), 42);
}

}  // namespace
}  // namespace ga
