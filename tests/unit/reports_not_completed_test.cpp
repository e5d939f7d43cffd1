// A measurement that never completed is shown as not completed by every writer: no value,
// no stand-in number, the reason saying what did not complete (issue 9).
#include <gtest/gtest.h>

#include <sstream>

#include "reports/report.hpp"
#include "reports_fixture.hpp"

namespace ga {
namespace {

struct NotCompletedRun {
  JournalData journal = test::make_journal();
  Judgement judgement = test::make_judgement();
  NotCompletedRun() {
    Metric m = test::metric("p2p.host_slowdown", "node10", std::nullopt, "x",
                            {{"basis", "bw"}, {"direction", "out"}, {"path", "inter"}, {"size", 4194304}});
    m.not_completed = "no measurement completed: bandwidth window ended before the transfer";
    judgement.metrics.push_back(m);
    Verdict v = test::verdict("p2p-host-slowdown", "p2p.host_slowdown", "node10", VerdictStatus::fail, std::nullopt,
                              "x", {{"op", "<="}, {"value", 3}},
                              "p2p.host_slowdown did not complete (" + *m.not_completed + ")");
    v.params = m.params;
    v.not_completed = m.not_completed;
    judgement.verdicts.push_back(v);
  }
  Report report() const { return build_report(journal, judgement); }
};

// The line of `text` that holds `needle` (empty when none).
std::string line_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l.find(needle) != std::string::npos) return l;
  return {};
}

TEST(ReportsNotCompleted, MarkdownSaysDidNotComplete) {
  NotCompletedRun run;
  const std::string md = report_to_markdown(run.report());
  const std::string row = line_with(md, "p2p-host-slowdown");
  ASSERT_FALSE(row.empty()) << md;
  // The value cell itself (severity | status | criterion | place | value | bound | reason).
  std::vector<std::string> cells;
  for (std::size_t at = 0, bar; (bar = row.find(" | ", at)) != std::string::npos; at = bar + 3)
    cells.push_back(row.substr(at, bar - at));
  ASSERT_GE(cells.size(), 5u) << row;
  EXPECT_EQ(cells[4], "did not complete") << row;
  EXPECT_EQ(md.find("1000000"), std::string::npos);
  EXPECT_EQ(md.find("1e+06"), std::string::npos);
}

TEST(ReportsNotCompleted, HtmlSaysDidNotComplete) {
  NotCompletedRun run;
  const std::string html = report_to_html(run.report());
  EXPECT_NE(html.find("<td class=\"n\">did not complete"), std::string::npos);
  EXPECT_EQ(html.find("1000000"), std::string::npos);
}

TEST(ReportsNotCompleted, JunitSaysDidNotComplete) {
  NotCompletedRun run;
  const std::string xml = report_to_junit(run.report());
  EXPECT_NE(xml.find("value did not complete,"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("1000000"), std::string::npos);
}

TEST(ReportsNotCompleted, JsonHasNoValueAndSaysWhy) {
  NotCompletedRun run;
  const nlohmann::json j = report_to_json(run.report());
  bool seen = false;
  for (const auto& v : j["verdicts"]) {
    if (v["criterion"] != "p2p-host-slowdown") continue;
    seen = true;
    EXPECT_TRUE(v["value"].is_null());
    EXPECT_NE(v["not_completed"].get<std::string>().find("window ended"), std::string::npos);
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace ga
