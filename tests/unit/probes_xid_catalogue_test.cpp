// NVIDIA's Xid catalogue as data (probes/gpu/xid_catalogue.yaml): complete, every entry with an
// action, the known Xids mapped as NVIDIA's catalogue says, unknown ones said to be unknown.
#include <gtest/gtest.h>

#include "probes/gpu/xid_catalogue.hpp"
#include "probes/devices/xid_log.hpp"

namespace ga::gpu {
namespace {

TEST(XidCatalogue, EveryXidOfTheCatalogueWithAnAction) {
  const auto& c = XidCatalogue::builtin();
  EXPECT_EQ(c.source(), "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html");
  EXPECT_FALSE(c.version().empty());
  // The catalogue numbers its Xids 1..162 without a gap.
  ASSERT_EQ(c.entries().size(), 162u);
  for (int x = 1; x <= 162; ++x) {
    const XidEntry* e = c.find(x);
    ASSERT_NE(e, nullptr) << "Xid " << x;
    EXPECT_FALSE(e->bucket.empty()) << "Xid " << x;
    EXPECT_FALSE(e->action.empty()) << "Xid " << x;
    EXPECT_EQ(c.describe(x).rfind("Xid " + std::to_string(x), 0), 0u);
  }
}

TEST(XidCatalogue, KnownXidsMapToTheCataloguesAction) {
  const auto& c = XidCatalogue::builtin();
  EXPECT_EQ(c.find(79)->bucket, "RESTART_BM");
  EXPECT_EQ(c.find(79)->mnemonic, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS");
  EXPECT_EQ(c.describe(79), "Xid 79 (GPU has fallen off the bus): reboot the node, then inspect the hardware");
  EXPECT_EQ(c.find(48)->bucket, "WORKFLOW_XID_48");
  EXPECT_NE(c.describe(48).find("Double Bit ECC Error"), std::string::npos);
  EXPECT_EQ(c.find(95)->bucket, "RESET_GPU");
  EXPECT_EQ(c.describe(95), "Xid 95 (Uncontained ECC error): reset the GPU (drain it first)");
  EXPECT_EQ(c.find(13)->bucket, "RESTART_APP");
  EXPECT_EQ(c.find(63)->bucket, "IGNORE");
  EXPECT_EQ(c.find(74)->bucket, "WORKFLOW_NVLINK_ERR");
  // An entry without description is named by its mnemonic.
  EXPECT_EQ(c.describe(119).rfind("Xid 119 (GSP RPC Timeout): reset the GPU", 0), 0u);
  EXPECT_EQ(c.describe(41).rfind("Xid 41 (ROBUST_CHANNEL_CE2_ERROR): restart the application", 0), 0u);
}

TEST(XidCatalogue, UnknownXidSaysUnknownWithItsCode) {
  const auto& c = XidCatalogue::builtin();
  EXPECT_EQ(c.find(999), nullptr);
  const std::string d = c.describe(999);
  EXPECT_EQ(d.rfind("Xid 999: unknown", 0), 0u) << d;
  EXPECT_NE(d.find(c.source()), std::string::npos) << d;
}

TEST(XidCatalogue, ReasonOfAKernelLog) {
  // A real kernel log line (NVIDIA/open-gpu-kernel-modules issue 1151) and a repeat.
  const std::vector<std::string> log = {
      "May 18 19:02:39 kernel: NVRM: GPU at PCI:0000:2b:00: GPU-0b11d014-1685-04bd-26ed-5fc0bc1c44ae",
      "May 18 19:02:39 kernel: NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.",
      "May 18 19:02:40 kernel: NVRM: Xid (PCI:0000:2b:00): 48, pid=1, DBE",
      "May 18 19:02:41 kernel: NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.",
  };
  const auto x = count_xids(log);
  ASSERT_EQ(x.count("0000:2b:00"), 1u);
  EXPECT_EQ(XidCatalogue::builtin().reason(x.at("0000:2b:00").codes),
            "Xid 79 (GPU has fallen off the bus): reboot the node, then inspect the hardware (2 times); "
            "Xid 48 (Double Bit ECC Error): reset the GPU (a double-bit ECC error: the reset retires or remaps the "
            "row); if it recurs, inspect the hardware");
}

TEST(XidCatalogue, ABadCatalogueIsRefusedNamingTheEntry) {
  const std::string head =
      "source: s\nversion: v\nactions: {RESET_GPU: reset the GPU}\nseverity: {RESET_GPU: node}\nxids:\n";
  EXPECT_NO_THROW(XidCatalogue::parse(head + "  - {xid: 1, action: RESET_GPU}\n"));
  try {
    XidCatalogue::parse(head + "  - {xid: 1, action: RESET_GPU}\n  - {xid: 7, action: PRAY}\n");
    FAIL() << "an unknown action was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Xid 7"), std::string::npos) << e.what();
  }
  EXPECT_THROW(XidCatalogue::parse(head + "  - {xid: 1}\n"), std::runtime_error);
  EXPECT_THROW(XidCatalogue::parse(head + "  - {xid: 1, action: RESET_GPU}\n  - {xid: 1, action: RESET_GPU}\n"),
               std::runtime_error);
}

// Issue 31: an application's Xid is a warning, never a drain; the hardware's is a node fault.
TEST(XidCatalogue, EachBucketSaysWhetherTheNodeOrTheApplicationIsAtFault) {
  const auto& c = XidCatalogue::builtin();
  for (int app : {13, 31, 43, 45, 63, 94}) EXPECT_FALSE(c.node_fault(app)) << "Xid " << app;
  for (int node : {48, 64, 74, 79, 95, 119, 154}) EXPECT_TRUE(c.node_fault(node)) << "Xid " << node;
  EXPECT_TRUE(c.node_fault(9999));  // not in the catalogue: the node's until someone says otherwise
  for (const auto& [bucket, sev] : c.severities()) EXPECT_TRUE(sev == "node" || sev == "application") << bucket;
  // A site moves a bucket; the built-in one is untouched.
  const XidCatalogue site = c.with_severity("RESTART_APP=node,RESET_GPU=application");
  EXPECT_TRUE(site.node_fault(13));
  EXPECT_FALSE(site.node_fault(95));
  EXPECT_FALSE(c.node_fault(13));
  EXPECT_NO_THROW(c.with_severity(""));
  EXPECT_THROW(c.with_severity("PRAY=node"), std::invalid_argument);
  EXPECT_THROW(c.with_severity("RESTART_APP=maybe"), std::invalid_argument);
  EXPECT_THROW(c.with_severity("RESTART_APP"), std::invalid_argument);
}

TEST(XidCatalogue, ABucketWithoutASeverityIsRefused) {
  const std::string head = "source: s\nversion: v\nactions: {RESET_GPU: reset, IGNORE: nothing}\n";
  EXPECT_THROW(XidCatalogue::parse(head + "severity: {RESET_GPU: node}\nxids:\n  - {xid: 1, action: RESET_GPU}\n"),
               std::runtime_error);
  EXPECT_THROW(XidCatalogue::parse(head + "severity: {RESET_GPU: node, IGNORE: often}\nxids: []\n"), std::runtime_error);
  EXPECT_THROW(XidCatalogue::parse(head + "severity: {RESET_GPU: node, IGNORE: application, PRAY: node}\nxids: []\n"),
               std::runtime_error);
}

}  // namespace
}  // namespace ga::gpu
