// The decision table of the GPU probes, against fake vendor libraries (tests/fakes) and a
// recorded PCI tree with two NVIDIA GPUs (tests/data/gpu/sysfs-two-nvidia).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "probes/vendor/gpu_libraries.hpp"
#include "probes/devices/gpu_presence.hpp"

namespace {

using namespace ga::gpu;
namespace fs = std::filesystem;

const std::string kTree = std::string(GA_TEST_DATA_DIR) + "/gpu/sysfs-two-nvidia";

LibraryPaths with_cuda(const std::string& cuda) {
  LibraryPaths p = library_paths(nlohmann::json::object(), [](const char*) -> const char* { return nullptr; });
  p.cuda = {cuda};
  return p;
}

TEST(GpuPresence, SysfsFindsNvidiaDisplayControllersOnlyOrderedByBus) {
  auto g = nvidia_gpus_in_sysfs(kTree);
  ASSERT_EQ(g.size(), 2u);  // not the NVSwitch (0x0680), not the Intel VGA, not the NIC
  EXPECT_EQ(g[0].pci_bus_id, "0000:1b:00.0");
  EXPECT_EQ(g[0].index, 0);
  EXPECT_EQ(g[0].numa_node, 0);
  EXPECT_EQ(g[1].pci_bus_id, "0000:43:00.0");
  EXPECT_EQ(g[1].index, 1);
  EXPECT_EQ(g[1].numa_node, 1);
}

TEST(GpuPresence, EmptyTreeAndMissingTreeHaveNoGpu) {
  EXPECT_TRUE(nvidia_gpus_in_sysfs("/nonexistent-root").empty());
  EXPECT_TRUE(nvidia_gpus_in_sysfs(std::string(GA_TEST_DATA_DIR) + "/topology/sysfs-two-hcas").empty());
}

TEST(GpuPresence, TopologyGpusWinAndKeepTheirLogicalIndex) {
  ga::topo::HostTopology h;
  ga::topo::Gpu a;
  a.index = 3;
  a.vendor = "nvidia";
  a.pci_bus_id = "0000:9D:00.0";
  a.numa_node = 1;
  ga::topo::Gpu amd;
  amd.index = 0;
  amd.vendor = "amd";
  amd.pci_bus_id = "0000:03:00.0";
  h.gpus = {amd, a};
  std::string src;
  auto g = nvidia_gpus_on_bus(h, kTree, &src);
  EXPECT_EQ(src, "topology");
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].index, 3);
  EXPECT_EQ(g[0].pci_bus_id, "0000:9d:00.0");
  ga::topo::HostTopology none;
  EXPECT_EQ(nvidia_gpus_on_bus(none, kTree, &src).size(), 2u);
  EXPECT_EQ(src, "sysfs");
}

TEST(GpuPresence, NoNvidiaGpuIsASkip) {
  auto a = open_gpus({}, with_cuda(GA_FAKE_CUDA_OK), {});
  ASSERT_TRUE(a.stop);
  EXPECT_EQ(a.stop->status, ga::ProbeStatus::skipped);
  EXPECT_EQ(a.stop->reason, "no NVIDIA GPU on the PCI bus");
}

TEST(GpuPresence, GpusWithoutADriverLibraryFail) {
  auto a = open_gpus(nvidia_gpus_in_sysfs(kTree), with_cuda("/nonexistent/libcuda.so.1"), {});
  ASSERT_TRUE(a.stop);
  EXPECT_EQ(a.stop->status, ga::ProbeStatus::failed);
  EXPECT_NE(a.stop->reason.find("2 NVIDIA GPU(s) on the PCI bus (0000:1b:00.0, 0000:43:00.0)"), std::string::npos) << a.stop->reason;
  EXPECT_NE(a.stop->reason.find("cannot be loaded"), std::string::npos) << a.stop->reason;
  EXPECT_NE(a.stop->reason.find("/nonexistent/libcuda.so.1"), std::string::npos) << a.stop->reason;
}

TEST(GpuPresence, IncompleteDriverLibraryFailsNamingTheMissingCalls) {
  auto a = open_gpus(nvidia_gpus_in_sysfs(kTree), with_cuda(GA_FAKE_CUDA_INCOMPLETE), {});
  ASSERT_TRUE(a.stop);
  EXPECT_EQ(a.stop->status, ga::ProbeStatus::failed);
  EXPECT_NE(a.stop->reason.find("lacks cuDeviceGetCount"), std::string::npos) << a.stop->reason;
}

TEST(GpuPresence, DriverTooOldFails) {
  auto a = open_gpus(nvidia_gpus_in_sysfs(kTree), with_cuda(GA_FAKE_CUDA_OLD), {});
  ASSERT_TRUE(a.stop);
  EXPECT_EQ(a.stop->status, ga::ProbeStatus::failed);
  EXPECT_NE(a.stop->reason.find("supports CUDA 11.0, older than the CUDA 12.0 needed"), std::string::npos) << a.stop->reason;
}

