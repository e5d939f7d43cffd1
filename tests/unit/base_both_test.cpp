// base::both runs its two pieces of work at once, returns only when both are done, and throws
// an error of either only after both have finished (other's first when both fail).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/both.hpp"

namespace ga {
namespace {

using namespace std::chrono_literals;

TEST(Both, RunsBothOnTwoThreads) {
  std::thread::id other_id, here_id;
  int a = 0, b = 0;
  base::both([&] { other_id = std::this_thread::get_id(), a = 1; },
             [&] { here_id = std::this_thread::get_id(), b = 2; });
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2);
  EXPECT_EQ(here_id, std::this_thread::get_id());
  EXPECT_NE(other_id, here_id);
}

TEST(Both, TheTwoOverlap) {
  // Each waits for the other to have started: run one after the other, this would never end,
  // so each wait is bounded and the test fails instead.
  std::atomic<bool> other_started{false}, here_started{false};
  bool other_saw = false, here_saw = false;
  auto wait_for = [](const std::atomic<bool>& flag) {
    for (int i = 0; i < 2000 && !flag; ++i) std::this_thread::sleep_for(1ms);
    return flag.load();
  };
  base::both([&] { other_started = true, other_saw = wait_for(here_started); },
             [&] { here_started = true, here_saw = wait_for(other_started); });
  EXPECT_TRUE(other_saw);
  EXPECT_TRUE(here_saw);
}

TEST(Both, AnErrorIsThrownOnlyAfterBothFinished) {
  std::atomic<bool> other_done{false};
  try {
    base::both([&] { std::this_thread::sleep_for(50ms), other_done = true; },
               [] { throw std::runtime_error("here failed"); });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "here failed");
    EXPECT_TRUE(other_done);  // the thread was joined before the error left both()
  }
  bool here_done = false;
  try {
    base::both([] { throw std::logic_error("other failed"); },
               [&] { std::this_thread::sleep_for(50ms), here_done = true; });
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "other failed");
    EXPECT_TRUE(here_done);
  }
}

TEST(Both, WhenBothFailOthersErrorIsThrown) {
  try {
    base::both([] { throw std::runtime_error("other"); }, [] { throw std::runtime_error("here"); });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "other");
  }
}

// Halves sorted side by side and merged give std::sort's order, at every length around the split.
TEST(SortOnBoth, TheOrderOfOneSort) {
  for (std::size_t n : {0u, 1u, 2u, 3u, 1000u, 1001u}) {
    std::vector<std::pair<int, std::size_t>> v;  // (key, position): ties broken by position
    for (std::size_t i = 0; i < n; ++i) v.emplace_back(int((i * 7919) % 97), i);
    auto want = v;
    std::sort(want.begin(), want.end());
    base::sort_on_both(v.begin(), v.end(), std::less<>());
    EXPECT_EQ(v, want) << n;
  }
}

}  // namespace
}  // namespace ga
