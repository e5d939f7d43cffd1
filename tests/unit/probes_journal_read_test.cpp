// The journal reader: sample lines are read without a DOM (probes/journal.cpp SampleSax), in
// batches by several threads. What it gives must be what sample_from_json gives for each
// line, its errors must name the same lines, and order must survive the batches.
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "probes/journal.hpp"
#include "topology/topology.hpp"

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

// n sample lines, iter 0 .. n-1: enough of them span the reader's batches (16384 lines).
std::vector<std::string> numbered_samples(int n) {
  std::vector<std::string> lines;
  for (int i = 0; i < n; ++i)
    lines.push_back(R"({"iter":)" + std::to_string(i) + R"(,"metric":"m.a","place":"n1","type":"sample","value":1})");
  return lines;
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
      // text, value null, an unsigned rank (one past an int is an error: BadSamplesAre...), nested params with arrays and objects
      R"({"metric":"inventory.kernel","params":{"a":[1,{"b":2},[3]],"c":{"d":"e"},"f":null,"g":true},"place":"n1","probe":"inventory","rank":4000,"text":"6.1.0","type":"sample","unit":"text","value":null})",
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

// Params whose text was seen before are cut out of the line and taken from the pool
// (probes/journal.cpp, params_span): a line where that cut would read otherwise than the line
// as written (a second "params", one spelled with escapes, one inside a string, a bad line
// after a good one with the same params) reads as the line as written.
TEST(JournalRead, ParamsSeenBeforeReadAsTheLineSaysWhateverItsSpelling) {
  const JournalData d = parse(journal_of({
      R"({"metric":"m.a","params":{"size":8},"place":"n1","type":"sample","value":1})",
      R"({"metric":"m.a","params":{"size":8},"place":"n2","type":"sample","value":2})",
      R"({"metric":"m.a","params": { "size" : 8 },"place":"n3","type":"sample","value":3})",
      R"({"metric":"m.a","params":{"size":8},"params":{"size":9},"place":"n4","type":"sample","value":4})",
      R"({"metric":"m.a","params":{"size":7},"params":{"size":8},"place":"n5","type":"sample","value":5})",
      R"({"metric":"m.a","params":{"size":8},"params":{"size":7},"place":"n6","type":"sample","value":6})",
      R"({"metric":"m.a","text":"\"params\":{\"size\":8}","params":{"size":6},"place":"n7","type":"sample"})",
      R"({"metric":"m.a","params":{"size":8,"k":{"a":[1,{"b":"}"}]}},"place":"n8","type":"sample","value":8})",
      R"({"metric":"m.a","params":{"size":8,"k":{"a":[1,{"b":"}"}]}},"place":"n9","type":"sample","value":9})",
  }));
  ASSERT_EQ(d.samples.size(), 9u);
  EXPECT_EQ(&d.samples[0].params.json(), &d.samples[1].params.json());
  EXPECT_EQ(d.samples[2].params, d.samples[0].params);
  EXPECT_EQ(d.samples[3].params.at("size"), 9);  // the last "params" counts, as in the DOM
  EXPECT_EQ(d.samples[4].params.at("size"), 8);
  EXPECT_EQ(d.samples[5].params.at("size"), 7);
  EXPECT_EQ(d.samples[6].params.at("size"), 6);
  EXPECT_EQ(*d.samples[6].text, "\"params\":{\"size\":8}");
  EXPECT_EQ(d.samples[8].params, d.samples[7].params);
  EXPECT_EQ(d.samples[8].params.dump(), R"({"k":{"a":[1,{"b":"}"}]},"size":8})");
  EXPECT_EQ(*d.samples[8].value, 9);
  // Known params on a line that is not a good sample: the line's own error, at its line.
  try {
    parse(journal_of({R"({"metric":"m.a","params":{"size":8},"place":"n1","type":"sample","value":1})",
                      R"({"metric":"m.a","params":{"size":8},"place":7,"type":"sample","value":1})",
                      R"({"type":"run_end","time":"t"})"}));
    ADD_FAILURE() << "no error for a place that is a number";
  } catch (const JournalError& e) {
    EXPECT_EQ(e.line, 3);
    EXPECT_NE(std::string(e.what()).find("type must be string"), std::string::npos) << e.what();
  }
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
      // fuzz_journal: a rank no int holds was a float-to-int cast out of range (undefined
      // behaviour); tests/fuzz/regressions/journal/sample-rank-out-of-range.jsonl.
      {R"({"metric":"m.a","place":"n1","rank":8.8e115,"type":"sample","value":1})", "\"rank\" is 8.8e+115, not a whole number"},
      {R"({"metric":"m.a","place":"n1","rank":4294967296,"type":"sample","value":1})", "\"rank\" is 4294967296, not a whole number"},
      {R"({"iter":-1e300,"metric":"m.a","place":"n1","type":"sample","value":1})", "\"iter\" is -1e+300"},
      {R"({"iter":2.5,"metric":"m.a","place":"n1","type":"sample","value":1})", "\"iter\" is 2.5"},
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