TEST(GpuPresence, MinimumDriverIsAnOption) {
  AccessOptions o;
  o.min_driver_version = 11000;
  auto a = open_gpus(nvidia_gpus_in_sysfs(kTree), with_cuda(GA_FAKE_CUDA_OLD), o);
  ASSERT_FALSE(a.stop) << a.stop->reason;
  EXPECT_EQ(a.driver_version, 11000);
  EXPECT_EQ(a.gpus.size(), 2u);
}

TEST(GpuPresence, InitFailureFailsWithTheDriverError) {
  auto a = open_gpus(nvidia_gpus_in_sysfs(kTree), with_cuda(GA_FAKE_CUDA_INIT_FAIL), {});
  ASSERT_TRUE(a.stop);
  EXPECT_EQ(a.stop->status, ga::ProbeStatus::failed);
  EXPECT_NE(a.stop->reason.find("does not initialise: cuInit failed: CUDA_ERROR_NO_DEVICE (100)"), std::string::npos)
      << a.stop->reason;
}

TEST(GpuPresence, WorkingDriverMatchesGpusByBusId) {
  auto a = open_gpus(nvidia_gpus_in_sysfs(kTree), with_cuda(GA_FAKE_CUDA_OK), {});
  ASSERT_FALSE(a.stop) << a.stop->reason;
  EXPECT_TRUE(a.failure.empty()) << a.failure;
  EXPECT_EQ(a.driver_version, 12040);
  ASSERT_EQ(a.gpus.size(), 2u);
  EXPECT_EQ(a.gpus[1].pci.pci_bus_id, "0000:43:00.0");
  EXPECT_EQ(a.gpus[1].cuda.ordinal, 1);
  EXPECT_EQ(a.gpus[1].cuda.name, "NVIDIA H100 80GB HBM3");
}

TEST(GpuPresence, AGpuThatFailsToOpenFailsButTheOthersStayUsable) {
  auto a = open_gpus(nvidia_gpus_in_sysfs(kTree), with_cuda(GA_FAKE_CUDA_DEV_FAIL), {});
  ASSERT_FALSE(a.stop);
  ASSERT_EQ(a.gpus.size(), 1u);
  EXPECT_EQ(a.gpus[0].pci.pci_bus_id, "0000:1b:00.0");
  EXPECT_NE(a.failure.find("CUDA device 1: cuDeviceGetName failed: CUDA_ERROR_INVALID_DEVICE"), std::string::npos) << a.failure;
  EXPECT_NE(a.failure.find("not seen by CUDA: gpu:1 (0000:43:00.0)"), std::string::npos) << a.failure;
}

TEST(GpuPresence, AGpuOnTheBusThatCudaDoesNotSeeFailsUnlessHiddenOnPurpose) {
  auto bus = nvidia_gpus_in_sysfs(kTree);
  bus.push_back({2, "0000:9d:00.0", 1, ""});
  auto a = open_gpus(bus, with_cuda(GA_FAKE_CUDA_OK), {});
  ASSERT_FALSE(a.stop);
  EXPECT_EQ(a.gpus.size(), 2u);
  EXPECT_NE(a.failure.find("not seen by CUDA: gpu:2 (0000:9d:00.0)"), std::string::npos) << a.failure;
  AccessOptions hidden;
  hidden.cuda_visible_devices_set = true;
  auto b = open_gpus(bus, with_cuda(GA_FAKE_CUDA_OK), hidden);
  EXPECT_TRUE(b.failure.empty());
  ASSERT_EQ(b.notes.size(), 1u);
  EXPECT_NE(b.notes[0].find("CUDA_VISIBLE_DEVICES"), std::string::npos);
}

TEST(GpuLibraries, ParamBeatsEnvironmentBeatsDefaults) {
  auto env = [](const char* v) -> const char* { return std::string(v) == "GPUACCEPT_NCCL_LIBRARY" ? "/env/libnccl.so.2" : nullptr; };
  auto p = library_paths(nlohmann::json::object(), env);
  EXPECT_EQ(p.nccl, std::vector<std::string>{"/env/libnccl.so.2"});
  EXPECT_EQ(p.cuda, std::vector<std::string>{"libcuda.so.1"});
  EXPECT_EQ(p.nvml, std::vector<std::string>{"libnvidia-ml.so.1"});
  EXPECT_GT(p.cublas.size(), 1u);
  p = library_paths({{"nccl_library", "/param/libnccl.so.2"}}, env);
  EXPECT_EQ(p.nccl, std::vector<std::string>{"/param/libnccl.so.2"});
  EXPECT_THROW(library_paths({{"cuda_library", 3}}, env), std::invalid_argument);
  EXPECT_THROW(library_paths({{"cuda_library", ""}}, env), std::invalid_argument);
}

TEST(GpuPciIds, NormalizedAsTheTopologySpellsThem) {
  EXPECT_EQ(normalize_pci_bus_id("00000000:4E:00.0"), "0000:4e:00.0");
  EXPECT_EQ(normalize_pci_bus_id("0000:4e:00.0"), "0000:4e:00.0");
  EXPECT_EQ(normalize_pci_bus_id("0000:4e:00"), "0000:4e:00.0");
}

}  // namespace
