// The GPUs' identities and their NVLink error counters over the whole run (issue 12 item 7):
// the gpu probe's identity samples and run-level readings on the fake NVML (its nvlink_crc
// fault makes link 0's CRC counters rise between any two reads), the rises and rates the judge
// derives from them (suites/rdma_rates.hpp), the built-in criteria on those rates, and the
// identities the topology carries to the report (probes/devices/gpu_identity.hpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <thread>

#include "probes/devices/gpu_identity.hpp"
#include "probes_gpu_fixture.hpp"
#include "suites/rdma_rates.hpp"
#include "suites_fixture.hpp"

namespace ga {
namespace {

using namespace ga::gpu_fixture;

struct FakeGpuFaults {
  explicit FakeGpuFaults(const char* v) { setenv("GA_FAKE_GPU_FAULTS", v, 1); }
  ~FakeGpuFaults() { unsetenv("GA_FAKE_GPU_FAULTS"); }
};

nlohmann::json fake_params() {
  return {{"cuda_library", GA_FAKE_CUDA_OK}, {"nvml_library", GA_FAKE_NVML}, {"cublas_library", GA_FAKE_CUBLAS},
          {"hbm_mib", 4}, {"h2d_mib", 4}, {"p2p_mib", 2}, {"gemm_n", 64}, {"iterations", 2}, {"warmup", 1},
          {"kernel_log", "/nonexistent/kmsg"}};
}

// The gpu probe's readings at the run's start and end on host h1, `between` apart.
std::vector<Sample> read_bounds(std::chrono::milliseconds between) {
  ProbeRegistry reg;
  register_builtin_probes(reg);
  Probe* p = reg.find("gpu");
  EXPECT_TRUE(p && p->reads_run_bounds());
  auto comm = make_self_comm();
  topo::ClusterTopology cluster;
  topo::HostTopology host;
  host.hostname = "h1";
  cluster.hosts.push_back(host);
  ProbeContext ctx{*comm, cluster, cluster.hosts[0], "h1", 0, 1, 0, 1, 0, 1, {"h1"}, fake_params(), kTree,
                   "", "", {}, std::chrono::steady_clock::now() + std::chrono::seconds(60)};
  Collect out;
  p->read_run_bound(RunBound::start, ctx, out);
  std::this_thread::sleep_for(between);
  p->read_run_bound(RunBound::end, ctx, out);
  for (auto& s : out.s) s.probe = "gpu";  // the harness's sink fills it in
  return out.s;
}

Judgement judge_samples(const std::vector<Sample>& samples) {
  testing::JournalBuilder jb({"h1"});
  for (const auto& s : samples) jb.data().samples.push_back(s);
  jb.probe("gpu");
  return judge(jb.build(), parse_criteria(builtin_criteria_text(), "builtin"));
}

const Metric* metric_at(const std::vector<Metric>& ms, const std::string& name, const std::string& place) {
  for (const auto& m : ms)
    if (m.metric == name && m.place == place) return &m;
  return nullptr;
}

TEST(GpuNvLinkCounters, TheProbeReadsRawCountersAndTheClockAtTheRunsStartAndEnd) {
  unsetenv("GA_FAKE_GPU_FAULTS");
  const auto s = read_bounds(std::chrono::milliseconds(5));
  std::set<std::string> reads;
  int counters = 0;
  for (const auto& x : s) {
    if (x.metric == "gpu.nvlink_counters_read_at") {
      EXPECT_EQ(x.place, "h1");
      reads.insert(x.params.at("read").get<std::string>());
    } else {
      ASSERT_EQ(x.metric.rfind("gpu.nvlink_counter.", 0), 0u) << x.metric << ": the probe derives nothing";
      EXPECT_EQ(*x.value, 0) << x.metric << " at " << x.place << ": healthy fakes count no error";
      EXPECT_EQ(x.params.at("links"), 18);
      ++counters;
    }
  }
  EXPECT_EQ(reads, (std::set<std::string>{"start", "end"}));
  EXPECT_EQ(counters, 2 * 2 * 4);  // 2 readings x 2 GPUs x replay, recovery, crc_flit, crc_data
}

TEST(GpuNvLinkCounters, CrcErrorsDuringTheRunFailExactlyTheirGpu) {
  FakeGpuFaults f("*/gpu:1=nvlink_crc");
  const auto j = judge_samples(read_bounds(std::chrono::milliseconds(50)));
  const Metric* rate = metric_at(j.metrics, "gpu.nvlink_counter_rate.crc_flit", "h1/gpu:1");
  ASSERT_TRUE(rate);
  EXPECT_GT(*rate->value, 300);  // the fake's 1000 a second, give or take a clock tick
  EXPECT_EQ(*metric_at(j.metrics, "gpu.nvlink_counter_rate.crc_flit", "h1/gpu:0")->value, 0);
  EXPECT_EQ(*metric_at(j.metrics, "gpu.nvlink_counter_rise.replay", "h1/gpu:1")->value, 0);
  auto status = [&](const char* crit, const char* place) {
    const Verdict* v = testing::verdict_at(j, crit, place);
    return v ? v->status : VerdictStatus::skipped;
  };
  for (const char* c : {"gpu.nvlink.crc_flit_rate", "gpu.nvlink.crc_data_rate"}) {
    EXPECT_EQ(status(c, "h1/gpu:1"), VerdictStatus::fail) << c;
    EXPECT_EQ(status(c, "h1/gpu:0"), VerdictStatus::pass) << c;
  }
  for (const char* c : {"gpu.nvlink.replay", "gpu.nvlink.recovery"}) {
    EXPECT_EQ(status(c, "h1/gpu:1"), VerdictStatus::pass) << c;
    EXPECT_EQ(status(c, "h1/gpu:0"), VerdictStatus::pass) << c;
  }
}

// ---- the derivation and the thresholds, on readings made by hand (known clocks)

std::vector<Sample> readings(double t0, double t1, double crc0, double crc1, double replay1) {
  std::vector<Sample> s;
  auto add = [&](const std::string& metric, const std::string& place, double v, const char* read, const char* unit) {
    Sample x = value_sample(place, metric, v, unit, {{"read", read}, {"links", 18}});
    x.probe = "gpu";
    s.push_back(std::move(x));
  };
  add("gpu.nvlink_counters_read_at", "h1", t0, "start", "s");
  add("gpu.nvlink_counters_read_at", "h1", t1, "end", "s");
  add("gpu.nvlink_counter.crc_flit", "h1/gpu:0", crc0, "start", "count");
  add("gpu.nvlink_counter.crc_flit", "h1/gpu:0", crc1, "end", "count");
  add("gpu.nvlink_counter.replay", "h1/gpu:0", 2, "start", "count");
  add("gpu.nvlink_counter.replay", "h1/gpu:0", replay1, "end", "count");
  return s;
}

TEST(GpuNvLinkCounters, RiseIntervalAndRateASecondFromTheTwoReadings) {
  const auto d = judging::derive_rdma_counter_metrics(aggregate(readings(100, 110, 5, 1005, 2)));
  EXPECT_DOUBLE_EQ(*metric_at(d, "gpu.nvlink_counter_interval", "h1/gpu:0")->value, 10);
  const Metric* rise = metric_at(d, "gpu.nvlink_counter_rise.crc_flit", "h1/gpu:0");
  ASSERT_TRUE(rise);
  EXPECT_DOUBLE_EQ(*rise->value, 1000);
  EXPECT_EQ(rise->probe, "gpu");
  const Metric* rate = metric_at(d, "gpu.nvlink_counter_rate.crc_flit", "h1/gpu:0");
  ASSERT_TRUE(rate);
  EXPECT_DOUBLE_EQ(*rate->value, 100);
  EXPECT_EQ(rate->unit, "errors/s");
  // Replays are judged by their count, not their rate.
  EXPECT_DOUBLE_EQ(*metric_at(d, "gpu.nvlink_counter_rise.replay", "h1/gpu:0")->value, 0);
  EXPECT_FALSE(metric_at(d, "gpu.nvlink_counter_rate.replay", "h1/gpu:0"));
  // No rdma metric is made up from gpu readings.
  for (const auto& m : d) EXPECT_EQ(m.metric.rfind("rdma.", 0), std::string::npos) << m.metric;
}

TEST(GpuNvLinkCounters, OneReadingDerivesNothing) {
  auto s = readings(100, 110, 5, 1005, 2);
  std::erase_if(s, [](const Sample& x) { return x.params.value("read", "") == "end"; });
  EXPECT_TRUE(judging::derive_rdma_counter_metrics(aggregate(s)).empty());
}

// DCGM's limits as the built-in criteria hold them: 100 CRC errors a second pass (DCGM fails
// at 100 itself, see criteria-default-gpu.yaml), 101 fail, one fewer is a warning only; one
// replay fails.
TEST(GpuNvLinkCounters, CrcRateAndReplaysAgainstTheBuiltInThresholds) {
  auto status = [](double crc_rise, double replay_end, const char* crit) {
    const auto j = judge_samples(readings(100, 110, 0, crc_rise, replay_end));
    const Verdict* v = testing::verdict_at(j, crit, "h1/gpu:0");
    return v ? v->status : VerdictStatus::skipped;
  };
  EXPECT_EQ(status(1000, 2, "gpu.nvlink.crc_flit_rate"), VerdictStatus::pass);
  EXPECT_EQ(status(1010, 2, "gpu.nvlink.crc_flit_rate"), VerdictStatus::fail);
  EXPECT_EQ(status(0, 2, "gpu.nvlink.crc_flit"), VerdictStatus::pass);
  EXPECT_NE(status(3, 2, "gpu.nvlink.crc_flit"), VerdictStatus::pass);  // a warning
  EXPECT_EQ(status(3, 2, "gpu.nvlink.crc_flit_rate"), VerdictStatus::pass);
  EXPECT_EQ(status(0, 2, "gpu.nvlink.replay"), VerdictStatus::pass);
  EXPECT_EQ(status(0, 3, "gpu.nvlink.replay"), VerdictStatus::fail);
}

// ---- identities

TEST(GpuIdentity, EveryFakeGpuHasItsOwnUuidAndSerialRecordedAtItsPlace) {
  unsetenv("GA_FAKE_GPU_FAULTS");
  auto r = run_probe("gpu", fake_params(), kTree);
  ASSERT_EQ(r.outcome.status, ProbeStatus::ok) << r.outcome.reason;
  std::set<std::string> uuids, serials;
  for (const std::string g : {"h1/gpu:0", "h1/gpu:1"}) {
    for (const char* m : {"gpu.pci_bus_id", "gpu.uuid", "gpu.serial"})
      ASSERT_EQ(r.out.find(m, g).size(), 1u) << m << " at " << g;
    uuids.insert(*r.out.find("gpu.uuid", g)[0]->text);
    serials.insert(*r.out.find("gpu.serial", g)[0]->text);
  }
  EXPECT_EQ(*r.out.find("gpu.pci_bus_id", "h1/gpu:1")[0]->text, "00000000:43:00.0");
  EXPECT_EQ(uuids.size(), 2u);
  EXPECT_EQ(serials.size(), 2u);
  for (const auto& u : uuids) EXPECT_EQ(u.rfind("GPU-", 0), 0u) << u;

  // The topology of the same host gets the same identities, for the report's rows. This
  // topology lists no GPU (the machine has none): the ones on the test tree's bus are added.
  topo::HostTopology h;
  h.hostname = "h1";
  gpu::add_gpu_identities(h, kTree, {GA_FAKE_NVML});
  ASSERT_EQ(h.gpus.size(), 2u);
  EXPECT_EQ(h.gpus[1].pci_bus_id, "0000:43:00.0");
  EXPECT_EQ(h.gpus[1].uuid, *r.out.find("gpu.uuid", "h1/gpu:1")[0]->text);
  EXPECT_EQ(h.gpus[1].serial, *r.out.find("gpu.serial", "h1/gpu:1")[0]->text);
  // No NVML: the GPUs are still there, their identities unknown, nothing thrown.
  topo::HostTopology none;
  gpu::add_gpu_identities(none, kTree, {"/nonexistent/libnvidia-ml.so.1"});
  ASSERT_EQ(none.gpus.size(), 2u);
  EXPECT_FALSE(none.gpus[0].uuid);
  EXPECT_FALSE(none.gpus[0].serial);
}

}  // namespace
}  // namespace ga
