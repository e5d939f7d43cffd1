// The criteria parser: the accepted forms, and one test per kind of mistake, each pinned to
// the line a person would have to fix.
#include <gtest/gtest.h>

#include <fstream>

#include "suites/criteria.hpp"

namespace ga {
namespace {

// Parses and returns the error; fails the test when the text parses.
CriteriaError error_of(const std::string& yaml) {
  try {
    parse_criteria(yaml, "c.yaml");
  } catch (const CriteriaError& e) {
    return e;
  }
  ADD_FAILURE() << "parsed without error:\n" << yaml;
  return CriteriaError("", -1, "");
}

void expect_error(const std::string& yaml, int line, const std::string& fragment) {
  CriteriaError e = error_of(yaml);
  EXPECT_EQ(e.line, line) << e.what();
  EXPECT_EQ(e.file, "c.yaml");
  EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).rfind("c.yaml:" + std::to_string(line) + ": ", 0), 0u) << e.what();
}

TEST(Criteria, ParsesEveryForm) {
  auto set = parse_criteria(R"(schema_version: 1
criteria:
  - name: hostmem.triad.uniform
    metric: hostmem.triad_bw
    compare: within_pct_of_median
    pct: 35
    scope: numa
    where: {size: 4194304, mode: "fast", pinned: true}
    severity: warning
    required: auto
    description: "one line"
  - name: gpus
    metric: topology.gpu_count
    compare: equals
    value: expected
    required: true
  - name: p2p
    metric: p2p.bw
    compare: ">="
    value: {fraction: 0.9, of: topology.nic_rate_gbps}
    required: false
    unit: B/s
  - name: range
    metric: x.y
    compare: between
    low: 1.0e9
    high: {fraction: 2, of: median}
  - name: text
    metric: inventory.kernel
    compare: equals
    value: "6.1.0"
  - name: ceiling
    metric: lat.us
    compare: "<="
    value: majority
  - name: versions
    metric: inventory.version.*
    compare: equals
    value: majority
)",
                            "f.yaml");
  ASSERT_EQ(set.criteria.size(), 7u);
  EXPECT_EQ(set.source, "f.yaml");
  const auto& u = set.criteria[0];
  EXPECT_EQ(u.comparator, Comparator::within_pct_of_median);
  EXPECT_EQ(u.pct, 35);
  EXPECT_EQ(u.scope, "numa");
  EXPECT_EQ(u.where, (nlohmann::json{{"size", 4194304}, {"mode", "fast"}, {"pinned", true}}));
  EXPECT_TRUE(u.where["size"].is_number_integer());  // compares equal to the journal's integers
  EXPECT_EQ(u.severity, Severity::warning);
  EXPECT_EQ(u.required, Required::automatic);
  EXPECT_EQ(u.description, "one line");
  EXPECT_EQ(u.line, 3);

  EXPECT_EQ(set.criteria[1].value.of, "expected");
  EXPECT_EQ(set.criteria[1].required, Required::yes);
  EXPECT_EQ(set.criteria[1].severity, Severity::error);
  EXPECT_EQ(set.criteria[2].comparator, Comparator::ge);
  EXPECT_EQ(set.criteria[2].value.of, "topology.nic_rate_gbps");
  EXPECT_DOUBLE_EQ(set.criteria[2].value.fraction, 0.9);
  EXPECT_EQ(set.criteria[2].required, Required::no);
  EXPECT_EQ(set.criteria[2].unit, "B/s");
  EXPECT_EQ(set.criteria[3].comparator, Comparator::between);
  EXPECT_EQ(*set.criteria[3].low.number, 1e9);
  EXPECT_EQ(set.criteria[3].high.of, "median");
  EXPECT_EQ(set.criteria[3].high.fraction, 2);
  EXPECT_EQ(*set.criteria[4].value.text, "6.1.0");
  EXPECT_FALSE(set.criteria[4].value.number);
  EXPECT_EQ(set.criteria[5].comparator, Comparator::le);
  EXPECT_EQ(set.criteria[5].value.of, "majority");
  EXPECT_EQ(set.criteria[6].metric, "inventory.version.*");
}

