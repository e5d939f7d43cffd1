// write_report_files: all four files, whole, renamed into place, nothing left behind, and nothing
// from the environment in them.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "reports/attest.hpp"
#include "reports/bad_hosts.hpp"
#include "reports/report.hpp"
#include "reports_fixture.hpp"
#include "scratch_dir.hpp"

namespace ga {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kAllFiles = {"bad-hosts.txt", "manifest.json", "report.html", "report.json",
                                            "report.junit.xml", "report.md", "report.prom"};

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ReportsFiles, WritesBothFilesAndNoTempFile) {
  ScratchDir tmp;
  auto j = test::make_journal();
  auto g = test::make_judgement();
  Report r = build_report(j, g);
  write_report_files(r, tmp.p.string());
  EXPECT_EQ(entries(tmp.p), kAllFiles);
  auto json_text = test::read_file((tmp.p / "report.json").string());
  EXPECT_EQ(nlohmann::json::parse(json_text), report_to_json(r));
  EXPECT_EQ(test::read_file((tmp.p / "report.md").string()), report_to_markdown(r));
  EXPECT_EQ(test::read_file((tmp.p / "report.html").string()), report_to_html(r));
  EXPECT_EQ(test::read_file((tmp.p / "report.junit.xml").string()), report_to_junit(r));
  EXPECT_EQ(test::read_file((tmp.p / "bad-hosts.txt").string()), bad_hosts_text(bad_hosts(r)));
  auto perms = fs::status(tmp.p / "report.json").permissions();
  EXPECT_NE(perms & fs::perms::others_read, fs::perms::none);

  // A second write replaces the first whole.
  g.summary.overall = "PASS";
  write_report_files(build_report(j, g), tmp.p.string());
  EXPECT_EQ(entries(tmp.p), kAllFiles);
  EXPECT_EQ(test::read_file((tmp.p / "report.md").string()).substr(0, 18), "# gpuaccept: PASS\n");
}

TEST(ReportsFiles, CreatesTheDirectory) {
  ScratchDir tmp;
  auto j = test::make_journal();
  auto g = test::make_judgement();
  auto dir = tmp.p / "run-7" / "report";
  write_report_files(build_report(j, g), dir.string());
  EXPECT_EQ(entries(dir), kAllFiles);
}

TEST(ReportsFiles, FailureLeavesTheOldFileAndNoTemp) {
  ScratchDir tmp;
  auto j = test::make_journal();
  auto g = test::make_judgement();
  // report.md is a directory: the rename onto it fails after report.json was written.
  fs::create_directory(tmp.p / "report.md");
  fs::create_directory(tmp.p / "report.md" / "keep");
  EXPECT_THROW(write_report_files(build_report(j, g), tmp.p.string()), std::runtime_error);
  for (const auto& name : entries(tmp.p)) EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
}

TEST(ReportsFiles, NoEnvironmentValueLeaks) {
  ASSERT_EQ(::setenv("GA_SECRET_TOKEN", "hunter2", 1), 0);
  ScratchDir tmp;
  auto j = test::make_journal();
  auto g = test::make_judgement();
  write_report_files(build_report(j, g), tmp.p.string());
  ::unsetenv("GA_SECRET_TOKEN");
  for (const char* name : {"report.json", "report.md", "report.html", "report.junit.xml"}) {
    auto text = test::read_file((tmp.p / name).string());
    ASSERT_FALSE(text.empty()) << name;
    EXPECT_EQ(text.find("hunter2"), std::string::npos) << name;
    EXPECT_EQ(text.find("GA_SECRET_TOKEN"), std::string::npos) << name;
    // the run's argv is there, from the journal
    EXPECT_NE(text.find("h200.xml"), std::string::npos) << name;
  }
}