TEST(JournalRead, EqualParamsAreOneObjectAcrossBatchesAndThreads) {
  // The parsing threads intern into one pool: equal params parsed by different threads, in
  // different batches, are one object, and different ones are not.
  std::vector<std::string> lines;
  const int n = 40000;
  for (int i = 0; i < n; ++i)
    lines.push_back(R"({"metric":"m.a","params":{"size":)" + std::to_string(i % 7) +
                    R"(},"place":"n1","type":"sample","value":1})");
  const JournalData d = parse(journal_of(lines));
  ASSERT_EQ(d.samples.size(), std::size_t(n));
  std::map<int, const nlohmann::json*> object_of_size;
  for (int i = 0; i < n; ++i) {
    const Params& p = d.samples[i].params;
    ASSERT_EQ(p.at("size"), i % 7);
    auto [it, first] = object_of_size.try_emplace(i % 7, &p.json());
    ASSERT_EQ(it->second, &p.json()) << "sample " << i << " holds a copy of its params";
  }
  std::set<const nlohmann::json*> distinct;
  for (const auto& [size, object] : object_of_size) distinct.insert(object);
  EXPECT_EQ(distinct.size(), 7u);
}

// A stream that cannot tell its length (a pipe): the reader cannot size its buffer up front.
class NoSeekBuf : public std::stringbuf {
 public:
  using std::stringbuf::stringbuf;

 protected:
  pos_type seekoff(off_type, std::ios_base::seekdir, std::ios_base::openmode) override { return pos_type(off_type(-1)); }
  pos_type seekpos(pos_type, std::ios_base::openmode) override { return pos_type(off_type(-1)); }
};

TEST(JournalRead, AStreamOfUnknownLengthIsReadWhole) {
  const int n = 40000;  // the samples' buffer grows several times
  NoSeekBuf buf(journal_of(numbered_samples(n)));
  std::istream in(&buf);
  const JournalData d = parse_journal(in, "pipe");
  ASSERT_EQ(d.samples.size(), std::size_t(n));
  for (int i = 0; i < n; ++i) ASSERT_EQ(d.samples[i].iter, i);
}

