// System profiles (suites/data/criteria-profile-*.yaml): each parses, layered over the built-in
// criteria; each threshold names its source and derivation; and each judges a synthetic host of
// its own system and of the other systems the way the figures say it should.
#include <gtest/gtest.h>

#include <algorithm>

#include "suites_fixture.hpp"

namespace ga {
namespace {

using testing::JournalBuilder;
using testing::verdicts_of;

const std::vector<std::string> kProfiles = {"a100-sxm4-80gb-hdr", "h100-sxm-ndr", "h200-sxm-ndr"};

CriteriaSet own_criteria(const std::string& profile) {
  return parse_criteria(criteria_profile(profile).file_text, profile);
}

// One 8-GPU host as the gpu, inventory, nccl and rdma probes would describe it.
struct System {
  double hbm_spec = 3.35e12, hbm_bw = 3.0e12, memory = 85.5e9, h2d = 53e9, gemm = 700e12, p2p = 370e9;
  int pcie_gen = 5;
  double intra_busbw = 475e9;
  bool nvls = true;
  double rail_busbw = 47e9;
  double port_gbps = 400;
};

JournalBuilder host_of(const System& s) {
  JournalBuilder b({"n1"}, 8);
  b.sample("inventory.gpu_count", "n1", 8, "count").sample("inventory.rdma_device_count", "n1", 8, "count");
  for (int g = 0; g < 8; ++g) {
    const std::string p = "n1/gpu:" + std::to_string(g);
    b.sample("gpu.hbm_theoretical_bw", p, s.hbm_spec).sample("gpu.hbm_bw", p, s.hbm_bw);
    b.sample("gpu.memory_total", p, s.memory, "B");
    b.sample("gpu.h2d_bw", p, s.h2d).sample("gpu.d2h_bw", p, s.h2d);
    b.sample("gpu.pcie_link_gen", p, s.pcie_gen, "count").sample("gpu.pcie_link_width", p, 16, "count");
    b.sample("gpu.gemm_flops", p, s.gemm, "FLOP/s", {{"dtype", "bf16"}});
    b.sample("gpu.p2p_bw", p + "~n1/gpu:" + std::to_string((g + 1) % 8), s.p2p, "B/s", {{"peer_access", true}});
  }
  b.sample("nccl.peak_busbw", "n1", s.intra_busbw, "B/s",
           {{"collective", "all_reduce"}, {"scope", "intra-host"}, {"nvls", s.nvls}, {"in_place", false}});
  for (int r = 0; r < 8; ++r)
    b.sample("nccl.peak_busbw", "cluster", s.rail_busbw, "B/s",
             {{"collective", "all_reduce"}, {"scope", "inter-host"}, {"rail", r}, {"in_place", false}});
  for (int n = 0; n < 8; ++n)
    b.sample("rdma.rate_gbps", "n1/nic:mlx5_" + std::to_string(n), s.port_gbps, "Gb/s", {{"link_layer", "InfiniBand"}});
  b.probe("inventory").probe("gpu").probe("nccl").probe("rdma");
  return b;
}

// The verdicts of one of the profile's criteria: all pass, or which failed.
VerdictStatus worst(const Judgement& j, const std::string& criterion) {
  const auto vs = verdicts_of(j, criterion);
  EXPECT_FALSE(vs.empty()) << criterion << " gave no verdict";
  VerdictStatus w = VerdictStatus::pass;
  for (const Verdict* v : vs)
    if (v->status != VerdictStatus::pass) w = v->status;
  return w;
}

TEST(CriteriaProfiles, TheThreeAreBuiltIn) {
  EXPECT_EQ(criteria_profile_names(), kProfiles);
}

TEST(CriteriaProfiles, EachLayersOverTheBuiltInCriteriaAndParses) {
  const CriteriaSet builtin = parse_criteria(builtin_criteria_text(), "builtin");
  for (const auto& name : kProfiles) {
    SCOPED_TRACE(name);
    const CriteriaProfile p = criteria_profile(name);
    EXPECT_EQ(p.source, "builtin + profile " + name);
    EXPECT_FALSE(p.description.empty());
    const CriteriaSet own = own_criteria(name);
    const CriteriaSet all = parse_criteria(p.text, p.source);
    ASSERT_EQ(all.criteria.size(), builtin.criteria.size() + own.criteria.size());
    // The built-in rules first, unchanged, then the profile's.
    for (std::size_t i = 0; i < builtin.criteria.size(); ++i) EXPECT_EQ(all.criteria[i].name, builtin.criteria[i].name);
    for (std::size_t i = 0; i < own.criteria.size(); ++i)
      EXPECT_EQ(all.criteria[builtin.criteria.size() + i].name, own.criteria[i].name);
    // Every threshold says where its figure comes from and how it follows from it.
    for (const auto& c : own.criteria) {
      EXPECT_EQ(c.name.rfind(name + ".", 0), 0u) << c.name;
      EXPECT_FALSE(c.source.empty()) << c.name << " names no source";
      EXPECT_FALSE(c.derivation.empty()) << c.name << " says not how it was derived";
      EXPECT_FALSE(c.description.empty()) << c.name;
    }
  }
}

TEST(CriteriaProfiles, AnUnknownNameListsTheKnownOnes) {
  try {
    criteria_profile("h100-pcie");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown criteria profile \"h100-pcie\""), std::string::npos) << what;
    for (const auto& n : kProfiles) EXPECT_NE(what.find(n), std::string::npos) << what;
  }
}

