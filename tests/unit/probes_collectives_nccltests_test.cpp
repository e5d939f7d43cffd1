// Our bandwidth math against nccl-tests' own: for every data line of every recorded
// nccl-tests / rccl-tests log, algbw and busbw recomputed by the sweep harness from the logged
// size and time must equal the logged values within the log's rounding; and each log's facts
// match what tests/data/recorded/PROVENANCE.md states.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "probes/harness/sweep.hpp"
#include "tests/support/nccltests_log.hpp"

namespace {

namespace fs = std::filesystem;
using ga::nccltests::Log;
using ga::nccltests::Row;
using ga::nccltests::Timing;
using ga::sweep::Collective;

const std::string kDir = std::string(GA_FIXTURES_DIR) + "/nccl-tests/";

Log load(const std::string& name) { return ga::nccltests::parse_log_file(kDir + name); }

std::vector<std::string> all_logs() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kDir))
    if (e.path().extension() == ".txt") out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The log prints GB/s with 2 decimals from the unrounded time, and the time itself rounded to
// its last printed digit: recomputing from the printed time may differ by the bandwidth's
// sensitivity to that rounding, plus half a unit of the bandwidth's own last digit.
void expect_line_matches(const Row& r, const Timing& t, int nranks, const std::string& where) {
  const double seconds = t.time_us * 1e-6;
  const auto bw = ga::sweep::bandwidth_of(Collective::all_reduce, r.size, seconds, nranks);
  const double alg = bw.algbw / 1e9, bus = bw.busbw / 1e9;
  const double rel = t.time_resolution_us / (t.time_us - t.time_resolution_us);
  const double factor = ga::sweep::bus_factor(Collective::all_reduce, nranks);
  const double tol_alg = alg * rel + 0.005 + 1e-9;
  const double tol_bus = bus * rel + 0.005 + 1e-9;
  EXPECT_NEAR(alg, t.algbw_gbs, tol_alg) << where << " algbw";
  EXPECT_NEAR(bus, t.busbw_gbs, tol_bus) << where << " busbw (factor " << factor << ")";
  ASSERT_TRUE(t.wrong.has_value()) << where;
  EXPECT_EQ(*t.wrong, 0u) << where;
}

TEST(NcclTestsLog, EveryLineOfEveryLogMatchesOurBandwidthMath) {
  const auto logs = all_logs();
  ASSERT_EQ(logs.size(), 7u) << "a fixture log was added or removed: give it ground truth below";
  std::size_t lines = 0;
  for (const auto& name : logs) {
    const Log log = load(name);
    ASSERT_FALSE(log.rows.empty()) << name;
    for (const auto& r : log.rows) {
      const std::string where = name + ":" + std::to_string(r.line) + " size " + std::to_string(r.size);
      EXPECT_EQ(r.type, "float") << where;
      EXPECT_EQ(r.redop, "sum") << where;
      EXPECT_EQ(r.count * 4, r.size) << where;
      expect_line_matches(r, r.out_of_place, log.nranks(), where + " out-of-place");
      expect_line_matches(r, r.in_place, log.nranks(), where + " in-place");
      lines += 2;
    }
  }
  EXPECT_EQ(lines, 2u * (11 + 4 + 6 + 32 + 3 + 31 + 31));
}

// nccl-tests' "Avg bus bandwidth" is the mean busbw over every line, both placements.
TEST(NcclTestsLog, AverageBusBandwidthMatchesTheLog) {
  for (const auto& name : all_logs()) {
    const Log log = load(name);
    ASSERT_TRUE(log.avg_busbw_gbs.has_value()) << name;
    std::vector<ga::sweep::LineResult> lines;
    for (const auto& r : log.rows)
      for (const Timing* t : {&r.out_of_place, &r.in_place}) {
        ga::sweep::LineResult lr;
        lr.busbw = t->busbw_gbs * 1e9;
        lines.push_back(lr);
      }
    // Each logged busbw is rounded to 0.005, the logged average to its last digit.
    EXPECT_NEAR(ga::sweep::average_busbw(lines) / 1e9, *log.avg_busbw_gbs, 0.0055) << name;
  }
}

double peak_busbw(const Log& log, bool in_place, std::uint64_t* at = nullptr) {
  double best = -1;
  for (const auto& r : log.rows) {
    const double b = (in_place ? r.in_place : r.out_of_place).busbw_gbs;
    if (b > best) {
      best = b;
      if (at) *at = r.size;
    }
  }
  return best;
}

