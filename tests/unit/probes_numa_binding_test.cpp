// Each rank on its GPU's NUMA node (probes/devices/numa_binding.hpp): which node a local rank
// belongs on, on a recorded two-socket host, and the RAII binding on this machine.
#include <gtest/gtest.h>
#include <sched.h>

#include "probes/devices/numa_binding.hpp"
#include "topology_test_util.hpp"

using namespace ga;

namespace {

cpu_set_t affinity() {
  cpu_set_t s;
  CPU_ZERO(&s);
  sched_getaffinity(0, sizeof s, &s);
  return s;
}

}  // namespace

TEST(NumaBinding, EachLocalRankGoesToItsGpusNodeNotToRankOrder) {
  // DGX-2H: 16 V100, GPUs 0-7 on node 0, 8-15 on node 1 (topology_hwloc_test holds the fixture).
  const auto h = topo::load_topology_file(topo_test::fixture("hwloc/nvidia-dgx2h-16xV100-nvswitch.hwloc-v2.xml"));
  ASSERT_EQ(h.gpus.size(), 16u);
  for (int r = 0; r < 16; ++r) EXPECT_EQ(gpu::gpu_numa_node(h, r), r < 8 ? 0 : 1) << "local rank " << r;
  // More ranks than GPUs go round again, as the GPU assignment does.
  EXPECT_EQ(gpu::gpu_numa_node(h, 16), 0);
  EXPECT_EQ(gpu::gpu_numa_node(h, 24), 1);
}

TEST(NumaBinding, NothingToChooseSaysWhy) {
  topo::HostTopology h;
  std::string why;
  EXPECT_EQ(gpu::gpu_numa_node(h, 0, &why), std::nullopt);
  EXPECT_EQ(why, "no GPU on this host");
  h.gpus.resize(2);
  h.gpus[0].numa_node = 0;
  h.gpus[1].index = 1;
  h.numa_nodes.resize(1);
  EXPECT_EQ(gpu::gpu_numa_node(h, 0, &why), std::nullopt);
  EXPECT_EQ(why, "one NUMA node: nothing to choose");
  h.numa_nodes.resize(2);
  EXPECT_EQ(gpu::gpu_numa_node(h, 0, &why), 0);
  EXPECT_EQ(gpu::gpu_numa_node(h, 1, &why), std::nullopt);  // gpus[1] has no node
  EXPECT_EQ(why, "the NUMA node of GPU 1 is unknown");
}

TEST(NumaBinding, BindsToANodeOfThisMachineAndPutsTheOldBindingBack) {
  const cpu_set_t before = affinity();
  {
    gpu::NumaBinding b(0);  // every Linux machine has node 0
    EXPECT_TRUE(b.bound()) << b.why();
  }
  const cpu_set_t after = affinity();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
  gpu::NumaBinding none(std::nullopt);
  EXPECT_FALSE(none.bound());
  gpu::NumaBinding absent(4095);
  EXPECT_FALSE(absent.bound());
  EXPECT_EQ(absent.why(), "this machine has no NUMA node 4095");
}