TEST(CriteriaProfiles, AHealthyH100PassesItsProfileAndNotTheOthers) {
  const System h100;  // HBM at 3.0 TB/s: 90% of the datasheet's 3.35
  const auto j = judge(host_of(h100).build(), own_criteria("h100-sxm-ndr"));
  for (const auto& c : own_criteria("h100-sxm-ndr").criteria) {
    if (c.metric.rfind("rdma.write", 0) == 0 || c.name == "h100-sxm-ndr.nccl.cluster" ||
        c.name == "h100-sxm-ndr.nccl.intra_host.no_nvls")
      continue;  // not measured in this journal (skipped)
    EXPECT_EQ(worst(j, c.name), VerdictStatus::pass) << c.name;
  }
  EXPECT_EQ(j.summary.overall, "PASS");

  // The same host is no H200: its model, and 3.0 TB/s is below the H200's floor of 3.735.
  const auto j200 = judge(host_of(h100).build(), own_criteria("h200-sxm-ndr"));
  EXPECT_EQ(worst(j200, "h200-sxm-ndr.gpu.model"), VerdictStatus::fail);
  EXPECT_EQ(worst(j200, "h200-sxm-ndr.gpu.hbm_bw"), VerdictStatus::fail);
  EXPECT_EQ(worst(j200, "h200-sxm-ndr.gpu.memory"), VerdictStatus::fail);  // 80 GB, not 141
  EXPECT_EQ(j200.summary.overall, "FAIL");

  // Nor an A100 system: faster than every A100 floor, but not the model the profile is for.
  const auto j100 = judge(host_of(h100).build(), own_criteria("a100-sxm4-80gb-hdr"));
  EXPECT_EQ(worst(j100, "a100-sxm4-80gb-hdr.gpu.model"), VerdictStatus::fail);
  EXPECT_EQ(worst(j100, "a100-sxm4-80gb-hdr.gpu.hbm_bw"), VerdictStatus::pass);
  EXPECT_EQ(worst(j100, "a100-sxm4-80gb-hdr.rdma.rate"), VerdictStatus::pass);  // NDR is at least HDR
}

