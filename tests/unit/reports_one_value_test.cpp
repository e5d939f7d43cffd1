// One value, one text. A bandwidth (4.5123e11 B/s) and a latency (9.3e-7 s) are judged by the
// real judge; its verdicts, reasons and all, go into a small hand-built judgement, and every
// writer prints it. The verdict's reason, report.md, report.html and report.junit.xml must
// print each value as the same text (base::format_quantity's), and none may print it another
// way (the writers' old 4-figure rule gave "451.2 GB/s" and "0.93 us" next to the judge's
// "451 GB/s" and "930 ns").
#include <gtest/gtest.h>

#include "topology/place.hpp"
#include <pugixml.hpp>

#include <string>
#include <vector>

#include "base/quantity.hpp"
#include "reports/report.hpp"
#include "reports_fixture.hpp"
#include "scratch_dir.hpp"
#include "suites_fixture.hpp"

namespace ga {
namespace {

struct Held {
  std::string criterion, metric;
  double value;
  std::string unit;
  std::string text;                       // how every output prints it
  std::string bound;                      // how every output prints its bound
  std::vector<std::string> other_forms;   // what no output may print
};

const std::vector<Held>& held() {
  static const std::vector<Held> h = {
      {"one-bw", "x.bw", 4.5123e11, "B/s", "451 GB/s", ">= 500 GB/s", {"451.2 GB/s", "451.23 GB/s", "0.451 TB/s"}},
      {"one-lat", "x.lat", 9.3e-7, "s", "930 ns", "<= 500 ns", {"0.93 us", "0.930 us", "9.3e-07"}},
  };
  return h;
}

const std::string kPlace = "node2/gpu:0";  // a place of the reports fixture's topology

// The judge's own verdicts for the held values, then moved onto a place the reports
// fixture's journal describes (the reasons name no place, so they stay as the judge wrote them).
Judgement judged_by_hand() {
  testing::JournalBuilder b({"n1"});
  b.probe("x");
  for (const auto& h : held()) b.sample(h.metric, "n1", h.value, h.unit);
  const Judgement judged = judge(b.build(), testing::criteria("  - {name: one-bw, metric: x.bw, compare: \">=\", value: 5.0e11}\n"
                                                              "  - {name: one-lat, metric: x.lat, compare: \"<=\", value: 5.0e-7}\n"));
  Judgement g;
  for (const auto& h : held()) {
    const Verdict* v = testing::verdict_at(judged, h.criterion, "n1");
    EXPECT_NE(v, nullptr) << h.criterion;
    if (!v) continue;
    Verdict moved = *v;
    moved.place = kPlace;
    g.verdicts.push_back(moved);
    g.metrics.push_back(test::metric(h.metric, kPlace, h.value, h.unit));
  }
  g.probes = {ProbeSummary{"x", ProbeStatus::ok, "", {}}};
  g.summary = judged.summary;
  return g;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::string line_with(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) return "";
  const auto b = text.rfind('\n', at);
  const auto e = text.find('\n', at);
  return text.substr(b == std::string::npos ? 0 : b + 1, e == std::string::npos ? std::string::npos : e - b - 1);
}

TEST(ReportsOneValue, TheFormatterIsTheOneEveryOutputUses) {
  for (const auto& h : held()) {
    EXPECT_EQ(base::format_quantity(h.value, h.unit), h.text);
    EXPECT_EQ(base::format_quantity(h.unit == "B/s" ? 5e11 : 5e-7, h.unit), h.bound.substr(3));
  }
}

TEST(ReportsOneValue, ReasonMarkdownHtmlAndJunitPrintTheSameText) {
  const Judgement g = judged_by_hand();
  ASSERT_EQ(g.verdicts.size(), held().size());
  ScratchDir tmp;
  write_report_files(build_report(test::make_journal(), g), tmp.str());
  const std::string md = test::read_file((tmp.p / "report.md").string());
  const std::string html = test::read_file((tmp.p / "report.html").string());
  const std::string junit = test::read_file((tmp.p / "report.junit.xml").string());
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_buffer(junit.data(), junit.size()));

  for (std::size_t i = 0; i < held().size(); ++i) {
    const Held& h = held()[i];
    const Verdict& v = g.verdicts[i];
    SCOPED_TRACE(h.criterion);

    // The judge's reason.
    EXPECT_EQ(v.reason.rfind(h.metric + " " + h.text + " is ", 0), 0u) << v.reason;
    EXPECT_NE(v.reason.find(h.bound.substr(3)), std::string::npos) << v.reason;

    // report.md: the failing verdict's row (value and bound cells, then the reason) and the
    // host table's row of the metric.
    EXPECT_NE(md.find("| error | fail | " + h.criterion + " | " + kPlace + " | " + h.text + " | " + h.bound + " | " +
                      v.reason + " |"),
              std::string::npos)
        << line_with(md, "| " + h.criterion + " |");
    EXPECT_NE(line_with(md, "| " + h.metric + " |").find("| " + h.text + " |"), std::string::npos)
        << line_with(md, "| " + h.metric + " |");

    // report.html: the failing verdict's value cell, bound cell and reason.
    EXPECT_NE(html.find("<td class=\"n\">" + h.text + "<td>" + (h.bound[0] == '>' ? "&gt;" : "&lt;") + h.bound.substr(1) +
                        "<td>" + v.reason),
              std::string::npos);
    // ... and the metric's row in its host's table.
    EXPECT_NE(html.find("<td>" + h.metric + "<td><td class=\"n\">" + h.text + "<td>"), std::string::npos)
        << line_with(html, "<td>" + h.metric + "<td>");

    // report.junit.xml: the failure names the place; its text the value, bound and reason.
    pugi::xml_node failure;
    for (auto s : doc.child("testsuites").children("testsuite"))
      for (auto c : s.children("testcase"))
        if (h.criterion + " [" + place::to_string(place::kind(kPlace)) + "] node fault" == c.attribute("name").value())
          failure = c.child("failure");
    ASSERT_TRUE(failure) << junit;
    EXPECT_EQ(std::string(failure.attribute("message").value()), std::string("1 place: ") + kPlace);
    const std::string body = failure.text().get();
    EXPECT_NE(body.find(std::string(kPlace) + ": fail, value " + h.text + ", bound " + h.bound + ": " + v.reason + "\n"),
              std::string::npos)
        << body;

    // No output prints the value another way.
    for (const auto& other : h.other_forms) {
      EXPECT_EQ(v.reason.find(other), std::string::npos) << other;
      EXPECT_EQ(count(md, other), 0u) << other;
      EXPECT_EQ(count(html, other), 0u) << other;
      EXPECT_EQ(count(junit, other), 0u) << other;
    }
  }
}

}  // namespace
}  // namespace ga
