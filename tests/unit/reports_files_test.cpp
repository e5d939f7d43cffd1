// write_report_files: all four files, whole, renamed into place, nothing left behind, and nothing
// from the environment in them.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "reports/report.hpp"
#include "reports_fixture.hpp"

namespace ga {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ga-reports-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

const std::vector<std::string> kAllFiles = {"report.html", "report.json", "report.junit.xml", "report.md"};

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ReportsFiles, WritesBothFilesAndNoTempFile) {
  TempDir tmp;
  auto j = test::make_journal();
  auto g = test::make_judgement();
  Report r = build_report(j, g);
  write_report_files(r, tmp.path.string());
  EXPECT_EQ(entries(tmp.path), kAllFiles);
  auto json_text = test::read_file((tmp.path / "report.json").string());
  EXPECT_EQ(nlohmann::json::parse(json_text), report_to_json(r));
  EXPECT_EQ(test::read_file((tmp.path / "report.md").string()), report_to_markdown(r));
  EXPECT_EQ(test::read_file((tmp.path / "report.html").string()), report_to_html(r));
  EXPECT_EQ(test::read_file((tmp.path / "report.junit.xml").string()), report_to_junit(r));
  auto perms = fs::status(tmp.path / "report.json").permissions();
  EXPECT_NE(perms & fs::perms::others_read, fs::perms::none);

  // A second write replaces the first whole.
  g.summary.overall = "PASS";
  write_report_files(build_report(j, g), tmp.path.string());
  EXPECT_EQ(entries(tmp.path), kAllFiles);
  EXPECT_EQ(test::read_file((tmp.path / "report.md").string()).substr(0, 18), "# gpuaccept: PASS\n");
}

TEST(ReportsFiles, CreatesTheDirectory) {
  TempDir tmp;
  auto j = test::make_journal();
  auto g = test::make_judgement();
  auto dir = tmp.path / "run-7" / "report";
  write_report_files(build_report(j, g), dir.string());
  EXPECT_EQ(entries(dir), kAllFiles);
}

TEST(ReportsFiles, FailureLeavesTheOldFileAndNoTemp) {
  TempDir tmp;
  auto j = test::make_journal();
  auto g = test::make_judgement();
  // report.md is a directory: the rename onto it fails after report.json was written.
  fs::create_directory(tmp.path / "report.md");
  fs::create_directory(tmp.path / "report.md" / "keep");
  EXPECT_THROW(write_report_files(build_report(j, g), tmp.path.string()), std::runtime_error);
  for (const auto& name : entries(tmp.path)) EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
}

TEST(ReportsFiles, NoEnvironmentValueLeaks) {
  ASSERT_EQ(::setenv("GA_SECRET_TOKEN", "hunter2", 1), 0);
  TempDir tmp;
  auto j = test::make_journal();
  auto g = test::make_judgement();
  write_report_files(build_report(j, g), tmp.path.string());
  ::unsetenv("GA_SECRET_TOKEN");
  for (const char* name : {"report.json", "report.md", "report.html", "report.junit.xml"}) {
    auto text = test::read_file((tmp.path / name).string());
    ASSERT_FALSE(text.empty()) << name;
    EXPECT_EQ(text.find("hunter2"), std::string::npos) << name;
    EXPECT_EQ(text.find("GA_SECRET_TOKEN"), std::string::npos) << name;
    // the run's argv is there, from the journal
    EXPECT_NE(text.find("h200.xml"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace ga
