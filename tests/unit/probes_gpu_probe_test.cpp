// The gpu probe end to end in one process, on fake vendor libraries and a recorded PCI tree:
// what it emits on a working (fake) driver, and the failing verdicts when parts are missing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "probes/probe.hpp"
#include "probes_gpu_fixture.hpp"

namespace {

using namespace ga;

using namespace ga::gpu_fixture;

Run run_gpu(nlohmann::json params, const std::string& sysfs = kTree) { return run_probe("gpu", std::move(params), sysfs); }

nlohmann::json fake_params() {
  return {{"cuda_library", GA_FAKE_CUDA_OK}, {"nvml_library", GA_FAKE_NVML}, {"cublas_library", GA_FAKE_CUBLAS},
          {"hbm_mib", 4}, {"h2d_mib", 4}, {"p2p_mib", 2}, {"gemm_n", 64}, {"iterations", 2}, {"warmup", 1},
          {"kernel_log", "/nonexistent/kmsg"}};
}

// The fakes are healthy unless GA_FAKE_GPU_FAULTS names a fault (tests/fakes/fake_gpu_faults.h);
// set for one test, restored after it.
struct FakeGpuFaults {
  explicit FakeGpuFaults(const char* v) { setenv("GA_FAKE_GPU_FAULTS", v, 1); }
  ~FakeGpuFaults() { unsetenv("GA_FAKE_GPU_FAULTS"); }
};

TEST(GpuProbe, OnAFakeDriverEveryGpuGetsItsMetricsAtItsLogicalPlace) {
  FakeGpuFaults faults("*/gpu:1=ecc_uncorrected+pcie_gen_low+hw_slowdown");
  auto r = run_gpu(fake_params());
  ASSERT_EQ(r.outcome.status, ProbeStatus::ok) << r.outcome.reason;
  for (const std::string g : {"h1/gpu:0", "h1/gpu:1"}) {
    for (const char* m : {"gpu.model", "gpu.memory_total", "gpu.memory_free", "gpu.hbm_bw", "gpu.hbm_bw_of_theory",
                          "gpu.h2d_bw", "gpu.d2h_bw", "gpu.pcie_link_gen", "gpu.pcie_gen_below_max",
                          "gpu.pcie_theoretical_bw", "gpu.h2d_bw_of_theory", "gpu.gemm_flops", "gpu.gemm_of_theory",
                          "gpu.temperature", "gpu.power", "gpu.clock_sm", "gpu.throttle_reasons", "gpu.ecc_enabled",
                          "gpu.ecc_uncorrected_volatile", "gpu.remapped_rows_failure"})
      EXPECT_FALSE(r.out.find(m, g).empty()) << m << " at " << g;
  }
  // Copies count read and write; both dtypes of GEMM.
  EXPECT_EQ(r.out.find("gpu.hbm_bw", "h1/gpu:0")[0]->params["counted"], "read+write");
  std::set<std::string> dtypes;
  for (auto* s : r.out.find("gpu.gemm_flops", "h1/gpu:0")) dtypes.insert(s->params["dtype"].get<std::string>());
  EXPECT_EQ(dtypes, (std::set<std::string>{"bf16", "fp16"}));
  // The identity: bus id and CUDA ordinal recorded, never used as the place.
  auto model = r.out.find("gpu.model", "h1/gpu:1");
  EXPECT_EQ(model[0]->params["pci_bus_id"], "0000:43:00.0");
  EXPECT_EQ(model[0]->params["cuda_ordinal"], 1);
  // The faults asked of the fake NVML on gpu:1 come through as measured values.
  EXPECT_EQ(*r.out.find("gpu.ecc_uncorrected_volatile", "h1/gpu:1")[0]->value, 2);
  EXPECT_EQ(*r.out.find("gpu.ecc_uncorrected_volatile", "h1/gpu:0")[0]->value, 0);
  EXPECT_EQ(*r.out.find("gpu.pcie_gen_below_max", "h1/gpu:1")[0]->value, 1);
  EXPECT_EQ(*r.out.find("gpu.throttle_hw", "h1/gpu:1")[0]->value, 1);
  // Both directions of the P2P matrix, with peer access.
  auto ab = r.out.find("gpu.p2p_access", "h1/gpu:0~h1/gpu:1");
  ASSERT_EQ(ab.size(), 1u);
  EXPECT_EQ(*ab[0]->value, 1);
  EXPECT_FALSE(r.out.find("gpu.p2p_bw", "h1/gpu:1~h1/gpu:0").empty());
  // Host facts once.
  ASSERT_EQ(r.out.find("gpu.cuda_driver", "h1").size(), 1u);
  EXPECT_EQ(*r.out.find("gpu.cuda_driver", "h1")[0]->text, "12.4");
  EXPECT_EQ(*r.out.find("gpu.nvidia_driver", "h1")[0]->text, "550.54.15");
  // The fake boards' 18 NVLinks are active; the topology expects none, so none is counted inactive.
  EXPECT_EQ(*r.out.find("gpu.nvlink_active", "h1/gpu:0")[0]->value, 18);
  EXPECT_TRUE(r.out.find("gpu.nvlink_inactive").empty());
  // The kernel log could not be read: said, not failed.
  EXPECT_NE(r.outcome.reason.find("XID errors not read"), std::string::npos) << r.outcome.reason;
  EXPECT_TRUE(r.out.find("gpu.xid_errors").empty());
}

TEST(GpuProbe, WithoutFaultsAskedTheFakeGpusAreHealthy) {
  unsetenv("GA_FAKE_GPU_FAULTS");
  auto r = run_gpu(fake_params());
  ASSERT_EQ(r.outcome.status, ProbeStatus::ok) << r.outcome.reason;
  for (const std::string g : {"h1/gpu:0", "h1/gpu:1"}) {
    EXPECT_EQ(*r.out.find("gpu.ecc_uncorrected_volatile", g)[0]->value, 0) << g;
    EXPECT_EQ(*r.out.find("gpu.pcie_gen_below_max", g)[0]->value, 0) << g;
    EXPECT_EQ(*r.out.find("gpu.pcie_width_below_max", g)[0]->value, 0) << g;
    EXPECT_EQ(*r.out.find("gpu.throttle_hw", g)[0]->value, 0) << g;
    EXPECT_EQ(*r.out.find("gpu.remapped_rows_pending", g)[0]->value, 0) << g;
    EXPECT_EQ(*r.out.find("gpu.memory_total", g)[0]->value, 512.0 * 1024 * 1024) << g;
  }
}

TEST(GpuProbe, NoNvidiaGpuOnTheBusIsSkipped) {
  auto r = run_gpu(fake_params(), "/nonexistent-root");
  EXPECT_EQ(r.outcome.status, ProbeStatus::skipped);
  EXPECT_EQ(r.outcome.reason, "no NVIDIA GPU on the PCI bus");
  EXPECT_TRUE(r.out.s.empty());
}

TEST(GpuProbe, GpusWithoutDriverFail) {
  auto p = fake_params();
  p["cuda_library"] = "/nonexistent/libcuda.so.1";
  auto r = run_gpu(p);
  EXPECT_EQ(r.outcome.status, ProbeStatus::failed);
  EXPECT_NE(r.outcome.reason.find("cannot be loaded"), std::string::npos) << r.outcome.reason;
}

TEST(GpuProbe, OldDriverFails) {
  auto p = fake_params();
  p["cuda_library"] = GA_FAKE_CUDA_OLD;
  auto r = run_gpu(p);
  EXPECT_EQ(r.outcome.status, ProbeStatus::failed);
  EXPECT_NE(r.outcome.reason.find("CUDA 11.0"), std::string::npos) << r.outcome.reason;
}

TEST(GpuProbe, WithoutNvmlTheCopiesAreStillMeasuredButTheProbeFails) {
  auto p = fake_params();
  p["nvml_library"] = "/nonexistent/libnvidia-ml.so.1";
  auto r = run_gpu(p);
  EXPECT_EQ(r.outcome.status, ProbeStatus::failed);
  EXPECT_NE(r.outcome.reason.find("NVML unusable"), std::string::npos) << r.outcome.reason;
  EXPECT_FALSE(r.out.find("gpu.hbm_bw", "h1/gpu:0").empty());
  EXPECT_TRUE(r.out.find("gpu.temperature").empty());
  EXPECT_TRUE(r.out.find("gpu.pcie_link_gen").empty());
}

TEST(GpuProbe, WithoutCublasNoGemmAndTheProbeFailsUnlessGemmIsOff) {
  auto p = fake_params();
  p["cublas_library"] = "/nonexistent/libcublas.so";
  auto r = run_gpu(p);
  EXPECT_EQ(r.outcome.status, ProbeStatus::failed);
  EXPECT_NE(r.outcome.reason.find("cuBLAS unusable"), std::string::npos) << r.outcome.reason;
  EXPECT_TRUE(r.out.find("gpu.gemm_flops").empty());
  p["gemm"] = false;
  auto off = run_gpu(p);
  EXPECT_EQ(off.outcome.status, ProbeStatus::ok) << off.outcome.reason;
}

// checks: state (gpuaccept health): the state and the PCIe link, read while a short copy
// loads it, and no figure of any speed. The faults still show at their GPU.
TEST(GpuProbe, StateChecksReadTheStateAndMeasureNoSpeed) {
  FakeGpuFaults f("*/gpu:1=pcie_width_low+ecc_uncorrected");
  auto p = fake_params();
  p["checks"] = "state";
  p["cublas_library"] = "/nonexistent/libcublas.so";  // not loaded: no GEMM, so no failure either
  auto r = run_gpu(p);
  EXPECT_EQ(r.outcome.status, ProbeStatus::ok) << r.outcome.reason;
  for (const char* m : {"gpu.hbm_bw", "gpu.h2d_bw", "gpu.d2h_bw", "gpu.h2d_bw_remote", "gpu.gemm_flops", "gpu.p2p_bw",
                        "gpu.p2p_access", "gpu.h2d_bw_of_theory", "gpu.hbm_bw_of_theory"})
    EXPECT_TRUE(r.out.find(m).empty()) << m;
  for (const char* place : {"h1/gpu:0", "h1/gpu:1"}) {
    EXPECT_EQ(r.out.find("gpu.pcie_link_gen", place).size(), 1u) << place;
    EXPECT_EQ(r.out.find("gpu.ecc_uncorrected_volatile", place).size(), 1u) << place;
    EXPECT_EQ(r.out.find("gpu.remapped_rows_pending", place).size(), 1u) << place;
  }
  EXPECT_EQ(r.out.find("gpu.pcie_width_below_max", "h1/gpu:1")[0]->value, 8);
  EXPECT_EQ(r.out.find("gpu.pcie_width_below_max", "h1/gpu:0")[0]->value, 0);
  EXPECT_GT(r.out.find("gpu.ecc_uncorrected_volatile", "h1/gpu:1")[0]->value, 0);
  EXPECT_EQ(r.out.find("gpu.ecc_uncorrected_volatile", "h1/gpu:0")[0]->value, 0);
}

// A bad value is the user's: a tool error naming it, never the node's fault (issue 32; the run
// refuses it before any probe, check_config, so this is a probe run some other way).
TEST(GpuProbe, ABadParamIsAToolErrorNamingIt) {
  auto p = fake_params();
  p["cuda_library"] = 7;
  auto r = run_gpu(p);
  EXPECT_EQ(r.outcome.status, ProbeStatus::error);
  EXPECT_NE(r.outcome.reason.find("cuda_library"), std::string::npos);
}

}  // namespace