struct Truth {
  std::string file;
  int nranks;
  std::size_t rows;
  std::uint64_t first_size, last_size;
  double avg;
};

// PROVENANCE.md section 4, log by log.
TEST(NcclTestsLog, GroundTruthFromProvenance) {
  const std::vector<Truth> truth{
      {"dgx-a100-8xA100-40GB-single-node-g8-all_reduce_perf-healthy.txt", 8, 11, 1048576, 1073741824, 130.613},
      {"bitdeer-hgx-8xH100-single-node-g8-all_reduce_perf-nvls-healthy.txt", 8, 4, 268435456, 2147483648, 448.212},
      {"bitdeer-2node-16xH100-8xIB-all_reduce_perf-healthy.txt", 16, 6, 268435456, 8589934592, 443.007},
      {"nccl-tests-issue309-dell-xe9680-2node-16xH100-ib-nvls-healthy.txt", 16, 32, 8, 17179869184, 139.56},
      {"nccl-tests-issue256-h200-2node-16gpu-baremetal-healthy.txt", 16, 3, 1073741824, 9663676416, 475.782},
      {"gcp-a3mega-2node-16xH100-all_reduce_perf.txt", 16, 31, 8, 8589934592, 70.742},
      {"amd-8xMI350X-single-node-rccl-all_reduce_perf-whitespace-collapsed.txt", 8, 31, 8, 8589934592, 111.827},
  };
  for (const auto& t : truth) {
    const Log log = load(t.file);
    EXPECT_EQ(log.nranks(), t.nranks) << t.file;
    ASSERT_EQ(log.rows.size(), t.rows) << t.file;
    EXPECT_EQ(log.rows.front().size, t.first_size) << t.file;
    EXPECT_EQ(log.rows.back().size, t.last_size) << t.file;
    ASSERT_TRUE(log.avg_busbw_gbs) << t.file;
    EXPECT_DOUBLE_EQ(*log.avg_busbw_gbs, t.avg) << t.file;
    for (const auto& r : log.rows) {
      EXPECT_EQ(r.out_of_place.wrong.value_or(99), 0u) << t.file;
      EXPECT_EQ(r.in_place.wrong.value_or(99), 0u) << t.file;
    }
    ASSERT_TRUE(log.out_of_bounds) << t.file;
    EXPECT_EQ(*log.out_of_bounds, 0u) << t.file;
  }
}

