// Hostile suite and criteria files (issue 14 item 8), found by the fuzz targets (tests/fuzz/):
// each made the parser throw something other than its own error (no file, no line: yaml-cpp's
// conversion errors, nlohmann's UTF-8 error when the run recorded the text) or expand without
// bound. Each is now refused naming the file and the line.
#include <string>

#include <gtest/gtest.h>

#include "suites/criteria.hpp"
#include "suites/suite_file.hpp"

using namespace ga;

namespace {

void expect_suite_refused(const std::string& text, const std::string& where, const std::string& says) {
  try {
    parse_suite(text, "hostile.yaml");
    ADD_FAILURE() << "parsed: " << text.substr(0, 200);
  } catch (const SuiteError& e) {
    EXPECT_NE(std::string(e.what()).find("hostile.yaml" + where + ": " + says), std::string::npos) << e.what();
  }
}

}  // namespace

// Found by fuzz_suite: a byte that is not UTF-8 in a parameter was accepted, and the journal's
// JSON writer threw "invalid UTF-8 byte" when the run started.
TEST(SuiteHostileInput, TextThatIsNotUtf8) {
  expect_suite_refused("name: x\nprobes:\n  - name: hostmem\n    params:\n      iterations: 6\xff\n", ":5",
                       "not UTF-8 text");
}

// Values of the wrong shape threw yaml-cpp's conversion error, which names neither file nor line.
TEST(SuiteHostileInput, WrongShapesNameTheirLine) {
  expect_suite_refused("schema_version: [1]\nprobes: [hostmem]\n", ":1", "schema_version must be a single value");
  expect_suite_refused("probes: [hostmem]\nname: {a: b}\n", ":2", "name must be a single value");
  expect_suite_refused("probes: [hostmem]\ndescription: [a, b]\n", ":2", "description must be a single value");
  expect_suite_refused("? [a, b]\n: 1\nprobes: [hostmem]\n", ":1", "a key must be a single value");
  expect_suite_refused("probes:\n  - name: [hostmem]\n", ":2", "a probe's name must be a single value");
  expect_suite_refused("probes:\n  - name: hostmem\n    params:\n      ? [a]\n      : 1\n", ":4",
                       "a parameter name must be a single value");
}

// Anchors of anchors ("billion laughs"): ten lines would expand to 10^9 values in the params' JSON.
TEST(SuiteHostileInput, AliasExpansionIsBounded) {
  std::string y = "name: lol\nprobes:\n  - name: hostmem\n    params:\n      a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    y += "      a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) y += (k ? ", *a" : "*a") + std::to_string(i - 1);
    y += "]\n";
  }
  try {
    parse_suite(y, "hostile.yaml");
    ADD_FAILURE() << "parsed";
  } catch (const SuiteError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 100000 parameter values"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("hostile.yaml:", 0), 0u) << e.what();
  }
}

// Deep nesting stops at yaml-cpp's depth bound (a ParserException), named like any YAML error.
TEST(SuiteHostileInput, DeepNesting) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    parse_suite("name: x\nprobes:\n  - name: hostmem\n    params: {a: " + deep + "}\n", "hostile.yaml");
    ADD_FAILURE() << "parsed";
  } catch (const SuiteError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("hostile.yaml:4:", 0), 0u) << e.what();
  }
  // Under yaml-cpp's bound, but past what the journal reader takes back (64 levels a record).
  expect_suite_refused("name: x\nprobes:\n  - name: hostmem\n    params: {a: " + std::string(40, '[') +
                           std::string(40, ']') + "}\n",
                       ":4", "parameters nested deeper than 32 levels");
  try {
    parse_criteria("schema_version: 1\ncriteria: " + deep + "\n", "hostile.yaml");
    ADD_FAILURE() << "parsed";
  } catch (const CriteriaError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("hostile.yaml:2:", 0), 0u) << e.what();
  }
}

// The run records the criteria text in its journal (JSON): it must be UTF-8.
TEST(CriteriaHostileInput, TextThatIsNotUtf8) {
  try {
    parse_criteria("schema_version: 1\ncriteria:\n  - name: a\xc3\x28\n", "hostile.yaml");
    ADD_FAILURE() << "parsed";
  } catch (const CriteriaError& e) {
    EXPECT_EQ(e.line, 3);
    EXPECT_NE(std::string(e.what()).find("hostile.yaml:3: not UTF-8 text"), std::string::npos) << e.what();
  }
}

// Found by fuzz_suite: yaml-cpp turned "\x1f\0_" inside a plain scalar into the lone byte 0xA0 (not
// UTF-8), so the UTF-8 check of the text alone did not keep it out of the journal. Control
// characters are outside YAML's printable set and refused before yaml-cpp reads the text.
TEST(SuiteHostileInput, ControlCharacters) {
  expect_suite_refused(std::string("name: x\nprobes: [hostmem]\ndescription: a\x1f", 41) + std::string(1, '\0') + "_b\n",
                       ":3", "control character");
  try {
    parse_criteria(std::string("schema_version: 1\n\ncriteria: []\x7f\n"), "hostile.yaml");
    ADD_FAILURE() << "parsed";
  } catch (const CriteriaError& e) {
    EXPECT_NE(std::string(e.what()).find("hostile.yaml:3: control character"), std::string::npos) << e.what();
  }
}
