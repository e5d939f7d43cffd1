// The sdc probe's comparisons (probes/sdc/sdc_check.hpp) and the probe on the fake CUDA, whose
// PTX interpreter computes the kernel on the host: the reference equals what the kernel gives,
// a flipped bit is found with its element and both values, and a repetition that cannot run
// is a tool error, never a pass.
#include <gtest/gtest.h>

#include <cstdlib>

#include "base/checksum.hpp"
#include "probes/sdc/sdc_check.hpp"
#include "probes_gpu_fixture.hpp"

namespace ga {
namespace {

TEST(SdcCheck, TheReferenceIsMix64AppliedRoundsTimes) {
  sdc::Workload w;
  w.elements = 5000, w.rounds = 3, w.seed = 7;
  const auto in = sdc::inputs(w);
  ASSERT_EQ(in.size(), 5000u);
  EXPECT_EQ(in[4], base::mix64(11));
  const auto want = sdc::expected(in, w.rounds, 4);  // split over threads: the same values
  for (std::size_t i : {0ul, 1ul, 2500ul, 4999ul})
    EXPECT_EQ(want[i], base::mix64(base::mix64(base::mix64(in[i])))) << i;
}

TEST(SdcCheck, ADifferenceNamesItsFirstElementAndBothValues) {
  std::vector<std::uint64_t> want = {1, 2, 3, 4, 5}, got = want;
  EXPECT_FALSE(sdc::compare(got, want));
  got[3] ^= 1u << 17;
  got[4] = 0;
  const auto d = sdc::compare(got, want);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->element, 3u);
  EXPECT_EQ(d->got, 4u ^ (1u << 17));
  EXPECT_EQ(d->want, 4u);
  EXPECT_EQ(d->count, 2u);
  EXPECT_NE(sdc::digest(got), sdc::digest(want));
  EXPECT_EQ(sdc::digest(want), sdc::digest(std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
}

TEST(SdcCheck, MajorityNeedsMoreThanHalf) {
  EXPECT_EQ(sdc::majority({"a", "a", "b"}), "a");
  EXPECT_FALSE(sdc::majority({"a", "b"}));  // two GPUs that differ: no majority to blame either
  EXPECT_FALSE(sdc::majority({"a", "a", "b", "b"}));
  EXPECT_FALSE(sdc::majority({}));
  EXPECT_EQ(sdc::unlike_most({"a", "a", "a"}), 0);
  EXPECT_EQ(sdc::unlike_most({"a", "b", "a", "a"}), 1);
  EXPECT_EQ(sdc::unlike_most({"a", "b", "c"}), 2);
}

TEST(SdcProbe, AFlippedBitIsNamedAtItsGpuWithTheElement) {
  setenv("GA_FAKE_GPU_FAULTS", "*/gpu:1=sdc", 1);
  const nlohmann::json p = {{"cuda_library", GA_FAKE_CUDA_OK}, {"duration_s", 0}, {"mib", 1}};
  auto r = gpu_fixture::run_probe("sdc", p, gpu_fixture::kTree);
  unsetenv("GA_FAKE_GPU_FAULTS");
  ASSERT_EQ(r.outcome.status, ProbeStatus::ok) << r.outcome.reason;
  const auto good = r.out.find("sdc.mismatched_repetitions", "h1/gpu:0");
  const auto bad = r.out.find("sdc.mismatched_repetitions", "h1/gpu:1");
  ASSERT_EQ(good.size(), 1u);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(*good[0]->value, 0);
  EXPECT_EQ(*bad[0]->value, 1);
  EXPECT_EQ(bad[0]->params.at("first_repetition"), 2);
  EXPECT_EQ(bad[0]->params.at("first_element"), 131072 / 3);
  EXPECT_EQ(bad[0]->params.at("elements_differing"), 1);
  const auto own = r.out.find("sdc.unlike_own_repetitions", "h1/gpu:1");
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(*own[0]->value, 1);
  EXPECT_EQ(*r.out.find("sdc.repetitions", "h1/gpu:1")[0]->value, 3);  // duration 0: the least, 3
}

TEST(SdcProbe, ARepetitionThatCannotRunIsAToolError) {
  // The fake GPUs have 512 MiB each: two buffers of 260 MiB do not fit, so no repetition runs
  // on either GPU, nothing is judged and nothing passes.
  const nlohmann::json p = {{"cuda_library", GA_FAKE_CUDA_OK}, {"duration_s", 0}, {"mib", 260}, {"rounds", 1}};
  auto r = gpu_fixture::run_probe("sdc", p, gpu_fixture::kTree);
  EXPECT_EQ(r.outcome.status, ProbeStatus::error) << r.outcome.reason;
  EXPECT_NE(r.outcome.reason.find("h1/gpu:0: repetition 1 could not run"), std::string::npos) << r.outcome.reason;
  EXPECT_TRUE(r.out.find("sdc.mismatched_repetitions").empty());
}

TEST(SdcProbe, HostMemoryItCannotHaveIsAToolError) {
  const nlohmann::json p = {{"cuda_library", GA_FAKE_CUDA_OK}, {"duration_s", 0}, {"mib", 1 << 30}};
  auto r = gpu_fixture::run_probe("sdc", p, gpu_fixture::kTree);
  EXPECT_EQ(r.outcome.status, ProbeStatus::error) << r.outcome.reason;
  EXPECT_NE(r.outcome.reason.find("lower sdc.mib"), std::string::npos) << r.outcome.reason;
}

}  // namespace
}  // namespace ga
