// storage: checksum, who reads whose file, per-host arithmetic, and the probe itself on one
// process (self communicator) in a scratch directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <numeric>

#include "base/checksum.hpp"
#include "probes/probe.hpp"
#include "probes/storage/storage_plan.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace ga;
using namespace ga::storage;
using namespace ga::base;

namespace {

std::vector<unsigned char> bytes(std::size_t n) {
  std::vector<unsigned char> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(mix64(i) & 0xff);
  return b;
}

struct Collect : SampleSink {
  std::vector<Sample> s;
  void emit(Sample x) override { s.push_back(std::move(x)); }
  const Sample* find(const std::string& metric, const std::string& place) const {
    for (const auto& x : s)
      if (x.metric == metric && x.place == place) return &x;
    return nullptr;
  }
};

}  // namespace

TEST(StorageChecksum, StreamingInAnyPiecesEqualsOneShot) {
  const auto b = bytes(1000);
  const auto whole = checksum_of(b.data(), b.size());
  for (std::size_t piece : {1u, 3u, 7u, 8u, 9u, 64u, 999u}) {
    Checksum c;
    for (std::size_t off = 0; off < b.size(); off += piece) c.update(b.data() + off, std::min(piece, b.size() - off));
    EXPECT_EQ(c.value(), whole) << "pieces of " << piece;
    EXPECT_EQ(c.bytes(), b.size());
  }
}

TEST(StorageChecksum, EveryFlippedBitAndEveryTruncationChangesIt) {
  auto b = bytes(77);
  const auto ref = checksum_of(b.data(), b.size());
  for (std::size_t i = 0; i < b.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      b[i] ^= static_cast<unsigned char>(1 << bit);
      EXPECT_NE(checksum_of(b.data(), b.size()), ref) << "byte " << i << " bit " << bit;
      b[i] ^= static_cast<unsigned char>(1 << bit);
    }
  for (std::size_t n = 0; n < b.size(); ++n) EXPECT_NE(checksum_of(b.data(), n), ref) << "prefix " << n;
  // Zero padding of the tail is not the same as the shorter file.
  std::vector<unsigned char> z = {1, 2, 3}, z0 = {1, 2, 3, 0};
  EXPECT_NE(checksum_of(z.data(), 3), checksum_of(z0.data(), 4));
}

TEST(StorageChecksum, HexRoundTripAndRejects) {
  std::uint64_t v = 0;
  EXPECT_EQ(to_hex(0x0123456789abcdefULL), "0123456789abcdef");
  EXPECT_TRUE(from_hex("0123456789ABCDEF", v));
  EXPECT_EQ(v, 0x0123456789abcdefULL);
  EXPECT_FALSE(from_hex("0123", v));
  EXPECT_FALSE(from_hex("0123456789abcdeg", v));
}

TEST(StoragePlan, PartnerIsOnTheNextHostAtTheSamePosition) {
  const std::vector<std::string> h = {"a", "a", "b", "b", "c", "c"};
  EXPECT_EQ(partner_of(0, h), 2);
  EXPECT_EQ(partner_of(1, h), 3);
  EXPECT_EQ(partner_of(2, h), 4);
  EXPECT_EQ(partner_of(5, h), 1);
  for (int r = 0; r < 6; ++r) EXPECT_NE(h[static_cast<std::size_t>(partner_of(r, h))], h[static_cast<std::size_t>(r)]);
}

TEST(StoragePlan, UnevenHostsStillReadAcrossHosts) {
  const std::vector<std::string> h = {"a", "a", "a", "b"};
  for (int r = 0; r < 4; ++r) EXPECT_NE(h[static_cast<std::size_t>(partner_of(r, h))], h[static_cast<std::size_t>(r)]) << r;
  EXPECT_EQ(partner_of(3, h), 0);
}

TEST(StoragePlan, OneHostReadsTheNextRankAndOneRankItself) {
  EXPECT_EQ(partner_of(0, {"a", "a", "a"}), 1);
  EXPECT_EQ(partner_of(2, {"a", "a", "a"}), 0);
  EXPECT_EQ(partner_of(0, {"a"}), 0);
  EXPECT_THROW(partner_of(3, {"a"}), std::invalid_argument);
}