// gpuaccept health's criteria: picked from the built-in file by name, thresholds unchanged,
// one made an error; a name the file lacks is an error, not an empty pick.
TEST(Criteria, SubsetPicksByNameKeepsOrderAndThresholds) {
  const std::string text = R"(schema_version: 1
criteria:
  - {name: a.one, metric: a.x, compare: "<=", value: 3, scope: gpu}
  - {name: a.two, metric: a.y, compare: equals, value: 0, severity: warning}
  - {name: a.three, metric: a.z, compare: ">=", value: majority, where: {link_layer: InfiniBand}, required: false}
)";
  const auto sub = parse_criteria(
      criteria_subset_text(text, "t.yaml", {"a.three", "a.two"}, {"a.two"}, "a subset: for a test"), "sub.yaml");
  ASSERT_EQ(sub.criteria.size(), 2u);
  EXPECT_EQ(sub.criteria[0].name, "a.two");  // the file's order, not the list's
  EXPECT_EQ(sub.criteria[0].severity, Severity::error);
  EXPECT_EQ(sub.criteria[0].value.number, 0);
  EXPECT_EQ(sub.criteria[1].name, "a.three");
  EXPECT_EQ(sub.criteria[1].value.of, "majority");
  EXPECT_EQ(sub.criteria[1].where, nlohmann::json({{"link_layer", "InfiniBand"}}));
  EXPECT_EQ(sub.criteria[1].required, Required::no);
  EXPECT_EQ(sub.criteria[1].severity, Severity::error);
  EXPECT_THROW(criteria_subset_text(text, "t.yaml", {"a.one", "a.four"}, {}, ""), CriteriaError);
  // The built-in file itself, as gpuaccept health picks from it.
  const auto b = parse_criteria(criteria_subset_text(builtin_criteria_text(), "builtin", {"gpu.xid", "gpu.remap.pending"},
                                                     {"gpu.remap.pending"}, "health"),
                                "health");
  ASSERT_EQ(b.criteria.size(), 2u);
  EXPECT_EQ(b.criteria[1].name, "gpu.xid");
  EXPECT_EQ(b.criteria[0].severity, Severity::error);
}

TEST(Criteria, QuotedNumberIsText) {
  auto set = parse_criteria("schema_version: 1\ncriteria:\n  - {name: a, metric: inventory.version.nccl, "
                            "compare: equals, value: \"2.21\"}\n",
                            "f");
  ASSERT_EQ(set.criteria.size(), 1u);
  EXPECT_EQ(*set.criteria[0].value.text, "2.21");
  EXPECT_FALSE(set.criteria[0].value.number);
}

TEST(Criteria, EmptyListIsAnEmptyContract) {
  EXPECT_TRUE(parse_criteria("schema_version: 1\ncriteria: []\n", "f").criteria.empty());
  EXPECT_TRUE(parse_criteria("schema_version: 1\ncriteria:\n", "f").criteria.empty());
}

TEST(Criteria, BoundToJson) {
  Bound abs;
  abs.number = 4.5e10;
  EXPECT_EQ(abs.to_json(), (nlohmann::json{{"value", 4.5e10}}));
  Bound txt;
  txt.text = "6.1";
  EXPECT_EQ(txt.to_json(), (nlohmann::json{{"text", "6.1"}}));
  Bound rel;
  rel.of = "median";
  rel.fraction = 0.5;
  EXPECT_EQ(rel.to_json(), (nlohmann::json{{"of", "median"}, {"fraction", 0.5}}));
  EXPECT_TRUE(Bound{}.to_json().is_null());
}

TEST(Criteria, ComparatorAndSeverityNames) {
  EXPECT_STREQ(to_string(Comparator::ge), ">=");
  EXPECT_STREQ(to_string(Comparator::le), "<=");
  EXPECT_STREQ(to_string(Comparator::between), "between");
  EXPECT_STREQ(to_string(Comparator::equals), "equals");
  EXPECT_STREQ(to_string(Comparator::within_pct_of_median), "within_pct_of_median");
  EXPECT_STREQ(to_string(Severity::warning), "warning");
  EXPECT_STREQ(to_string(Severity::error), "error");
}

const char* kHead = "schema_version: 1\ncriteria:\n";

TEST(CriteriaErrors, MalformedYaml) {
  expect_error(std::string(kHead) + "  - name: a\n    metric: [x.y\n    compare: equals\n", 5, "malformed YAML");
}

TEST(CriteriaErrors, WrongSchemaVersion) {
  expect_error("# comment\nschema_version: 2\ncriteria: []\n", 2, "schema_version \"2\" is not supported");
  expect_error("criteria: []\n", 1, "no schema_version");
}

TEST(CriteriaErrors, UnknownKeyListsTheAllowedOnes) {
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: equals\n    value: 1\n    thresold: 3\n",
               7, "unknown key \"thresold\" in a criterion (allowed: name, metric, compare, value, low, high, pct, "
                  "k, floor_pct, floor, scope, where, severity, required, unit, description, source, derivation)");
  expect_error("schema_version: 1\nrules: []\ncriteria: []\n", 2, "unknown key \"rules\" in top level");
}

TEST(CriteriaErrors, KeyGivenTwice) {
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: equals\n    value: 1\n    value: 2\n",
               7, "key \"value\" given twice");
}

TEST(CriteriaErrors, UnknownComparatorListsTheClosedSet) {
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: \">\"\n    value: 1\n", 5,
               "unknown comparator \">\" (one of \">=\", \"<=\", between, equals, within_pct_of_median, mad_outlier)");
}

TEST(CriteriaErrors, MissingMetric) {
  expect_error(std::string(kHead) + "  - name: a\n    compare: equals\n    value: 1\n", 3, "no metric");
  expect_error(std::string(kHead) + "  - name: a\n    metric: nodot\n    compare: equals\n    value: 1\n", 4,
               "is not \"<probe>.<name>\"");
  expect_error(std::string(kHead) + "  - name: a\n    metric: a.*b\n    compare: equals\n    value: 1\n", 4,
               "`*` may only end a metric name");
}