TEST(CriteriaProfiles, ASlowPartFailsItsOwnProfile) {
  System h100;
  h100.hbm_bw = 2.4e12;      // 72% of the datasheet: below 0.9 x the healthy 85%
  h100.intra_busbw = 300e9;  // NVLS on and far below Azure's 460
  h100.port_gbps = 200;      // an NDR port trained down to HDR
  const auto j = judge(host_of(h100).build(), own_criteria("h100-sxm-ndr"));
  EXPECT_EQ(worst(j, "h100-sxm-ndr.gpu.hbm_bw"), VerdictStatus::fail);
  EXPECT_EQ(worst(j, "h100-sxm-ndr.nccl.intra_host.nvls"), VerdictStatus::fail);
  EXPECT_EQ(worst(j, "h100-sxm-ndr.rdma.rate"), VerdictStatus::fail);
  EXPECT_EQ(worst(j, "h100-sxm-ndr.gpu.model"), VerdictStatus::pass);

  // Without NVLS the lower measured figure applies: 340 GB/s passes it, 300 does not.
  h100.nvls = false;
  h100.intra_busbw = 340e9;
  EXPECT_EQ(worst(judge(host_of(h100).build(), own_criteria("h100-sxm-ndr")), "h100-sxm-ndr.nccl.intra_host.no_nvls"),
            VerdictStatus::pass);
  h100.intra_busbw = 300e9;
  EXPECT_EQ(worst(judge(host_of(h100).build(), own_criteria("h100-sxm-ndr")), "h100-sxm-ndr.nccl.intra_host.no_nvls"),
            VerdictStatus::fail);
}

TEST(CriteriaProfiles, AHealthyA100AndH200PassTheirOwn) {
  System a100;
  a100.hbm_spec = 2.039e12, a100.hbm_bw = 1.65e12, a100.memory = 85.9e9, a100.h2d = 25.5e9, a100.gemm = 250e12;
  a100.p2p = 240e9, a100.pcie_gen = 4, a100.intra_busbw = 235e9, a100.nvls = false, a100.rail_busbw = 23.5e9;
  a100.port_gbps = 200;
  const auto ja = judge(host_of(a100).build(), own_criteria("a100-sxm4-80gb-hdr"));
  EXPECT_EQ(ja.summary.overall, "PASS");
  EXPECT_EQ(worst(ja, "a100-sxm4-80gb-hdr.nccl.intra_host"), VerdictStatus::pass);
  // ... and an HDR host is not an NDR one: its ports and rails fail the H100 profile.
  const auto jx = judge(host_of(a100).build(), own_criteria("h100-sxm-ndr"));
  EXPECT_EQ(worst(jx, "h100-sxm-ndr.rdma.rate"), VerdictStatus::fail);
  EXPECT_EQ(worst(jx, "h100-sxm-ndr.nccl.inter_host.rail"), VerdictStatus::fail);

  System h200;
  h200.hbm_spec = 4.8e12, h200.hbm_bw = 4.1e12, h200.memory = 150.8e9, h200.intra_busbw = 440e9;
  const auto jh = judge(host_of(h200).build(), own_criteria("h200-sxm-ndr"));
  EXPECT_EQ(jh.summary.overall, "PASS");
  EXPECT_EQ(worst(jh, "h200-sxm-ndr.gpu.hbm_bw"), VerdictStatus::pass);
}

TEST(CriteriaProfiles, AHostWithoutGpusIsNotTheSystem) {
  // The identity rules are required: no gpu metric anywhere is a missing, never a pass.
  JournalBuilder b({"n1", "n2"});
  b.sample("inventory.gpu_count", "n1", 0, "count").sample("inventory.gpu_count", "n2", 0, "count");
  b.probe("inventory").all_skipped("gpu", "no NVIDIA GPU on the PCI bus");
  const auto j = judge(b.build(), own_criteria("h100-sxm-ndr"));
  EXPECT_EQ(worst(j, "h100-sxm-ndr.gpu.model"), VerdictStatus::missing);
  EXPECT_EQ(worst(j, "h100-sxm-ndr.gpu.count"), VerdictStatus::fail);
  EXPECT_EQ(j.summary.overall, "FAIL");
  // The speeds are skipped with the probe's reason, not failed twice over.
  EXPECT_EQ(worst(j, "h100-sxm-ndr.gpu.hbm_bw"), VerdictStatus::skipped);
}

}  // namespace
}  // namespace ga