TEST(JournalRead, AnErrorInALaterBatchNamesItsLine) {
  auto lines = numbered_samples(20000);
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

// Issue 14 item 8: a journal is read in the order rank 0 writes it (probes/journal.cpp
// OrderCheck). A run of that order, with what legitimately repeats in it: two suite entries of
// one probe with equal samples, the same run-bound reading at start and end, and `signal` and
// `incomplete` records after run_end (a rank lost in MPI_Finalize).
std::vector<std::string> well_ordered_run() {
  const std::string topo = R"({"type":"topology","host":"n1","topology":)" +
                           topo::to_json(topo::HostTopology{}).dump() + "}";
  const std::string reading = R"({"metric":"rdma.rx","place":"n1","probe":"rdma","rank":0,"type":"sample","value":1})";
  return {
      topo,                                                                                        // 2
      reading,                                                                                     // 3
      R"({"type":"probe_begin","probe":"m","time":"t","deadline_s":5})",                           // 4
      R"({"metric":"m.a","place":"n1","probe":"m","rank":0,"type":"sample","value":1})",           // 5
      R"({"metric":"m.a","place":"n1","probe":"m","rank":1,"type":"sample","value":1})",           // 6
      R"({"type":"outcome","probe":"m","rank":0,"host":"n1","status":"ok","reason":""})",          // 7
      R"({"type":"outcome","probe":"m","rank":1,"host":"n1","status":"ok","reason":""})",          // 8
      R"({"type":"probe_end","probe":"m","time":"t","elapsed_s":1})",                              // 9
      R"({"type":"probe_begin","probe":"m","time":"t","deadline_s":5})",                           // 10
      R"({"metric":"m.a","place":"n1","probe":"m","rank":0,"type":"sample","value":1})",           // 11
      R"({"type":"outcome","probe":"m","rank":0,"host":"n1","status":"ok","reason":""})",          // 12
      R"({"type":"probe_end","probe":"m","time":"t","elapsed_s":1})",                              // 13
      reading,                                                                                     // 14
      R"({"type":"run_end","time":"t"})",                                                          // 15
      R"({"type":"signal","rank":1,"host":"n1","signal":"SIGTERM","probe":"MPI_Finalize","time":"t"})",  // 16
      R"({"type":"incomplete","probe":"shutdown","reason":"r","missing_ranks":[],"waiting_ranks":[],"detected_by":1})",
  };
}

void expect_refused(const std::string& text, int line, const std::string& says, const std::string& label) {
  try {
    parse(text);
    ADD_FAILURE() << label << ": read without an error";
  } catch (const JournalError& e) {
    EXPECT_EQ(e.line, line) << label << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("j.jsonl:" + std::to_string(line) + ": " + says), std::string::npos)
        << label << ": " << e.what();
  }
}

// The torn-line rule past the first batches, where the reader's threads parse: a torn last
// line in a last batch large enough for the threads (256 lines and more) is ignored, and a
// torn line in a middle batch is an error naming it.
TEST(JournalRead, TornLinesPastTheFirstBatchesReadAsInASmallJournal) {
  const std::string torn = R"({"metric":"m.a","place":"n1","ty)";
  auto lines = numbered_samples(2 * 16384 + 1000);  // batches of 16384 lines, then 1001 samples and the torn line
  lines.push_back(torn);
  const JournalData d = parse(journal_of(lines));
  ASSERT_EQ(d.samples.size(), std::size_t(2 * 16384 + 1000));
  EXPECT_EQ(d.samples.back().iter, 2 * 16384 + 999);

  lines = numbered_samples(40000);
  lines[20000] = torn;  // line 20002: the second batch, with a third after it
  expect_refused(journal_of(lines), 20002, "not JSON", "torn line 20002");
}

TEST(JournalOrder, AWellOrderedRunIsRead) {
  const JournalData d = parse(journal_of(well_ordered_run()));
  EXPECT_EQ(d.samples.size(), 5u);
  ASSERT_EQ(d.probes.size(), 2u);
  EXPECT_TRUE(d.probes[1].ended);
  EXPECT_EQ(d.signals.size(), 1u);
  EXPECT_EQ(d.incomplete.size(), 1u);
  // A killed run ends inside a probe, without probe_end or run_end: read as it is.
  auto killed = well_ordered_run();
  killed.resize(11);  // up to line 12, the second entry's first outcome
  EXPECT_EQ(parse(journal_of(killed)).probes.size(), 2u);
}

TEST(JournalOrder, AJournalTwiceInOneFileIsRefusedAtItsSecondRunStart) {
  const std::string once = journal_of(well_ordered_run());
  expect_refused(once + once, 18, "a second run_start (the first is line 1)", "cat j j");
}

// What JournalWriter writes: every record but those other processes append (signal,
// incomplete) ends in "seq", its number in the writer's order, counting run_start as 1.
std::vector<std::string> numbered(std::vector<std::string> lines) {
  long long seq = 1;  // journal_of's run_start
  for (auto& l : lines)
    if (l.find("\"type\":\"signal\"") == std::string::npos && l.find("\"type\":\"incomplete\"") == std::string::npos)
      l.insert(l.size() - 1, ",\"seq\":" + std::to_string(++seq));
  return lines;
}

