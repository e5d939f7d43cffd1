// report.json: every key of schema_version 1 (docs/report-format.md), and valid JSON always.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "reports/report.hpp"
#include "reports_fixture.hpp"

namespace ga {
namespace {

using nlohmann::json;

std::set<std::string> keys(const json& o) {
  std::set<std::string> k;
  for (auto it = o.begin(); it != o.end(); ++it) k.insert(it.key());
  return k;
}

void expect_keys(const json& o, std::initializer_list<const char*> required, const std::string& what) {
  ASSERT_TRUE(o.is_object()) << what;
  for (const char* k : required) EXPECT_TRUE(o.contains(k)) << what << " lacks " << k;
}

json report_json() {
  static const auto j = test::make_journal();
  static const auto g = test::make_judgement();
  return report_to_json(build_report(j, g));
}

TEST(ReportsJson, HasEveryRequiredKey) {
  json doc = report_json();
  expect_keys(doc, {"schema_version", "run", "topology", "expected_topology", "probes", "metrics", "verdicts",
                    "incomplete", "summary"},
              "report");
  EXPECT_EQ(doc["schema_version"], 1);
  expect_keys(doc["run"], {"started", "ended", "argv", "hosts", "ranks_per_host", "ranks", "versions", "slurm",
                           "suite", "probe_timeout_s", "criteria"},
              "run");
  expect_keys(doc["run"]["versions"],
              {"gpuaccept", "mpi", "hwloc", "cuda_driver", "cuda_runtime", "nccl", "libibverbs"}, "versions");
  expect_keys(doc["run"]["criteria"], {"source", "text"}, "criteria");
  ASSERT_EQ(doc["run"]["ranks"].size(), 4u);
  expect_keys(doc["run"]["ranks"][2], {"rank", "host", "local_rank", "pid"}, "rank");
  EXPECT_EQ(doc["run"]["ranks"][2]["pid"], 5201);
  ASSERT_TRUE(doc["topology"]["hosts"].is_array());
  EXPECT_EQ(doc["topology"]["hosts"].size(), 2u);
  EXPECT_TRUE(doc["expected_topology"].is_null());
  ASSERT_EQ(doc["probes"].size(), 2u);
  for (const auto& p : doc["probes"]) expect_keys(p, {"name", "status", "reason", "hosts"}, "probe");
  EXPECT_EQ(doc["probes"][1]["status"], "timeout");
  // per-host detail: rank 3's own outcome under node10
  EXPECT_EQ(doc["probes"][1]["hosts"][1]["host"], "node10");
  EXPECT_EQ(doc["probes"][1]["hosts"][1]["ranks"][0]["reason"], "killed by SIGKILL");
  ASSERT_EQ(doc["metrics"].size(), 9u);
  for (const auto& m : doc["metrics"])
    EXPECT_EQ(keys(m), (std::set<std::string>{"metric", "place", "params", "unit", "value", "min", "max", "count",
                                              "text"}));
  expect_keys(doc["summary"],
              {"pass", "fail", "missing", "skipped", "tool_error", "inconclusive", "overall", "exit_code"}, "summary");
  EXPECT_EQ(doc["summary"]["overall"], "INCOMPLETE");
  EXPECT_EQ(doc["summary"]["exit_code"], 3);
  EXPECT_EQ(doc["places"]["node2/gpu:1"], "GPU 1 (NUMA 1, PCI 0000:4e:00.0)");
}

TEST(ReportsJson, VerdictsHaveExactlyTheSchemaKeys) {
  const std::set<std::string> required{"criterion", "place",     "status", "outcome", "value",
                                       "unit",      "bounds",    "reference", "reason"};
  const std::set<std::string> optional{"metric", "severity", "text", "params", "not_completed"};
  json doc = report_json();
  ASSERT_EQ(doc["verdicts"].size(), 7u);
  for (const auto& v : doc["verdicts"]) {
    for (const auto& k : required) EXPECT_TRUE(v.contains(k)) << v.dump() << " lacks " << k;
    for (const auto& k : keys(v)) EXPECT_TRUE(required.count(k) || optional.count(k)) << "unexpected key " << k;
  }
  EXPECT_EQ(doc["verdicts"][0]["reference"], 1.25e11);
  // The three outcomes an operator acts on, apart: drain, fix the tool, re-test.
  std::map<std::string, std::string> outcome;
  for (const auto& v : doc["verdicts"]) outcome[v["criterion"].get<std::string>() + "@" + v["place"].get<std::string>()] = v["outcome"];
  EXPECT_EQ(outcome["gpu-hbm-bw@node2/gpu:1"], "node_fault");
  EXPECT_EQ(outcome["gpu-hbm-bw@node10/gpu:1"], "node_fault");  // missing
  EXPECT_EQ(outcome["gpu-hbm-bw@node10/gpu:0"], "tool_error");
  EXPECT_EQ(outcome["hostmem-triad@node2/numa:1"], "none");
  EXPECT_EQ(doc["verdicts"][1]["severity"], "warning");
  EXPECT_FALSE(doc["verdicts"][0].contains("text"));    // numeric verdicts carry no text
  EXPECT_EQ(doc["verdicts"][6]["text"], "550.54.15");   // text verdicts do
  EXPECT_EQ(doc["verdicts"][6]["reference"], "550.54.15");
  EXPECT_EQ(doc["verdicts"][4]["status"], "missing");
}

TEST(ReportsJson, IncompleteNamesRanksAndHosts) {
  json inc = report_json()["incomplete"];
  expect_keys(inc, {"probe", "reason", "missing_ranks", "waiting_ranks", "detected_by"}, "incomplete");
  EXPECT_EQ(inc["probe"], "nccl");
  ASSERT_EQ(inc["missing_ranks"].size(), 1u);
  EXPECT_EQ(inc["missing_ranks"][0], (json{{"rank", 3}, {"host", "node10"}}));
  EXPECT_EQ(inc["waiting_ranks"].size(), 3u);
  EXPECT_EQ(inc["detected_by"], 0);

  auto j = test::make_journal();
  auto g = test::make_judgement();
  g.incomplete.reset();
  EXPECT_TRUE(report_to_json(build_report(j, g))["incomplete"].is_null());
}

TEST(ReportsJson, NonFiniteNumbersBecomeNull) {
  json doc = report_json();
  const json& nan_metric = doc["metrics"][4];
  ASSERT_EQ(nan_metric["place"], "node10/gpu:0");
  EXPECT_TRUE(nan_metric["value"].is_null());
  EXPECT_TRUE(nan_metric["min"].is_null());
  const json& nan_verdict = doc["verdicts"][3];
  EXPECT_TRUE(nan_verdict["value"].is_null());
  EXPECT_TRUE(nan_verdict["bounds"]["value"].is_null());
  // and the text parses back: no NaN or Infinity tokens
  std::string text = doc.dump();
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_NO_THROW(json::parse(text));
}

TEST(ReportsJson, StreamedTextIsTheSameDocument) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  g.metrics[0].params = {{"bad", std::numeric_limits<double>::infinity()}};
  g.verdicts[0].reason = "invalid utf-8 \xff here";  // driver text can be anything
  Report r = build_report(j, g);
  std::ostringstream out;
  write_report_json(r, out);
  json streamed = json::parse(out.str());
  json dom = report_to_json(r);
  EXPECT_TRUE(streamed["metrics"][0]["params"]["bad"].is_null());
  // the bad byte is replaced in the text; everything else is identical
  streamed["verdicts"][0].erase("reason");
  dom["verdicts"][0].erase("reason");
  EXPECT_EQ(streamed, dom);
}

// Metric and verdict lines are written field by field (no object built first); each must be
// exactly what dumping the object gives: keys sorted, compact, the same number format.
TEST(ReportsJson, StreamedLinesAreCanonicalDumps) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  g.metrics[0].params = {{"bad", std::numeric_limits<double>::infinity()}, {"a", 1.5e-7}};
  g.verdicts[0].reference_text = "text reference";
  g.verdicts[0].reference.reset();
  g.metrics[0].note = "kept \"a\" (2x); also seen \"b\" (1x)";  // a key between not_completed and params
  Report r = build_report(j, g);
  std::ostringstream out;
  write_report_json(r, out);
  std::istringstream in(out.str());
  std::size_t checked = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("{\"", 0) != 0) continue;
    if (line.back() == ',') line.pop_back();
    EXPECT_EQ(json::parse(line).dump(), line);
    ++checked;
  }
  EXPECT_EQ(checked, g.metrics.size() + g.verdicts.size());
  EXPECT_NE(out.str().find(R"x("note":"kept \"a\" (2x); also seen \"b\" (1x)","params":)x"), std::string::npos);
}

}  // namespace
}  // namespace ga
