// Theoretical references, GPU assignment and XID parsing: pure functions of the gpu probe.
#include <gtest/gtest.h>

#include "probes/devices/gpu_assign.hpp"
#include "probes/devices/gpu_models.hpp"
#include "probes/vendor/nvml_api.hpp"
#include "probes/devices/xid_log.hpp"

namespace {

using namespace ga::gpu;

TEST(GpuModels, PcieLinkRatesPerDirection) {
  // anchors.md: Gen4 x16 ~32 GB/s, Gen5 x16 ~64 GB/s (before encoding); Azure NHC asks 24 / 48.
  EXPECT_NEAR(*pcie_bytes_per_second(4, 16), 31.5e9, 0.1e9);
  EXPECT_NEAR(*pcie_bytes_per_second(5, 16), 63.0e9, 0.1e9);
  EXPECT_NEAR(*pcie_bytes_per_second(3, 16), 15.75e9, 0.01e9);  // V100 boards: 15.75 GB/s (hwloc fixture)
  EXPECT_NEAR(*pcie_bytes_per_second(1, 1), 0.25e9, 1e6);
  EXPECT_LT(*pcie_bytes_per_second(5, 8), *pcie_bytes_per_second(5, 16));
  EXPECT_FALSE(pcie_bytes_per_second(0, 16));
  EXPECT_FALSE(pcie_bytes_per_second(7, 16));
  EXPECT_FALSE(pcie_bytes_per_second(4, 0));
}

TEST(GpuModels, CudaNamesMapToTheirDatasheetRow) {
  EXPECT_EQ(model_spec("NVIDIA H100 80GB HBM3")->family, "H100 SXM");
  EXPECT_DOUBLE_EQ(model_spec("NVIDIA H100 80GB HBM3")->hbm_bytes_per_s, 3.35e12);
  EXPECT_EQ(model_spec("NVIDIA H100 PCIe")->family, "H100 PCIe");
  EXPECT_EQ(model_spec("NVIDIA H100 NVL")->family, "H100 NVL");
  EXPECT_EQ(model_spec("NVIDIA H200")->family, "H200");
  EXPECT_EQ(model_spec("NVIDIA GH200 480GB")->family, "GH200");
  EXPECT_EQ(model_spec("NVIDIA A100-SXM4-80GB")->family, "A100 SXM 80GB");
  EXPECT_EQ(model_spec("NVIDIA A100-SXM4-40GB")->family, "A100 SXM 40GB");
  EXPECT_EQ(model_spec("NVIDIA A100 80GB PCIe")->family, "A100 PCIe 80GB");
  EXPECT_EQ(model_spec("NVIDIA A100-PCIE-40GB")->family, "A100 PCIe 40GB");
  EXPECT_DOUBLE_EQ(model_spec("Tesla V100-SXM2-32GB")->bf16_flops, 0);  // no bf16 on Volta
  EXPECT_FALSE(model_spec("NVIDIA GeForce RTX 4090"));
}

PciGpu gpu(int i, std::optional<int> numa) { return {i, "0000:0" + std::to_string(i) + ":00.0", numa, ""}; }

TEST(GpuAssign, EachRankTakesAGpuOnItsOwnNumaNode) {
  std::vector<PciGpu> g = {gpu(0, 0), gpu(1, 0), gpu(2, 1), gpu(3, 1)};
  // Ranks bound to NUMA 1, 0, 1, 0 (e.g. --map-by numa with an odd order).
  auto a = assign_gpus(g, {1, 0, 1, 0});
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0], std::vector<std::size_t>{2});
  EXPECT_EQ(a[1], std::vector<std::size_t>{0});
  EXPECT_EQ(a[2], std::vector<std::size_t>{3});
  EXPECT_EQ(a[3], std::vector<std::size_t>{1});
}

TEST(GpuAssign, UnboundRanksTakeGpusInOrderAndFewRanksGoRoundAgain) {
  std::vector<PciGpu> g = {gpu(0, 0), gpu(1, 0), gpu(2, 1)};
  auto a = assign_gpus(g, {std::nullopt, std::nullopt, std::nullopt});
  EXPECT_EQ(a[0], std::vector<std::size_t>{0});
  EXPECT_EQ(a[2], std::vector<std::size_t>{2});
  auto one = assign_gpus(g, {std::nullopt});  // one process (non-MPI build): every GPU
  EXPECT_EQ(one[0], (std::vector<std::size_t>{0, 1, 2}));
  auto many = assign_gpus(g, {0, 0, 0, 0, 0});  // more ranks than GPUs: the rest get none
  EXPECT_EQ(many[0], std::vector<std::size_t>{0});
  EXPECT_EQ(many[2], std::vector<std::size_t>{2});  // NUMA 0 exhausted: the nearest free one
  EXPECT_TRUE(many[3].empty());
  EXPECT_TRUE(many[4].empty());
}

TEST(GpuXid, KernelLogLinesCountPerGpu) {
  std::vector<std::string> log = {
      "6,1234,5678,-;NVRM: Xid (PCI:0000:1b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
      "4,1235,5679,-;NVRM: Xid (PCI:0000:1b:00): 48, pid=123, name=python, An uncorrectable double bit error",
      "[ 12.5] NVRM: Xid (0000:43:00): 13, Graphics Engine Exception",
      "[ 13.0] NVRM: Xid (PCI:00000000:9D:00): 94, pid=1, Contained ECC error",
      "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15",
  };
  auto x = count_xids(log);
  ASSERT_EQ(x.size(), 3u);
  EXPECT_EQ(x["0000:1b:00"].count, 2);
  EXPECT_EQ(x["0000:1b:00"].codes, (std::vector<int>{79, 48}));
  EXPECT_EQ(x["0000:43:00"].codes, std::vector<int>{13});
  EXPECT_EQ(x["0000:9d:00"].count, 1);
  EXPECT_EQ(xid_key("0000:1B:00.0"), "0000:1b:00");
}

TEST(GpuXid, UnreadableLogSaysWhy) {
  std::string why;
  EXPECT_FALSE(read_kernel_log("/nonexistent/kmsg", &why));
  EXPECT_NE(why.find("/nonexistent/kmsg"), std::string::npos);
}

TEST(GpuThrottle, ReasonNamesAndHardwareBits) {
  EXPECT_EQ(throttle_reason_names(0), "none");
  EXPECT_EQ(throttle_reason_names(0x1), "gpu_idle");
  EXPECT_EQ(throttle_reason_names(0x48), "hw_slowdown,hw_thermal_slowdown");
  EXPECT_EQ(throttle_reason_names(0x10000), "other");
  EXPECT_FALSE(throttle_is_hardware(0x1 | 0x4));
  EXPECT_TRUE(throttle_is_hardware(0x80));
}

}  // namespace