TEST(NcclTestsLog, PeaksAndRowsNamedInProvenance) {
  std::uint64_t at = 0;
  auto dgx = load("dgx-a100-8xA100-40GB-single-node-g8-all_reduce_perf-healthy.txt");
  EXPECT_DOUBLE_EQ(peak_busbw(dgx, false, &at), 230.84);
  EXPECT_EQ(at, 1073741824u);
  EXPECT_DOUBLE_EQ(dgx.rows.back().in_place.busbw_gbs, 229.11);
  EXPECT_EQ(dgx.n_gpus, 8);
  EXPECT_EQ(dgx.ranks.size(), 8u);
  EXPECT_EQ(dgx.ranks[7].bus_id, "0xbd");
  EXPECT_EQ(dgx.ranks[0].model, "NVIDIA A100-SXM4-40GB");

  auto hgx = load("bitdeer-hgx-8xH100-single-node-g8-all_reduce_perf-nvls-healthy.txt");
  EXPECT_DOUBLE_EQ(hgx.rows.front().out_of_place.busbw_gbs, 419.49);
  EXPECT_DOUBLE_EQ(hgx.rows.back().out_of_place.busbw_gbs, 470.73);

  auto bd2 = load("bitdeer-2node-16xH100-8xIB-all_reduce_perf-healthy.txt");
  EXPECT_DOUBLE_EQ(bd2.rows.front().out_of_place.busbw_gbs, 389.61);
  EXPECT_DOUBLE_EQ(bd2.rows.back().out_of_place.busbw_gbs, 467.97);
  EXPECT_EQ(bd2.ranks[8].host, "host2");

  auto i309 = load("nccl-tests-issue309-dell-xe9680-2node-16xH100-ib-nvls-healthy.txt");
  EXPECT_DOUBLE_EQ(peak_busbw(i309, false, &at), 469.21);
  EXPECT_EQ(at, 17179869184u);
  EXPECT_EQ(i309.nccl_version, "2.26.2+cuda12.8");
  EXPECT_EQ(i309.ignored.size(), 2u);  // the two Open MPI help-aggregation lines
  EXPECT_EQ(i309.n_gpus, 1);           // 16 ranks from 16 processes, not from nGpus
  EXPECT_EQ(i309.ranks[15].host, "bm-h100-02");

  auto i256 = load("nccl-tests-issue256-h200-2node-16gpu-baremetal-healthy.txt");
  ASSERT_EQ(i256.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(i256.rows[0].out_of_place.busbw_gbs, 458.65);
  EXPECT_DOUBLE_EQ(i256.rows[1].out_of_place.busbw_gbs, 483.77);
  EXPECT_DOUBLE_EQ(i256.rows[2].out_of_place.busbw_gbs, 488.81);
  EXPECT_EQ(i256.ranks[0].host, "fs-207");

  auto gcp = load("gcp-a3mega-2node-16xH100-all_reduce_perf.txt");
  EXPECT_DOUBLE_EQ(gcp.rows.back().out_of_place.busbw_gbs, 338.82);
  EXPECT_DOUBLE_EQ(peak_busbw(gcp, false), 338.82);

  auto amd = load("amd-8xMI350X-single-node-rccl-all_reduce_perf-whitespace-collapsed.txt");
  EXPECT_EQ(amd.rows.back().size, 8589934592u);
  EXPECT_DOUBLE_EQ(amd.rows.back().in_place.busbw_gbs, 367.51);
  EXPECT_DOUBLE_EQ(amd.rows.back().out_of_place.busbw_gbs, 360.97);
  EXPECT_EQ(amd.ranks.size(), 8u);
  EXPECT_EQ(amd.ranks[0].model, "AMD Instinct MI350X");
  EXPECT_EQ(amd.ignored.size(), 1u);  // "rcccl-tests: Version Unknown"
  // The AMD guide's acceptance rule: in-place busbw at 8 GB >= 350 GB/s for MI350X.
  EXPECT_GE(amd.rows.back().in_place.busbw_gbs, 350.0);
}

// The math must fail where it should: a log whose busbw was computed with the wrong factor
// (that of reduce_scatter) does not match.
TEST(NcclTestsLog, WrongFactorIsCaught) {
  const Log log = load("dgx-a100-8xA100-40GB-single-node-g8-all_reduce_perf-healthy.txt");
  const Row& r = log.rows.back();
  const auto rs = ga::sweep::bandwidth_of(Collective::reduce_scatter, r.size, r.out_of_place.time_us * 1e-6, 8);
  EXPECT_GT(std::abs(rs.busbw / 1e9 - r.out_of_place.busbw_gbs), 50.0);
  // And with 16 ranks instead of 8 the all_reduce factor 1.875 vs 1.75 is off by 7%.
  const auto n16 = ga::sweep::bandwidth_of(Collective::all_reduce, r.size, r.out_of_place.time_us * 1e-6, 16);
  EXPECT_GT(std::abs(n16.busbw / 1e9 - r.out_of_place.busbw_gbs), 10.0);
}

TEST(NcclTestsLog, BusFactorsArePerformanceMd) {
  using ga::sweep::bus_factor;
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_gather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::alltoall, 16), 15.0 / 16);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::reduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::sendrecv, 8), 1.0);
}

TEST(NcclTestsLog, MalformedRowNamesTheLine) {
  const std::string text =
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor)\n"
      "           8             2     float     sum      -1    68.52    0.00    0.00      0    24.70    0.00\n";
  try {
    ga::nccltests::parse_log(text);
    FAIL() << "a short row was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ga::nccltests::parse_log("hello\nworld\n"), std::runtime_error);
}

TEST(NcclTestsLog, SendrecvNotAvailableAndNoRootColumn) {
  const std::string text =
      "# nThread 1 nGpus 8 minBytes 134217728 maxBytes 134217728 step: 2(factor)\n"
      "   134217728      33554432     float     sum      -1   1211.2  110.81  110.81      0   1211.8  110.76  110.76    N/A\n"
      "   134217728      33554432     float     sum   1211.2  110.81  110.81      0   1211.8  110.76  110.76    0\n";
  const Log log = ga::nccltests::parse_log(text);
  ASSERT_EQ(log.rows.size(), 2u);
  EXPECT_FALSE(log.rows[0].in_place.wrong.has_value());
  EXPECT_EQ(log.rows[1].root, -1);
  EXPECT_EQ(log.nranks(), 8);
  // sendrecv's factor is 1: busbw equals algbw, recomputed from time.
  const auto bw = ga::sweep::bandwidth_of(Collective::sendrecv, 134217728, 1211.2e-6, 8);
  EXPECT_NEAR(bw.busbw / 1e9, 110.81, 0.01);
}

}  // namespace