TEST(StoragePlan, HostTotalsAreBytesOverTheSlowestRank) {
  std::vector<RankIo> all(3);
  all[0] = {0, "a", 100, 1.0, 100, 0.5, 1, true, "", 30, 0.1, ""};
  all[1] = {1, "a", 100, 2.0, 0, 0.0, 2, false, "absent", 30, 0.3, ""};
  all[2] = {2, "b", 100, 4.0, 100, 1.0, 0, true, "", 30, 0.2, ""};
  const auto a = totals_of(all, "a");
  EXPECT_EQ(a.ranks, 2);
  EXPECT_EQ(a.visible_ranks, 1);
  EXPECT_DOUBLE_EQ(a.write_bw(), 200.0 / 2.0);
  EXPECT_DOUBLE_EQ(a.read_bw(), 100.0 / 0.5);  // the rank that saw nothing adds neither bytes nor time
  EXPECT_DOUBLE_EQ(a.meta_rate(), 60.0 / 0.3);
  const auto all_t = totals_of(all, "");
  EXPECT_DOUBLE_EQ(all_t.write_bw(), 300.0 / 4.0);
  EXPECT_DOUBLE_EQ(all_t.read_bw(), 200.0 / 1.0);
  const auto j = to_json(all[1]);
  EXPECT_EQ(to_json(rank_io_from_json(j)), j);
}

TEST(StoragePlan, SpaceAndInodeRatios) {
  EXPECT_DOUBLE_EQ(space_ratio(1000, 4, 100, 2), 1000.0 / 800.0);
  EXPECT_LT(space_ratio(799, 4, 100, 2), 1.0);
  EXPECT_DOUBLE_EQ(inode_ratio(16, 4, 2, 2), 1.0);
}

namespace {
std::vector<Sample> run_storage(const std::string& dir, nlohmann::json params, Outcome* outcome) {
  auto comm = make_self_comm();
  topo::ClusterTopology cluster;
  cluster.hosts.emplace_back();
  cluster.hosts[0].hostname = "h1";
  ProbeContext ctx{*comm, cluster, cluster.hosts[0], "h1"};
  ctx.rank_hosts = {"h1"};
  ctx.params = std::move(params);
  ctx.run_dir = ctx.shared_dir = dir;
  ctx.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  ProbeRegistry reg;
  register_builtin_probes(reg);
  Collect out;
  *outcome = reg.find("storage")->run(ctx, out);
  return out.s;
}
}  // namespace

TEST(StorageProbe, OneProcessMeasuresEverythingAndCleansUp) {
  ScratchDir d;
  Outcome o;
  const auto s = run_storage(d.p, {{"file_mib", 2}, {"metadata_files", 20}}, &o);
  EXPECT_EQ(o.status, ProbeStatus::ok) << o.reason;
  Collect c;
  c.s = s;
  ASSERT_TRUE(c.find("storage.visible", "h1"));
  EXPECT_EQ(*c.find("storage.visible", "h1")->value, 1.0);
  for (const char* m : {"storage.write_bw", "storage.read_bw", "storage.metadata_rate"}) {
    ASSERT_TRUE(c.find(m, "h1")) << m;
    EXPECT_GT(*c.find(m, "h1")->value, 0) << m;
    ASSERT_TRUE(c.find(m, "cluster")) << m;
  }
  EXPECT_EQ(c.find("storage.metadata_rate", "h1")->unit, "op/s");
  ASSERT_TRUE(c.find("storage.free_space_ratio", "h1"));
  EXPECT_EQ(c.find("storage.free_space_ratio", "h1")->params["checkpoint_bytes_per_rank"], 2 << 20);
  EXPECT_TRUE(fs::is_empty(d.p)) << "the probe left files in " << d.p;
}

TEST(StorageProbe, TheBlindHostHookMakesTheReadBackFailWithTheFileNamed) {
  ScratchDir d;
  Outcome o;
  const auto s = run_storage(d.p, {{"file_mib", 1}, {"metadata_files", 5}, {"blind_host", "h1"}, {"visibility_wait_s", 0.1}}, &o);
  Collect c;
  c.s = s;
  ASSERT_TRUE(c.find("storage.visible", "h1"));
  EXPECT_EQ(*c.find("storage.visible", "h1")->value, 0.0);
  const auto problems = c.find("storage.visible", "h1")->params["problems"].dump();
  EXPECT_NE(problems.find("cannot open"), std::string::npos) << problems;
  EXPECT_NE(problems.find("ckpt-rank0.bin"), std::string::npos) << problems;
  EXPECT_FALSE(c.find("storage.read_bw", "h1"));
  EXPECT_TRUE(fs::is_empty(d.p));
}

TEST(StorageProbe, BadParametersAreNamed) {
  ScratchDir d;
  Outcome o;
  try {
    run_storage(d.p, {{"file_mib", 0}}, &o);
    FAIL() << "no error for file_mib 0";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("file_mib"), std::string::npos) << e.what();
  }
}