// The manifest lists what the directory held before (the journal, NCCL's logs, a report file
// of an earlier judgement) and what was written, each with the digest of what is on disk now:
// the files that were there are hashed while the report files are written, and these are
// hashed as they stream.
TEST(ReportsFiles, TheManifestHoldsWhatWasThereAndWhatWasWritten) {
  ScratchDir tmp;
  fs::create_directories(tmp.p / "nccl");
  std::ofstream(tmp.p / "samples.jsonl") << "{\"type\":\"run_start\"}\n";
  std::ofstream(tmp.p / "nccl" / "rank0.log") << "NCCL INFO\n";
  std::ofstream(tmp.p / "report.json") << "an earlier judgement's report\n";
  auto j = test::make_journal();
  auto g = test::make_judgement();
  write_report_files(build_report(j, g), tmp.p.string());
  const auto m = attest::manifest_from_json(nlohmann::json::parse(test::read_file((tmp.p / attest::kManifest).string())));
  std::vector<std::string> listed;
  for (const auto& [name, digest] : m.files) {
    listed.push_back(name);
    EXPECT_EQ(digest, attest::sha256_file((tmp.p / name).string())) << name;
  }
  EXPECT_EQ(listed, (std::vector<std::string>{"bad-hosts.txt", "nccl/rank0.log", "report.html", "report.json",
                                               "report.junit.xml", "report.md", "report.prom", "samples.jsonl"}));
  std::vector<std::string> extra;
  EXPECT_TRUE(attest::check_manifest(tmp.p.string(), m, &extra).empty());
  EXPECT_TRUE(extra.empty());
}

// What the run did not write is found without opening it (issue 34 item 4): nothing in a
// written directory is foreign; an unlisted file, a symbolic link (to /dev/zero, which a digest
// would read for ever), a FIFO and a folder with no listed file each are, by name.
TEST(ReportsFiles, ForeignEntriesAreNamedWithoutOpeningThem) {
  ScratchDir tmp;
  fs::create_directories(tmp.p / "nccl-debug");
  std::ofstream(tmp.p / "samples.jsonl") << "{\"type\":\"run_start\"}\n";
  std::ofstream(tmp.p / "nccl-debug" / "h1.0.log") << "NCCL INFO\n";
  write_report_files(build_report(test::make_journal(), test::make_judgement()), tmp.p.string());
  const auto m = attest::manifest_from_json(nlohmann::json::parse(test::read_file((tmp.p / attest::kManifest).string())));
  EXPECT_TRUE(attest::foreign_entries(tmp.p.string(), m).empty());
  std::ofstream(tmp.p / attest::kSignature) << "{}\n";  // exempt: sign writes it after the manifest
  EXPECT_TRUE(attest::foreign_entries(tmp.p.string(), m).empty());

  std::ofstream(tmp.p / "notes.txt") << "added later\n";
  std::ofstream(tmp.p / "nccl-debug" / "h9.0.log") << "added later\n";
  fs::create_symlink("/dev/zero", tmp.p / "zero.bin");
  ASSERT_EQ(::mkfifo((tmp.p / "pipe").c_str(), 0600), 0);
  fs::create_directories(tmp.p / "more" / "deeper");
  std::ofstream(tmp.p / "more" / "deeper" / "x") << "x\n";
  auto found = attest::foreign_entries(tmp.p.string(), m);
  std::sort(found.begin(), found.end());
  ASSERT_EQ(found.size(), 5u) << ::testing::PrintToString(found);
  EXPECT_EQ(found[0].rfind("more/: a folder the run did not write", 0), 0u) << found[0];  // and nothing under it
  EXPECT_EQ(found[1].rfind("nccl-debug/h9.0.log: not in the manifest", 0), 0u) << found[1];
  EXPECT_EQ(found[2].rfind("notes.txt: not in the manifest", 0), 0u) << found[2];
  EXPECT_EQ(found[3].rfind("pipe: not a regular file", 0), 0u) << found[3];
  EXPECT_EQ(found[4].rfind("zero.bin: a symbolic link", 0), 0u) << found[4];

  // A listed file replaced by a link is named by the manifest check, not followed.
  fs::remove(tmp.p / "report.md");
  fs::create_symlink("/dev/zero", tmp.p / "report.md");
  const auto bad = attest::check_manifest(tmp.p.string(), m, nullptr);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].rfind("report.md: a symbolic link", 0), 0u) << bad[0];
}

}  // namespace
}  // namespace ga
