// The verbs transport (probes/rdma/verbs_transport.cpp) in one process through the fake
// libibverbs (tests/fakes/fake_libibverbs.c), selected with GPUACCEPT_VERBS_LIBRARY: two
// endpoints on a recorded tree's port connect RESET -> INIT -> RTR -> RTS, RDMA writes land in
// the peer's registered buffer, the ping-pong completes, and the error paths say what broke.
// The multi-host run is tests/integration/rdma_verbs_fake_hosts.sh.
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <optional>
#include <thread>

#include "probes/rdma/pair_traffic.hpp"
#include "probes/devices/port_inventory.hpp"
#include "probes/rdma/transport.hpp"

namespace ga::rdma {
namespace {

const std::string kTree = std::string(GA_TEST_DATA_DIR) + "/rdma/dell-8cx7-ndr400";

// Sets an environment variable for one test and puts the old value back.
class EnvGuard {
 public:
  EnvGuard(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~EnvGuard() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string short_host() {
  char buf[HOST_NAME_MAX + 1] = {};
  gethostname(buf, sizeof buf - 1);
  std::string h = buf;
  return h.substr(0, h.find('.'));
}

struct FakeVerbs : ::testing::Test {
  // The fake reads the device list from the tree once per process: every test uses this one.
  EnvGuard lib{"GPUACCEPT_VERBS_LIBRARY", GA_FAKE_IBVERBS};
  EnvGuard root{"GPUACCEPT_SYSFS_ROOT", kTree};
  PortInfo port() {
    for (const auto& p : read_ports(kTree))
      if (p.device == "mlx5_0") return p;
    ADD_FAILURE() << "no mlx5_0 in " << kTree;
    return {};
  }
};

TEST_F(FakeVerbs, ListsTheTreesDevicesThroughTheSelectedLibrary) {
  const auto d = list_verbs_devices();
  EXPECT_TRUE(d.library_loaded);
  EXPECT_EQ(d.error, "");
  EXPECT_EQ(d.devices.size(), 8u);
  EXPECT_NE(std::find(d.devices.begin(), d.devices.end(), "mlx5_0"), d.devices.end());
}

TEST(FakeVerbsLibrary, AnUnloadableSelectedLibraryIsNamed) {
  EnvGuard lib{"GPUACCEPT_VERBS_LIBRARY", "/nonexistent/libibverbs-test.so.1"};
  const auto d = list_verbs_devices();
  EXPECT_FALSE(d.library_loaded);
  EXPECT_NE(d.error.find("libibverbs-test.so.1"), std::string::npos) << d.error;
  EXPECT_THROW(make_verbs_transport(), TransportError);
}

TEST_F(FakeVerbs, WritesLandInThePeersBufferAndPingPongCompletes) {
  auto t = make_verbs_transport();
  ASSERT_EQ(t->name(), "verbs");
  const std::size_t bytes = 1 << 20;
  auto a = t->open({port(), bytes, false, ""});
  auto b = t->open({port(), bytes, false, ""});
  EXPECT_THROW(a->write(8, 1, 1.0), TransportError);  // before connect
  a->connect(b->address());
  b->connect(a->address());
  auto sb = a->send_buffer();
  ASSERT_EQ(sb.size(), bytes);
  for (std::size_t i = 0; i < bytes; ++i) sb[i] = pattern_byte(i, 7);
  a->write(bytes, 200, 10.0);  // more writes than the send window: completions free slots
  b->await_writes(bytes, 200, 10.0);
  auto rb = b->recv_buffer();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < bytes; ++i) wrong += rb[i] != pattern_byte(i, 7);
  EXPECT_EQ(wrong, 0u);
  std::thread peer([&] { b->pong(8, 50, 10.0); });
  const auto rtt = a->ping(8, 50, 10.0);
  peer.join();
  ASSERT_EQ(rtt.size(), 50u);
  for (double s : rtt) EXPECT_GT(s, 0);
  EXPECT_THROW(a->write(bytes + 1, 1, 1.0), TransportError);  // larger than the registered buffer
}

TEST_F(FakeVerbs, AQpThatCannotReachRtsSaysSo) {
  EnvGuard fail{"FAKE_VERBS_FAIL_RTS", "some-other-host," + short_host()};
  auto t = make_verbs_transport();
  auto a = t->open({port(), 4096, false, ""});
  auto b = t->open({port(), 4096, false, ""});
  try {
    a->connect(b->address());
    FAIL() << "connect reached RTS";
  } catch (const TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("modify QP to RTS"), std::string::npos) << e.what();
  }
}

TEST_F(FakeVerbs, AnInactivePortAndAMalformedAddressAreErrors) {
  auto t = make_verbs_transport();
  PortInfo p = port();
  p.port = 2;  // the tree's mlx5_0 has one port: query port fails
  EXPECT_THROW(t->open({p, 4096, false, ""}), TransportError);
  auto a = t->open({port(), 4096, false, ""});
  EXPECT_THROW(a->connect("verbs 1 2"), TransportError);
}

TEST_F(FakeVerbs, APeerThatWentAwayFailsTheWriteWithACompletionError) {
  auto t = make_verbs_transport();
  auto a = t->open({port(), 1 << 16, false, ""});
  auto b = t->open({port(), 1 << 16, false, ""});
  a->connect(b->address());
  b->connect(a->address());
  b.reset();  // the target's QP is destroyed: its socket closes
  try {
    a->write(1 << 16, 100, 5.0);
    FAIL() << "writes to a destroyed QP completed";
  } catch (const TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("completion status"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ga::rdma
