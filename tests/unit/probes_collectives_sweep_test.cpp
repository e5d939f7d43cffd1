// The sweep harness with a fake backend on one process: the size plan, iteration counts, the
// data check, the corruption hook, the deadline, errors and the samples it emits.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "probes/harness/sweep.hpp"
#include "probes/harness/sweep_pattern.hpp"
#include "probes/probe.hpp"

namespace {

using namespace ga::sweep;

struct Recorder : ga::SampleSink {
  std::vector<ga::Sample> samples;
  void emit(ga::Sample s) override { samples.push_back(std::move(s)); }
};

// One rank: the collective's output is what the pattern expects, unless told otherwise.
class FakeBackend : public Backend {
 public:
  int launches = 0, fills = 0;
  std::optional<Corruption> corrupt;
  bool fail_prepare = false;
  double sleep_s = 0;
  std::vector<float> out;
  std::string dtype() const override { return "float"; }
  std::size_t type_size() const override { return 4; }
  bool supports(Collective c, bool in_place) const override { return !(c == Collective::sendrecv && in_place); }
  void prepare(const Line& l) override {
    if (fail_prepare) throw std::runtime_error("out of memory for " + std::to_string(l.bytes) + " B");
    out.resize(l.counts.recv);
  }
  void fill(const Line&) override {
    ++fills;
    std::fill(out.begin(), out.end(), poison_value);
  }
  void launch(const Line& l) override {
    ++launches;
    for (std::size_t i = 0; i < l.counts.recv; ++i) out[i] = expected_value(l, i);
    if (sleep_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(sleep_s));
  }
  void synchronize() override {}
  std::uint64_t check(const Line& l) override {
    if (corrupt && corrupt->applies(l)) out[0] += 1;
    std::uint64_t wrong = 0;
    for (std::size_t i = 0; i < l.counts.recv; ++i) wrong += out[i] != expected_value(l, i);
    return wrong;
  }
};

TEST(Sweep, SizesDoubleFromMinToMax) {
  EXPECT_EQ(sweep_sizes({8, 64, 2}), (std::vector<std::uint64_t>{8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes({8, 100, 2}), (std::vector<std::uint64_t>{8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes({1u << 30, 17179869184ull, 3}).size(), 3u);  // the issue 256 log's -f 3
  EXPECT_THROW(sweep_sizes({0, 8, 2}), std::invalid_argument);
  EXPECT_THROW(sweep_sizes({16, 8, 2}), std::invalid_argument);
  EXPECT_THROW(sweep_sizes({8, 16, 1.0}), std::invalid_argument);
}

TEST(Sweep, CountsFollowNcclTestsSizeColumn) {
  // all_gather of 1 MiB over 4 ranks: 64 Ki floats in, 256 Ki out; count column = per rank.
  auto ag = counts_for(Collective::all_gather, 1 << 20, 4, 4);
  EXPECT_EQ(ag.send, 65536u);
  EXPECT_EQ(ag.recv, 262144u);
  EXPECT_EQ(ag.count, 65536u);
  auto rs = counts_for(Collective::reduce_scatter, 1 << 20, 4, 4);
  EXPECT_EQ(rs.send, 262144u);
  EXPECT_EQ(rs.recv, 65536u);
  auto a2a = counts_for(Collective::alltoall, 1 << 20, 4, 4);
  EXPECT_EQ(a2a.send, 262144u);
  EXPECT_EQ(a2a.count, 65536u);
  // Rounded down so each rank's share is whole: 24 B over 4 ranks of floats is 4 floats.
  EXPECT_EQ(bytes_of(counts_for(Collective::all_gather, 24, 4, 4), 4), 16u);
  EXPECT_EQ(counts_for(Collective::all_gather, 8, 4, 4).count, 0u);
}

TEST(Sweep, NamesRoundTrip) {
  for (auto c : all_collectives()) EXPECT_EQ(collective_from_string(to_string(c)), c);
  EXPECT_EQ(collective_from_string("allreduce"), Collective::all_reduce);
  EXPECT_EQ(collective_from_string("reducescatter"), Collective::reduce_scatter);
  EXPECT_FALSE(collective_from_string("allreduceX"));
}

TEST(Sweep, RunsEveryLineChecksAndEmitsFourSamplesEach) {
  auto comm = ga::make_self_comm();
  FakeBackend be;
  SweepConfig cfg;
  cfg.probe = "fake";
  cfg.sizes = {8, 64, 2};
  cfg.warmup_iters = 2;
  cfg.min_iters = cfg.max_iters = 3;
  cfg.extra_params = {{"scope", "host"}};
  Recorder rec;
  const auto res = run_sweep(*comm, be, cfg, &rec);
  ASSERT_TRUE(res.error.empty()) << res.error;
  // 7 collectives x 4 sizes x 2 placements, less sendrecv in place (unsupported).
  EXPECT_EQ(res.lines.size(), 7u * 4 * 2 - 4);
  ASSERT_EQ(res.skipped.size(), 1u);
  EXPECT_EQ(res.skipped[0], "sendrecv in place: not supported by the backend");
  EXPECT_EQ(res.wrong_total, 0u);
  EXPECT_EQ(rec.samples.size(), res.lines.size() * 4);
  // Per line: 2 warm-up, 1 alignment, 3 timed, 1 checked.
  EXPECT_EQ(be.launches, static_cast<int>(res.lines.size()) * 7);
  const auto& s = rec.samples[2];
  EXPECT_EQ(s.metric, "fake.busbw");
  EXPECT_EQ(s.place, "cluster");
  EXPECT_EQ(s.unit, "B/s");
  EXPECT_EQ(s.params.at("collective"), "all_reduce");
  EXPECT_EQ(s.params.at("size"), 8);
  EXPECT_EQ(s.params.at("count"), 2);
  EXPECT_EQ(s.params.at("dtype"), "float");
  EXPECT_EQ(s.params.at("in_place"), false);
  EXPECT_EQ(s.params.at("ranks"), 1);
  EXPECT_EQ(s.params.at("scope"), "host");
  for (const auto& l : res.lines) {
    EXPECT_EQ(l.iters, 3);
    EXPECT_GT(l.seconds, 0);
    EXPECT_DOUBLE_EQ(l.algbw, double(l.line.bytes) / l.seconds);
    EXPECT_DOUBLE_EQ(l.busbw, l.algbw * bus_factor(l.line.coll, 1));
  }
}

// Every line run is reported as it starts, k of K lines in the order run, named as an operator
// reads it (the scope first, where the probe gives one).
TEST(Sweep, ReportsEachLineToTheProgressChannel) {
  struct Steps : ga::Progress {
    std::vector<std::string> seen;
    void step(std::string_view doing, int index, int count, std::string_view unit, ga::StepCount kind) override {
      EXPECT_EQ(kind, ga::StepCount::exact);  // a sweep knows its lines
      seen.push_back(std::string(doing) + " " + std::to_string(index) + "/" + std::to_string(count) + " " + std::string(unit));
    }
  } steps;
  auto comm = ga::make_self_comm();
  FakeBackend be;
  SweepConfig cfg;
  cfg.probe = "fake";
  cfg.sizes = {512, 2048, 2};
  cfg.collectives = {Collective::all_reduce};
  cfg.in_place = false;
  cfg.min_iters = cfg.max_iters = 1;
  cfg.extra_params = {{"scope", "intra-host"}};
  cfg.progress = &steps;
  const auto res = run_sweep(*comm, be, cfg, nullptr);
  ASSERT_TRUE(res.error.empty()) << res.error;
  EXPECT_EQ(steps.seen, (std::vector<std::string>{"intra-host all_reduce 512 B out of place 1/3 lines",
                                                  "intra-host all_reduce 1 KiB out of place 2/3 lines",
                                                  "intra-host all_reduce 2 KiB out of place 3/3 lines"}));
}

TEST(Sweep, CorruptedLineShowsOneWrongElementAndOnlyThatLine) {
  auto comm = ga::make_self_comm();
  FakeBackend be;
  be.corrupt = Corruption{Collective::all_reduce, 32, 0};
  SweepConfig cfg;
  cfg.probe = "fake";
  cfg.sizes = {8, 64, 2};
  cfg.collectives = {Collective::all_reduce, Collective::broadcast};
  cfg.min_iters = cfg.max_iters = 1;
  Recorder rec;
  const auto res = run_sweep(*comm, be, cfg, &rec);
  EXPECT_EQ(res.wrong_total, 2u);  // out of place and in place
  for (const auto& l : res.lines)
    EXPECT_EQ(l.wrong, l.line.coll == Collective::all_reduce && l.line.bytes == 32 ? 1u : 0u);
  int wrong_samples = 0;
  for (const auto& s : rec.samples)
    if (s.metric == "fake.wrong" && *s.value == 1) {
      ++wrong_samples;
      EXPECT_EQ(s.params.at("size"), 32);
    }
  EXPECT_EQ(wrong_samples, 2);
}

TEST(Sweep, IterationsShrinkToFitTheDeadlineAndLateLinesAreNotRun) {
  auto comm = ga::make_self_comm();
  FakeBackend be;
  be.sleep_s = 0.01;
  SweepConfig cfg;
  cfg.probe = "fake";
  cfg.sizes = {8, 1024, 2};
  cfg.collectives = {Collective::all_reduce};
  cfg.warmup_iters = 1;
  cfg.max_iters = 1000;
  cfg.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  const auto res = run_sweep(*comm, be, cfg, nullptr);
  ASSERT_TRUE(res.error.empty());
  ASSERT_FALSE(res.lines.empty());
  for (const auto& l : res.lines) EXPECT_LT(l.iters, 1000);
  EXPECT_EQ(res.lines.size() + res.not_run.size(), 16u);
  EXPECT_FALSE(res.not_run.empty());  // 16 lines of >= 4 x 10 ms cannot fit 300 ms
}

TEST(Sweep, BackendErrorStopsTheSweepWithItsReason) {
  auto comm = ga::make_self_comm();
  FakeBackend be;
  be.fail_prepare = true;
  SweepConfig cfg;
  cfg.probe = "fake";
  const auto res = run_sweep(*comm, be, cfg, nullptr);
  EXPECT_NE(res.error.find("out of memory for 8 B"), std::string::npos) << res.error;
  EXPECT_TRUE(res.lines.empty());
}

TEST(Sweep, ConfigFromParamsNamesTheBadKey) {
  SweepConfig d;
  auto c = sweep_config_from_params(
      {{"min_bytes", "1K"}, {"max_bytes", "16M"}, {"step_factor", 4}, {"collectives", {"allreduce", "sendrecv"}},
       {"in_place", false}, {"iters", 7}, {"time_across", "avg"}},
      d);
  EXPECT_EQ(c.sizes.min_bytes, 1024u);
  EXPECT_EQ(c.sizes.max_bytes, 16u << 20);
  EXPECT_EQ(c.collectives.size(), 2u);
  EXPECT_FALSE(c.in_place);
  EXPECT_EQ(c.min_iters, 7);
  EXPECT_EQ(c.max_iters, 7);
  EXPECT_EQ(c.time_across, TimeAcrossRanks::avg);
  auto msg = [&](nlohmann::json p) {
    try {
      sweep_config_from_params(p, d);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(msg({{"collectives", {"allreduce", "gather"}}}).find("\"gather\""), std::string::npos);
  EXPECT_NE(msg({{"step_factor", 1}}).find("step_factor"), std::string::npos);
  EXPECT_NE(msg({{"max_bytes", "12X"}}).find("max_bytes"), std::string::npos);
  EXPECT_NE(msg({{"min_bytes", 64}, {"max_bytes", 8}}).find("below min_bytes"), std::string::npos);
  EXPECT_NE(msg({{"iters", 0}}).find("iters"), std::string::npos);
}

TEST(Sweep, CorruptionParamIsChecked) {
  auto c = corruption_from_json({{"collective", "all_reduce"}, {"size", 1024}, {"rank", 1}});
  EXPECT_EQ(c.coll, Collective::all_reduce);
  EXPECT_EQ(c.bytes, 1024u);
  EXPECT_EQ(c.rank, 1);
  EXPECT_THROW(corruption_from_json({{"collective", "nope"}, {"size", 8}}), std::invalid_argument);
  EXPECT_THROW(corruption_from_json({{"collective", "all_reduce"}}), std::invalid_argument);
  EXPECT_THROW(corruption_from_json({{"size", 8}, {"rnak", 1}}), std::invalid_argument);
}

// The expected values of a 4-rank all_gather, reduce_scatter and alltoall, computed by hand
// from the pattern, so both backends share a check that is itself checked.
TEST(Sweep, ExpectedValuesForFourRanks) {
  Line l;
  l.nranks = 4;
  l.rank = 2;
  l.coll = Collective::all_gather;
  l.counts = counts_for(l.coll, 64, 4, 4);  // 4 floats from each rank
  EXPECT_EQ(expected_value(l, 5), input_value(1, 1));
  l.coll = Collective::reduce_scatter;
  l.counts = counts_for(l.coll, 64, 4, 4);  // 16 in, 4 out
  EXPECT_EQ(expected_value(l, 1),
            input_value(0, 9) + input_value(1, 9) + input_value(2, 9) + input_value(3, 9));
  l.coll = Collective::alltoall;
  l.counts = counts_for(l.coll, 64, 4, 4);  // 4 blocks of 4
  EXPECT_EQ(expected_value(l, 13), input_value(3, 2 * 4 + 1));
  l.coll = Collective::sendrecv;
  l.counts = counts_for(l.coll, 64, 4, 4);
  EXPECT_EQ(expected_value(l, 3), input_value(1, 3));
  l.coll = Collective::reduce;
  l.root = 0;
  EXPECT_FALSE(has_output(l));
  EXPECT_NE(poison_value, std::round(poison_value));
}

}  // namespace
