// The Slurm admin lines drain and undrain print and run: argv, its shell form, sinfo's output.
#include <gtest/gtest.h>

#include "launchers/slurm_admin.hpp"

namespace ga::launch {
namespace {

TEST(SlurmAdmin, DrainLineCarriesGpuacceptsReasonAsOneQuotedWord) {
  const auto a = scontrol_drain_argv("gpu-017", "gpu.xid.none,gpu.pcie.gen_at_max (slurm job 4242)");
  EXPECT_EQ(a, (std::vector<std::string>{"scontrol", "update", "nodename=gpu-017", "state=drain",
                                         "reason=gpuaccept: gpu.xid.none,gpu.pcie.gen_at_max (slurm job 4242)"}));
  EXPECT_EQ(shell_line(a),
            "scontrol update nodename=gpu-017 state=drain reason=\"gpuaccept: gpu.xid.none,gpu.pcie.gen_at_max (slurm job "
            "4242)\"");
  // Quotes, newlines and tabs would garble Slurm's one-line reason.
  EXPECT_EQ(scontrol_drain_argv("n1", "a\"b\nc\td").back(), "reason=gpuaccept: a b c d");
  EXPECT_EQ(shell_line({"echo", "$HOME `x` \\"}), "echo \"\\$HOME \\`x\\` \\\\\"");
  EXPECT_EQ(shell_line(scontrol_resume_argv("n1")), "scontrol update nodename=n1 state=resume");
}

TEST(SlurmAdmin, SinfoNodesParsedOncePerNodeWithWhoDrainedThem) {
  const std::string out =
      "n1|drained|gpuaccept: gpu.xid.none (slurm job 7)\n"
      "n1|drained|gpuaccept: gpu.xid.none (slurm job 7)\n"  // listed again for a second partition
      "n2|draining|bad DIMM, ticket 99\n"
      "n3|idle|none\n"
      "n4|drained*|gpuaccept: p2p.host.bw (2026-12-01T10:00:00Z)\n"
      "garbage\n";
  const auto nodes = parse_sinfo_nodes(out);
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[0].name, "n1");
  EXPECT_TRUE(nodes[0].drained_by_gpuaccept());
  EXPECT_TRUE(nodes[1].drained());
  EXPECT_FALSE(nodes[1].drained_by_gpuaccept());  // drained by a person, for another reason
  EXPECT_FALSE(nodes[2].drained());
  EXPECT_TRUE(nodes[3].drained_by_gpuaccept());   // '*': not responding, still drained
  EXPECT_EQ(sinfo_nodes_argv(), (std::vector<std::string>{"sinfo", "--noheader", "--Node", "--format=%N|%T|%E"}));
  // gpuaccept health asks about its own node only (every health check of a cluster at once).
  EXPECT_EQ(sinfo_nodes_argv("node017"),
            (std::vector<std::string>{"sinfo", "--noheader", "--Node", "--format=%N|%T|%E", "--nodes=node017"}));
}

// Issue 31: undrain resumes a node only on a passing verdict of every criterion it was drained for.
TEST(SlurmAdmin, DrainReasonsSayWhatTheNodeWasDrainedFor) {
  auto d = parse_drain_reason("gpuaccept: gpu.xid,gpu.pcie.gen_at_max [RESTART_BM] (slurm job 4242)");
  EXPECT_TRUE(d.ours);
  EXPECT_FALSE(d.health);
  EXPECT_FALSE(d.cut);
  EXPECT_EQ(d.criteria, (std::vector<std::string>{"gpu.xid", "gpu.pcie.gen_at_max"}));
  EXPECT_EQ(d.run, "slurm job 4242");
  d = parse_drain_reason("gpuaccept: p2p.host.bw (2026-12-01T10:00:00Z)");
  EXPECT_EQ(d.criteria, std::vector<std::string>{"p2p.host.bw"});
  EXPECT_EQ(d.run, "2026-12-01T10:00:00Z");
  d = parse_drain_reason("gpuaccept: health: gpu.xid@n1/gpu:1 gpu.xid@n1/gpu:0 gpu.remap.pending@n1/gpu:0 [RESTART_BM]");
  EXPECT_TRUE(d.health);
  EXPECT_FALSE(d.cut);
  EXPECT_EQ(d.criteria, (std::vector<std::string>{"gpu.xid", "gpu.remap.pending"}));
  EXPECT_TRUE(parse_drain_reason("gpuaccept: health: gpu.xid@n1/gpu:1 ...").cut);
  EXPECT_TRUE(parse_drain_reason("gpuaccept: gpu.xid").cut);  // no run: shortened or edited
  EXPECT_FALSE(parse_drain_reason("bad DIMM, ticket 99").ours);
  EXPECT_FALSE(parse_drain_reason("gpuacceptable").ours);
}

TEST(SlurmAdmin, PartitionsOfANodeForHealthsFleetCap) {
  EXPECT_EQ(sinfo_partitions_argv("n7"), (std::vector<std::string>{"sinfo", "--noheader", "--Node", "--nodes=n7", "--format=%P"}));
  EXPECT_EQ(parse_sinfo_partitions("gpu*\nbatch\ngpu*\n\n"), (std::vector<std::string>{"gpu", "batch"}));
  EXPECT_EQ(sinfo_partition_nodes_argv({"gpu", "batch"}).back(), "--partition=gpu,batch");
}

}  // namespace
}  // namespace ga::launch