TEST(CriteriaErrors, MissingName) {
  expect_error(std::string(kHead) + "  - metric: x.y\n    compare: equals\n    value: 1\n", 3, "without a name");
}

TEST(CriteriaErrors, MissingValueForTheComparator) {
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: \">=\"\n", 3,
               "compare: >= needs a value");
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: between\n    low: 1\n", 3,
               "between needs high");
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: within_pct_of_median\n", 3,
               "needs pct");
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: \">=\"\n    value: 1\n    pct: 5\n", 7,
               "pct does not apply to compare: >=");
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: \">=\"\n    value: fast\n", 6,
               "is not a number (text values are only for compare: equals)");
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: between\n    low: 5\n    high: 2\n", 7,
               "high is below low");
}

TEST(CriteriaErrors, BadRelativeBound) {
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: \">=\"\n    value: {fraction: 0.9}\n",
               6, "needs `of`");
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: \">=\"\n    value:\n      fraction: 0.9\n"
                                    "      of: nic_rate\n",
               8, "of \"nic_rate\" is not median, majority, expected or a topology.* feature");
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: \">=\"\n    value: {fraction: -1, of: median}\n",
               6, "fraction must be a positive number");
  expect_error(std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: \">=\"\n    value: {of: median, by: 2}\n",
               6, "unknown key \"by\" in value (allowed: fraction, of)");
}

TEST(CriteriaErrors, PctNotAPositiveNumber) {
  const std::string c = std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: within_pct_of_median\n";
  expect_error(c + "    pct: 0\n", 6, "pct must be a positive number, got \"0\"");
  expect_error(c + "    pct: -5\n", 6, "pct must be a positive number");
  expect_error(c + "    pct: ten\n", 6, "pct must be a positive number, got \"ten\"");
  expect_error(c + "    pct: \"10\"\n", 6, "pct must be a positive number");
}

TEST(CriteriaErrors, DuplicateName) {
  expect_error(std::string(kHead) + "  - {name: a, metric: x.y, compare: equals, value: 1}\n"
                                    "  - {name: b, metric: x.y, compare: equals, value: 1}\n"
                                    "  - {name: a, metric: x.z, compare: equals, value: 2}\n",
               5, "duplicate criterion name \"a\" (first defined on line 3)");
}

TEST(CriteriaErrors, BadSeverityRequiredScope) {
  const std::string c = std::string(kHead) + "  - name: a\n    metric: x.y\n    compare: equals\n    value: 1\n";
  expect_error(c + "    severity: fatal\n", 7, "severity \"fatal\" is not error or warning");
  expect_error(c + "    required: maybe\n", 7, "required \"maybe\" is not auto, true or false");
  expect_error(c + "    scope: rack\n", 7, "scope \"rack\" is not one of host, numa, gpu, nic, pair, cluster");
  expect_error(c + "    where: 5\n", 7, "where must be a map");
}

TEST(CriteriaErrors, WrongShapes) {
  expect_error("- a\n- b\n", 1, "a criteria file is a map");
  expect_error("schema_version: 1\ncriteria: {a: 1}\n", 2, "criteria must be a list");
  expect_error(std::string(kHead) + "  - just a string\n", 3, "each criterion is a map");
}

TEST(CriteriaFile, LoadsAndNamesTheFile) {
  const std::string path = ::testing::TempDir() + "/suites_criteria_test.yaml";
  {
    std::ofstream out(path);
    out << "schema_version: 1\ncriteria:\n  - {name: a, metric: x.y, compare: equals, value: 1}\n"
           "  - {name: b, metric: x.y, compare: equals}\n";
  }
  try {
    load_criteria_file(path);
    FAIL() << "no error";
  } catch (const CriteriaError& e) {
    EXPECT_EQ(e.file, path);
    EXPECT_EQ(e.line, 4);
  }
  EXPECT_THROW(load_criteria_file(path + ".absent"), CriteriaError);
}

TEST(BuiltinCriteria, ParseAndCoverTheDefaultSuite) {
  const std::string& text = builtin_criteria_text();
  ASSERT_FALSE(text.empty()) << "criteria-default.yaml is not embedded";
  const CriteriaSet set = parse_criteria(text, "builtin");
  std::vector<std::string> metrics;
  for (const auto& c : set.criteria) metrics.push_back(c.metric);
  for (const char* m : {"inventory.gpu_count", "inventory.rdma_device_count", "inventory.version.*",
                        "inventory.kernel", "inventory.cpu_model", "inventory.memory_bytes", "topology.*",
                        "hostmem.triad_bw", "hostmem.triad_bw_cross"})
    EXPECT_NE(std::find(metrics.begin(), metrics.end(), m), metrics.end()) << m;
  // Every criterion of the built-in set explains itself.
  for (const auto& c : set.criteria) EXPECT_FALSE(c.description.empty()) << c.name;
}

}  // namespace
}  // namespace ga