TEST(JournalOrder, ALineWrittenTwiceIsRefusedNamingBothLines) {
  auto run = numbered(well_ordered_run());
  EXPECT_EQ(parse(journal_of(run)).samples.size(), 5u);
  const std::string line5 = run[3];
  run.insert(run.begin() + 5, line5);  // line 5 again, as line 7
  expect_refused(journal_of(run), 7, "duplicate of line 5 (record seq 5 twice)", "one sample line twice");
  // Far apart, across the reader's batches (16384 lines) and threads.
  std::vector<std::string> many = {R"({"type":"probe_begin","probe":"m","time":"t","deadline_s":5})"};
  for (int i = 0; i < 40000; ++i)
    many.push_back(R"({"iter":)" + std::to_string(i) + R"(,"metric":"m.a","place":"n1","probe":"m","rank":0,"type":"sample","value":1})");
  many = numbered(many);
  const std::string line125 = many[123];
  many.insert(many.begin() + 30000, line125);  // line 125 repeated as line 30002
  expect_refused(journal_of(many), 30002, "duplicate of line 125", "far apart");
  // Two lines swapped.
  many.erase(many.begin() + 30000);
  std::swap(many[200], many[201]);
  expect_refused(journal_of(many), 203, "out of order: record seq 202 after seq 203 (line 202)", "two lines swapped");
}

// A probe may take the same measurement twice: the adaptive planner pairs two hosts again in a
// later round, and p2p.completed of that pair is then the same line but for its seq. Such a
// journal is read (it was refused while duplicates were found by content: report_scale's
// 1024-host journal, whose planner measured node0467~node0969 twice in pass 1).
TEST(JournalOrder, TheSameMeasurementTwiceIsRead) {
  const std::string completed =
      R"({"iter":0,"metric":"p2p.completed","params":{"direction":"a->b","pass":1},"place":"a~b","probe":"p2p","rank":3,"type":"sample","unit":"bool","value":1.0})";
  const auto run = numbered({R"({"type":"probe_begin","probe":"p2p","time":"t","deadline_s":5})", completed, completed,
                             R"({"type":"probe_end","probe":"p2p","time":"t","elapsed_s":1})"});
  EXPECT_EQ(parse(journal_of(run)).samples.size(), 2u);
  // A journal from before seq was written is read as it is: equal lines cannot be told apart.
  EXPECT_EQ(parse(journal_of({completed, completed})).samples.size(), 2u);
}

TEST(JournalOrder, ASeqThatIsNotARecordNumberIsRefused) {
  expect_refused(journal_of({R"({"metric":"m.a","place":"n1","type":"sample","value":1,"seq":0})"}), 2,
                 "\"seq\" 0 is not a record number", "seq 0");
  expect_refused(journal_of({R"({"type":"run_end","time":"t","seq":"2"})"}), 2, "\"seq\" is not a whole number", "seq text");
}

