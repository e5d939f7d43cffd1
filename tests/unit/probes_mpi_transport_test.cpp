// Open MPI's chosen transport from /proc/self/maps (probes/devices/transport_maps.hpp). The maps
// lines are of the shape Linux writes; the component names are Open MPI 4.1's (Debian 12's
// /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/), as mapped after MPI_Init here: ob1 with
// self, sm, tcp, vader by default, ob1 with self and tcp under --mca btl tcp,self.
#include <gtest/gtest.h>

#include "probes/devices/transport_maps.hpp"

namespace ga::mpi {
namespace {

std::string maps(const std::vector<std::string>& libs) {
  std::string s = "55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1234 /usr/bin/gpuaccept\n";
  int i = 0;
  for (const auto& l : libs)
    s += "7f3a" + std::to_string(1000 + i++) + "0000-7f3a2000 r-xp 00002000 08:01 99 /usr/lib/x86_64-linux-gnu/" + l + "\n";
  return s;
}

TEST(MpiTransport, Ob1OverTcp) {
  const auto t = mpi_transport_from_maps(maps({"openmpi/lib/openmpi3/mca_btl_self.so", "openmpi/lib/openmpi3/mca_btl_tcp.so",
                                               "openmpi/lib/openmpi3/mca_pml_ob1.so", "libmpi.so.40.30.4"}));
  EXPECT_EQ(t.pml, "ob1");
  EXPECT_EQ(t.btls, (std::vector<std::string>{"self", "tcp"}));
  EXPECT_EQ(t.summary(), "TCP");
  EXPECT_TRUE(t.tcp_only());
}

TEST(MpiTransport, Ob1WithAnRdmaBtlIsNotTcp) {
  const auto t = mpi_transport_from_maps(maps({"openmpi3/mca_btl_self.so", "openmpi3/mca_btl_tcp.so", "openmpi3/mca_btl_openib.so",
                                               "openmpi3/mca_btl_vader.so", "openmpi3/mca_pml_ob1.so"}));
  EXPECT_EQ(t.summary(), "RDMA (openib)");
  EXPECT_FALSE(t.tcp_only());
}

TEST(MpiTransport, UcxAndCm) {
  const auto u = mpi_transport_from_maps(maps({"openmpi3/mca_pml_ucx.so", "libucp.so.0", "openmpi3/mca_pml_monitoring.so"}));
  EXPECT_EQ(u.pml, "ucx");
  EXPECT_TRUE(u.ucx_loaded);
  EXPECT_EQ(u.summary(), "UCX");
  const auto c = mpi_transport_from_maps(maps({"openmpi3/mca_pml_cm.so", "openmpi3/mca_mtl_ofi.so"}));
  EXPECT_EQ(c.summary(), "cm (ofi)");
}

TEST(MpiTransport, SharedMemoryOnlyAndUnknown) {
  EXPECT_EQ(mpi_transport_from_maps(maps({"openmpi3/mca_pml_ob1.so", "openmpi3/mca_btl_vader.so", "openmpi3/mca_btl_self.so"})).summary(),
            "shared memory");
  const auto none = mpi_transport_from_maps(maps({"libmpich.so.12"}));
  EXPECT_FALSE(none.known());
  EXPECT_EQ(none.summary(), "unknown");
  EXPECT_FALSE(none.tcp_only());
}

TEST(MpiTransport, ThisProcessMapsAreReadable) {
  EXPECT_NE(read_self_maps().find("r"), std::string::npos);
}

}  // namespace
}  // namespace ga::mpi
