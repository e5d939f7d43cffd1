// base::run_in_child: what the work returned or threw comes back whole; a child that crashes
// or leaves without a result is reported, never taken for a result.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "base/child.hpp"

namespace ga::base {
namespace {

using Kind = ChildOutcome::Kind;

TEST(RunInChild, WhatTheWorkReturnsComesBackWhole) {
  const std::string big(3 << 20, 'x');  // more than a pipe holds: the parent must read as it goes
  const auto r = run_in_child([&] { return big + "end"; });
  EXPECT_EQ(r.kind, Kind::returned);
  EXPECT_EQ(r.text.size(), big.size() + 3);
  EXPECT_EQ(r.text.substr(r.text.size() - 3), "end");
  EXPECT_EQ(run_in_child([] { return std::string(); }).kind, Kind::returned);  // empty is a result
}

TEST(RunInChild, WhatTheWorkThrowsIsItsMessage) {
  const auto r = run_in_child([]() -> std::string { throw std::runtime_error("file.xml:3: no"); });
  EXPECT_EQ(r.kind, Kind::threw);
  EXPECT_EQ(r.text, "file.xml:3: no");
}

TEST(RunInChild, ACrashIsTheChildsAndSaysWhichSignal) {
  const auto r = run_in_child([]() -> std::string {
    ::raise(SIGSEGV);
    return "not reached";
  });
  EXPECT_EQ(r.kind, Kind::died);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_NE(r.text.find("signal 11"), std::string::npos) << r.text;
}

TEST(RunInChild, AChildThatLeavesWithoutAResultIsNoResult) {
  const auto r = run_in_child([]() -> std::string { ::_exit(3); });
  EXPECT_EQ(r.kind, Kind::died);
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.text.find("status 3"), std::string::npos) << r.text;
}

TEST(RunInChild, TheParentGoesOnAfterward) {
  for (int i = 0; i < 20; ++i) EXPECT_EQ(run_in_child([i] { return std::to_string(i); }).text, std::to_string(i));
}

}  // namespace
}  // namespace ga::base
