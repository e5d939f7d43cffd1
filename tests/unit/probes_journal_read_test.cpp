// The journal reader: sample lines are read without a DOM (probes/journal.cpp SampleSax), in
// batches by several threads. What it gives must be what sample_from_json gives for each
// line, its errors must name the same lines, and order must survive the batches.
#include <sstream>

#include <gtest/gtest.h>

#include "probes/journal.hpp"

namespace ga {
namespace {

const char* kStart = R"({"type":"run_start","schema_version":1,"ranks":[{"rank":0,"host":"n1"}]})";

std::string journal_of(const std::vector<std::string>& lines) {
  std::string s = std::string(kStart) + "\n";
  for (const auto& l : lines) s += l + "\n";
  return s;
}

JournalData parse(const std::string& text) {
  std::istringstream in(text);
  return parse_journal(in, "j.jsonl");
}

void expect_same(const Sample& got, const Sample& want, const std::string& line) {
  EXPECT_EQ(got.probe, want.probe) << line;
  EXPECT_EQ(got.place, want.place) << line;
  EXPECT_EQ(got.metric, want.metric) << line;
  EXPECT_EQ(got.value, want.value) << line;
  EXPECT_EQ(got.text, want.text) << line;
  EXPECT_EQ(got.unit, want.unit) << line;
  EXPECT_EQ(got.params.dump(), want.params.dump()) << line;
  EXPECT_EQ(got.rank, want.rank) << line;
  EXPECT_EQ(got.iter, want.iter) << line;
}

TEST(JournalRead, SamplesOfEveryShapeReadAsSampleFromJsonReadsThem) {
  const std::vector<std::string> lines = {
      // the writer's shape (keys sorted), a float value
      R"({"iter":3,"metric":"p2p.bw","params":{"size":4194304,"test":"bandwidth"},"place":"n1~n2","probe":"p2p","rank":1,"type":"sample","unit":"B/s","value":9.5e9})",
      // an integer value, no probe (it is the metric's prefix), no unit, no params
      R"({"metric":"gpu.count","place":"n1","rank":0,"type":"sample","value":8})",
      // text, value null, an unsigned rank, nested params with arrays and objects
      R"({"metric":"inventory.kernel","params":{"a":[1,{"b":2},[3]],"c":{"d":"e"},"f":null,"g":true},"place":"n1","probe":"inventory","rank":4000000000,"text":"6.1.0","type":"sample","unit":"text","value":null})",
      // keys in another order, an unknown key holding an object and an array
      R"({"type":"sample","extra":{"x":[1,2,{"y":3}]},"more":[{"z":1}],"place":"n1/gpu:0","metric":"gpu.hbm_bw","unit":"B/s","value":-1.25,"iter":0})",
      // both value and text, params empty, a negative integer value
      R"({"metric":"clock.offset","params":{},"place":"n1","text":"ok","type":"sample","value":-7})",
  };
  const JournalData d = parse(journal_of(lines));
  ASSERT_EQ(d.samples.size(), lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i)
    expect_same(d.samples[i], sample_from_json(nlohmann::json::parse(lines[i])), lines[i]);
}

TEST(JournalRead, EqualParamsAreSharedAndDifferentOnesAreNot) {
  const JournalData d = parse(journal_of({
      R"({"metric":"m.a","params":{"size":8},"place":"n1","type":"sample","value":1})",
      R"({"metric":"m.a","params":{"size":8},"place":"n2","type":"sample","value":2})",
      R"({"metric":"m.a","params":{"size":9},"place":"n3","type":"sample","value":3})",
  }));
  ASSERT_EQ(d.samples.size(), 3u);
  EXPECT_EQ(&d.samples[0].params.json(), &d.samples[1].params.json());  // one object, interned
  EXPECT_NE(d.samples[0].params, d.samples[2].params);
  EXPECT_EQ(d.samples[2].params.at("size"), 9);
}

TEST(JournalRead, BadSamplesAreErrorsNamingTheirLine) {
  struct Case {
    std::string line, says;
  };
  const std::vector<Case> cases = {
      {R"({"place":"n1","type":"sample","value":1})", "sample without \"metric\""},
      {R"({"metric":"m.a","place":"n1","type":"sample","value":"fast"})", "sample \"value\" is not a number"},
      {R"({"metric":"m.a","place":"n1","type":"sample"})", "sample has neither \"value\" nor \"text\""},
      {R"({"metric":"m.a","place":7,"type":"sample","value":1})", "type must be string"},
  };
  for (const auto& c : cases) {
    // The bad line is line 3 (run_start is 1, a good sample 2), and not the last line.
    const std::string text = journal_of({R"({"metric":"m.a","place":"n1","type":"sample","value":1})", c.line,
                                         R"({"type":"run_end","time":"t"})"});
    try {
      parse(text);
      ADD_FAILURE() << "no error for " << c.line;
    } catch (const JournalError& e) {
      EXPECT_EQ(e.line, 3) << c.line;
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
  }
}

TEST(JournalRead, ATornLastLineIsIgnoredAndATornMiddleLineIsAnError) {
  const std::string good = R"({"metric":"m.a","place":"n1","type":"sample","value":1})";
  const std::string torn = R"({"metric":"m.a","place":"n1","ty)";
  EXPECT_EQ(parse(journal_of({good, torn})).samples.size(), 1u);
  try {
    parse(journal_of({torn, good}));
    ADD_FAILURE() << "a torn line that is not the last must be an error";
  } catch (const JournalError& e) {
    EXPECT_EQ(e.line, 2);
    EXPECT_NE(std::string(e.what()).find("not JSON"), std::string::npos) << e.what();
  }
}

TEST(JournalRead, OrderSurvivesBatchesAndThreads) {
  // More lines than one batch (16384), with records whose meaning depends on order: outcomes
  // after their probe_begin, in the last batch.
  std::vector<std::string> lines = {R"({"type":"probe_begin","probe":"m","time":"t","deadline_s":5})"};
  const int n = 40000;
  for (int i = 0; i < n; ++i)
    lines.push_back(R"({"iter":)" + std::to_string(i) + R"(,"metric":"m.a","place":"n1","type":"sample","value":)" +
                    std::to_string(i) + "}");
  lines.push_back(R"({"type":"outcome","probe":"m","rank":0,"host":"n1","status":"ok","reason":""})");
  lines.push_back(R"({"type":"probe_end","probe":"m","time":"t","elapsed_s":1})");
  lines.push_back(R"({"type":"run_end","time":"t"})");
  const JournalData d = parse(journal_of(lines));
  ASSERT_EQ(d.samples.size(), std::size_t(n));
  for (int i = 0; i < n; ++i) ASSERT_EQ(d.samples[i].iter, i);
  ASSERT_EQ(d.probes.size(), 1u);
  EXPECT_EQ(d.probes[0].outcomes.size(), 1u);
  EXPECT_TRUE(d.probes[0].ended);
  EXPECT_TRUE(d.run_ended);
}

TEST(JournalRead, AnErrorInALaterBatchNamesItsLine) {
  std::vector<std::string> lines;
  for (int i = 0; i < 20000; ++i) lines.push_back(R"({"metric":"m.a","place":"n1","type":"sample","value":1})");
  lines.push_back(R"({"type":"outcome","probe":"nope","rank":0,"host":"n1","status":"ok"})");
  lines.push_back(R"({"type":"run_end","time":"t"})");
  try {
    parse(journal_of(lines));
    ADD_FAILURE() << "an outcome before its probe_begin must be an error";
  } catch (const JournalError& e) {
    EXPECT_EQ(e.line, 20002);
    EXPECT_NE(std::string(e.what()).find("before its probe_begin"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ga
