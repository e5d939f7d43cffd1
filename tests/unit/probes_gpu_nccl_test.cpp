// The nccl probe in one process on fake libraries: the NCCL backend through the shared sweep
// harness (a one-rank communicator, where every collective is a copy), the data check, the
// recorded stack, and the failing verdicts when NCCL or the driver is missing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "probes/probe.hpp"
#include "probes_gpu_fixture.hpp"

namespace {

using namespace ga;

using namespace ga::gpu_fixture;

Run run_nccl(nlohmann::json params, const std::string& sysfs = kTree) { return run_probe("nccl", std::move(params), sysfs); }

nlohmann::json fake_params() {
  return {{"cuda_library", GA_FAKE_CUDA_OK}, {"nccl_library", GA_FAKE_NCCL}, {"min_ranks", 1},
          {"min_bytes", 8}, {"max_bytes", 4096}, {"warmup_iters", 1}, {"max_iters", 2}};
}

TEST(NcclProbe, OneRankSweepsEveryCollectiveWithADataCheck) {
  ::setenv("NCCL_ALGO", "Ring", 1);
  auto r = run_nccl(fake_params());
  ::unsetenv("NCCL_ALGO");
  ASSERT_EQ(r.outcome.status, ProbeStatus::ok) << r.outcome.reason;
  // Set-up time on the rank's GPU and the slowest at the scope's place.
  auto init = r.out.find("nccl.init_time");
  ASSERT_EQ(init.size(), 1u);
  EXPECT_EQ(init[0]->place, "h1/gpu:0");
  EXPECT_EQ(init[0]->params["scope"], "intra-host");
  ASSERT_EQ(r.out.find("nccl.init_time_slowest").size(), 1u);
  EXPECT_EQ(r.out.find("nccl.init_time_slowest")[0]->place, "h1");
  // One rank, at most ranks_per_unique_id: one id and ncclCommInitRank, said in the params;
  // both phases timed; the slowest rank's place and host named.
  EXPECT_EQ(init[0]->params["init"], "ncclCommInitRank");
  EXPECT_EQ(init[0]->params["unique_ids"], 1);
  ASSERT_EQ(r.out.find("nccl.unique_id_time", "h1/gpu:0").size(), 1u);
  EXPECT_EQ(r.out.find("nccl.init_time_slowest")[0]->params["slowest_place"], "h1/gpu:0");
  ASSERT_EQ(r.out.find("nccl.init_slowest_host", "h1").size(), 1u);
  EXPECT_EQ(*r.out.find("nccl.init_slowest_host", "h1")[0]->text, "h1");
  // Every collective, checked, nothing wrong; in place only where NCCL has it.
  std::set<std::pair<std::string, bool>> seen;
  for (auto* s : r.out.find("nccl.wrong")) {
    seen.insert({s->params["collective"].get<std::string>(), s->params["in_place"].get<bool>()});
    EXPECT_EQ(*s->value, 0) << s->params.dump();
    EXPECT_EQ(s->place, "h1");
    EXPECT_EQ(s->params["scope"], "intra-host");
    EXPECT_EQ(s->params["algo"], "Ring");
    EXPECT_TRUE(s->params.contains("nvls"));
  }
  for (const char* c : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"})
    EXPECT_TRUE(seen.count({c, false})) << c;
  EXPECT_TRUE(seen.count({"all_reduce", true}));
  EXPECT_FALSE(seen.count({"alltoall", true}));
  EXPECT_FALSE(seen.count({"sendrecv", true}));
  // The stack: version from the library, the NCCL_* environment.
  ASSERT_EQ(r.out.find("nccl.version").size(), 1u);
  EXPECT_EQ(*r.out.find("nccl.version")[0]->text, "2.19.3");
  // The fake GPU is an H100 SXM: a theoretical NVLink line and the peak's share of it.
  EXPECT_FALSE(r.out.find("nccl.busbw_of_theory").empty());
}

TEST(NcclProbe, NcclEnvironmentIsRecordedAndOnlyNcclVariables) {
  ::setenv("NCCL_IB_GID_INDEX", "3", 1);
  ::setenv("NOT_NCCL_SECRET", "x", 1);
  auto r = run_nccl(fake_params());
  ::unsetenv("NCCL_IB_GID_INDEX");
  ::unsetenv("NOT_NCCL_SECRET");
  auto env = r.out.find("nccl.env");
  ASSERT_EQ(env.size(), 1u);
  EXPECT_NE(env[0]->text->find("NCCL_IB_GID_INDEX=3"), std::string::npos);
  EXPECT_EQ(env[0]->text->find("NOT_NCCL"), std::string::npos);
  EXPECT_EQ(env[0]->params["vars"]["NCCL_IB_GID_INDEX"], "3");
}

TEST(NcclProbe, ACorruptedElementShowsAsOneWrongOnThatLineOnly) {
  auto p = fake_params();
  p["corrupt"] = {{"collective", "all_gather"}, {"size", 1024}, {"rank", 0}};
  auto r = run_nccl(p);
  ASSERT_EQ(r.outcome.status, ProbeStatus::ok) << r.outcome.reason;
  int wrong_lines = 0;
  for (auto* s : r.out.find("nccl.wrong"))
    if (*s->value != 0) {
      ++wrong_lines;
      EXPECT_EQ(*s->value, 1);
      EXPECT_EQ(s->params["collective"], "all_gather");
      EXPECT_EQ(s->params["size"], 1024);
    }
  EXPECT_GE(wrong_lines, 1);
  EXPECT_NE(r.outcome.reason.find("wrong element"), std::string::npos) << r.outcome.reason;
}

TEST(NcclProbe, ALibraryThatComputesWrongIsCaughtByTheCheck) {
  auto p = fake_params();
  p["nccl_library"] = GA_FAKE_NCCL_WRONG;
  auto r = run_nccl(p);
  bool all_reduce_wrong = false;
  for (auto* s : r.out.find("nccl.wrong"))
    if (s->params["collective"] == "all_reduce" && *s->value > 0) all_reduce_wrong = true;
  EXPECT_TRUE(all_reduce_wrong);
}

TEST(NcclProbe, NoNvidiaGpuIsSkipped) {
  auto r = run_nccl(fake_params(), "/nonexistent-root");
  EXPECT_EQ(r.outcome.status, ProbeStatus::skipped);
  EXPECT_EQ(r.outcome.reason, "no NVIDIA GPU on the PCI bus");
}

TEST(NcclProbe, GpusWithoutDriverFail) {
  auto p = fake_params();
  p["cuda_library"] = "/nonexistent/libcuda.so.1";
  auto r = run_nccl(p);
  EXPECT_EQ(r.outcome.status, ProbeStatus::failed);
  EXPECT_NE(r.outcome.reason.find("cannot be loaded"), std::string::npos) << r.outcome.reason;
}

TEST(NcclProbe, GpusWithoutNcclFail) {
  auto p = fake_params();
  p["nccl_library"] = "/nonexistent/libnccl.so.2";
  auto r = run_nccl(p);
  EXPECT_EQ(r.outcome.status, ProbeStatus::failed);
  EXPECT_NE(r.outcome.reason.find("NCCL cannot be loaded"), std::string::npos) << r.outcome.reason;
}

TEST(NcclProbe, OneGpuPerRankByDefaultSaysSo) {
  auto p = fake_params();
  p.erase("min_ranks");
  auto r = run_nccl(p);
  EXPECT_EQ(r.outcome.status, ProbeStatus::ok);
  EXPECT_NE(r.outcome.reason.find("nothing to measure"), std::string::npos) << r.outcome.reason;
  EXPECT_NE(r.outcome.reason.find("one process drives one GPU"), std::string::npos) << r.outcome.reason;
  EXPECT_TRUE(r.out.find("nccl.busbw").empty());
}

TEST(NcclProbe, UnknownParamIsAToolError) {
  auto p = fake_params();
  p["sizes"] = 3;
  // The suite's mistake, not the host's: never a node fault.
  const auto r = run_nccl(p);
  EXPECT_EQ(r.outcome.status, ProbeStatus::error);
  EXPECT_NE(r.outcome.reason.find("nccl.sizes: unknown parameter"), std::string::npos) << r.outcome.reason;
}

}  // namespace
