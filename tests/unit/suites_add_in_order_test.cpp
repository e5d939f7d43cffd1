// judging::add_in_order: derived metrics merged into the judge's sorted metrics give what one
// stable sort of them all by metric_less gives, however the derived ones come (the analyses
// emit each place's metrics together, so names interleave; some names' places come out of
// order; some (name, place, params) repeat).
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "suites/judge.hpp"
#include "suites/judge_parts.hpp"

namespace ga {
namespace {

Metric make(const std::string& name, const std::string& place, int size, double value) {
  Metric m;
  m.metric = name;
  m.place = place;
  if (size >= 0) m.params = Params(nlohmann::json{{"size", size}});
  m.value = value;
  return m;
}

// What identifies a metric here, with the value as the tie-break witness (equal keys keep
// their order in a stable sort, and the values say which came first).
std::vector<std::string> keys(const std::vector<Metric>& ms) {
  std::vector<std::string> out;
  for (const auto& m : ms) out.push_back(m.metric + "|" + m.place + "|" + m.params.dump() + "|" + std::to_string(*m.value));
  return out;
}

TEST(AddInOrder, SameAsOneStableSortOfEverything) {
  const std::vector<std::string> names = {"a.bw", "p2p.host_slowdown", "p2p.link_slowdown", "rdma.link.downed",
                                          "rdma.link.symbol_ber", "z.last", "m.mid"};
  for (unsigned seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    auto place = [&] {
      const int h = pick(12) + 1;
      switch (pick(4)) {
        case 0: return "node" + std::to_string(h);
        case 1: return "node" + std::to_string(h) + "/gpu:" + std::to_string(pick(8));
        case 2: return "node" + std::to_string(h) + "~node" + std::to_string(pick(12) + 1);
        default: return std::string("cluster");
      }
    };
    std::vector<Metric> base, extra;
    for (int i = 0; i < 60; ++i) base.push_back(make(names[pick(3) * 2 % names.size()], place(), pick(3) - 1, i));
    std::stable_sort(base.begin(), base.end(), judging::metric_less);
    // Derived ones: by place, each place's names together; sometimes a place again.
    for (int i = 0; i < 40; ++i) {
      const std::string p = place();
      for (int k = 0; k < 1 + pick(3); ++k) extra.push_back(make(names[pick(int(names.size()))], p, pick(3) - 1, 1000 + i * 10 + k));
    }
    std::vector<Metric> want = base;
    want.insert(want.end(), extra.begin(), extra.end());
    std::stable_sort(want.begin(), want.end(), judging::metric_less);

    std::vector<Metric> got = base;
    judging::add_in_order(got, extra);
    EXPECT_EQ(keys(got), keys(want)) << "seed " << seed;

    // Unsorted metrics take the other path (one stable sort): the same order again.
    std::vector<Metric> shuffled = base;
    std::reverse(shuffled.begin(), shuffled.end());
    std::vector<Metric> want2 = shuffled;
    want2.insert(want2.end(), extra.begin(), extra.end());
    std::stable_sort(want2.begin(), want2.end(), judging::metric_less);
    judging::add_in_order(shuffled, extra);
    EXPECT_EQ(keys(shuffled), keys(want2)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace ga