TEST(JournalOrder, RecordsOutOfTheWritersOrderAreRefusedNamingTheirLine) {
  struct Case {
    const char* label;
    std::function<void(std::vector<std::string>&)> edit;  // of well_ordered_run(), whose [i] is line i + 2
    int line;
    std::string says;
  };
  const std::string sample_m = R"({"metric":"m.b","place":"n1","probe":"m","rank":0,"type":"sample","value":3})";
  const std::vector<Case> cases = {
      {"a sample after run_end", [&](auto& v) { v.push_back(sample_m); }, 18, "sample after run_end (line 15)"},
      {"a probe_begin after run_end", [&](auto& v) { v.push_back(std::string(v[2])); }, 18, "probe_begin after run_end (line 15)"},
      {"a second run_end", [&](auto& v) { v.push_back(std::string(v[13])); }, 18, "run_end after run_end (line 15)"},
      {"a probe_end of a probe never begun",
       [&](auto& v) { v.insert(v.begin() + 8, R"({"type":"probe_end","probe":"x","time":"t","elapsed_s":1})"); }, 10,
       "probe_end for \"x\" before its probe_begin"},
      {"the second entry's probe_end without its probe_begin", [&](auto& v) { v.erase(v.begin() + 8, v.begin() + 11); },
       10, "probe_end for probe \"m\" after its probe_end (line 9)"},
      {"a probe_end twice", [&](auto& v) { v.insert(v.begin() + 8, std::string(v[7])); }, 10,
       "probe_end for probe \"m\" after its probe_end (line 9)"},
      {"an outcome after its probe_end", [&](auto& v) { v.insert(v.begin() + 8, std::string(v[5])); }, 10,
       "outcome for probe \"m\" after its probe_end (line 9)"},
      {"an outcome twice", [&](auto& v) { v.insert(v.begin() + 6, std::string(v[5])); }, 8,
       "a second outcome for rank 0 of probe \"m\" (the first is line 7)"},
      {"a probe_begin inside another probe", [&](auto& v) { v.insert(v.begin() + 4, std::string(v[2])); }, 6,
       "probe_begin of \"m\" while probe \"m\" (begun line 4) has not ended"},
      {"a sample of another probe inside a probe",
       [&](auto& v) { v.insert(v.begin() + 4, R"({"metric":"x.a","place":"n1","probe":"x","rank":0,"type":"sample","value":1})"); },
       6, "sample of probe \"x\" inside probe \"m\" (begun line 4)"},
      {"a sample between two probes", [&](auto& v) { v.insert(v.begin() + 8, sample_m); }, 10,
       "sample of probe \"m\" between the probe_end of \"m\" (line 9) and the probe_begin of \"m\" (line 11)"},
      {"a run_end inside a probe", [&](auto& v) { v.erase(v.begin() + 11, v.begin() + 13); }, 13,
       "run_end while probe \"m\" (begun line 10) has not ended"},
      {"a second topology record for a host", [&](auto& v) { v.insert(v.begin() + 1, std::string(v[0])); }, 3,
       "a second topology record for host \"n1\" (the first is line 2)"},
  };
  for (const auto& c : cases) {
    auto run = well_ordered_run();
    c.edit(run);
    expect_refused(journal_of(run), c.line, c.says, c.label);
  }
  // Without run_start at all, as before: not a gpuaccept journal.
  auto no_start = well_ordered_run();
  expect_refused(journal_of(no_start).substr(std::string(kStart).size() + 1), 1, "topology before any run_start", "no run_start");
}

// Found by a hostile-input run of fuzz_journal (tests/fuzz/): a line nested a hundred thousand
// levels deep parses (nlohmann's parser keeps its own stack) but overflowed the stack when the
// record was copied (SIGSEGV). Records deeper than the writer's are refused naming the line,
// whether they are samples, other records or the last line.
TEST(JournalRead, RecordsNestedPastTheWritersDepthAreRefusedNamingTheirLine) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const auto& line : {R"({"type":"sample","metric":"m.a","place":"n1","value":1,"params":{"x":)" + deep + "}}",
                           R"({"type":"probe_begin","probe":"p","time":"t","x":)" + deep + "}"}) {
    for (bool last : {false, true}) {
      std::vector<std::string> lines = {line};
      if (!last) lines.push_back(R"({"type":"run_end","time":"t"})");
      try {
        parse(journal_of(lines));
        ADD_FAILURE() << "a record nested 100000 deep was read";
      } catch (const JournalError& e) {
        EXPECT_EQ(e.line, 2);
        EXPECT_NE(std::string(e.what()).find("j.jsonl:2: JSON nested deeper than 64 levels"), std::string::npos) << e.what();
      }
    }
  }
  // 40 levels (a suite's params at their deepest) still read.
  const std::string forty = std::string(40, '[') + std::string(40, ']');
  EXPECT_EQ(parse(journal_of({R"({"type":"sample","metric":"m.a","place":"n1","value":1,"params":{"x":)" + forty + "}}"}))
                .samples.size(), 1u);
}

}  // namespace
}  // namespace ga
