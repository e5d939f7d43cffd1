// base/file_io: a file appears whole or not at all, nothing is left behind on failure, and
// every error names the path.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <string>

#include "base/file_io.hpp"
#include "scratch_dir.hpp"

namespace ga::base {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string text_of(const std::string& path) {
  const auto b = read_whole_file(path);
  return std::string(b.begin(), b.end());
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(BaseFileIo, WritesWholeReplacesAndLeavesNoTemp) {
  ScratchDir tmp;
  const std::string p = (tmp.p / "a.txt").string();
  write_file_atomic(p, std::string_view("first"));
  EXPECT_EQ(text_of(p), "first");
  write_file_atomic(p, "second!", 7);
  EXPECT_EQ(text_of(p), "second!");
  EXPECT_EQ(entries(tmp.p), std::vector<std::string>{"a.txt"});
  EXPECT_NE(fs::status(p).permissions() & fs::perms::others_read, fs::perms::none);
}

TEST(BaseFileIo, StreamsALargeText) {
  ScratchDir tmp;
  const std::string p = (tmp.p / "big.json").string();
  const std::string line(1000, 'x');
  write_file_atomic(p, [&](std::ostream& out) {
    for (int i = 0; i < 300; ++i) out << line << '\n';
  });
  EXPECT_EQ(fs::file_size(p), 300u * 1001u);
  EXPECT_EQ(entries(tmp.p), std::vector<std::string>{"big.json"});
}

TEST(BaseFileIo, AFailingWriterLeavesTheOldFileAndNoTemp) {
  ScratchDir tmp;
  const std::string p = (tmp.p / "r.md").string();
  write_file_atomic(p, std::string_view("old"));
  EXPECT_THROW(write_file_atomic(p, [](std::ostream& out) {
                 out << "half";
                 throw std::runtime_error("writer broke");
               }),
               std::runtime_error);
  EXPECT_EQ(text_of(p), "old");
  EXPECT_EQ(entries(tmp.p), std::vector<std::string>{"r.md"});
}

TEST(BaseFileIo, AFailedRenameNamesBothPathsAndLeavesNoTemp) {
  ScratchDir tmp;
  const fs::path target = tmp.p / "report.md";
  fs::create_directories(target / "keep");  // a non-empty directory: rename(2) onto it fails
  const std::string what = error_of([&] { write_file_atomic(target.string(), std::string_view("x")); });
  EXPECT_NE(what.find("cannot rename"), std::string::npos) << what;
  EXPECT_NE(what.find(target.string()), std::string::npos) << what;
  EXPECT_EQ(entries(tmp.p), std::vector<std::string>{"report.md"});
}

TEST(BaseFileIo, ErrorsNameThePath) {
  ScratchDir tmp;
  const std::string missing = (tmp.p / "no" / "such.bin").string();
  EXPECT_NE(error_of([&] { read_whole_file(missing); }).find("cannot open " + missing + ": "), std::string::npos);
  EXPECT_NE(error_of([&] { write_file_atomic(missing, std::string_view("x")); }).find("cannot create " + missing + ".tmp-"),
            std::string::npos);
  EXPECT_FALSE(file_exists(missing));
}

TEST(BaseFileIo, ARelativePathSyncsTheCurrentDirectory) {
  ScratchDir tmp;
  const auto cwd = fs::current_path();
  fs::current_path(tmp.p);
  EXPECT_NO_THROW(write_file_atomic("here.txt", std::string_view("ok")));
  fs::current_path(cwd);
  EXPECT_EQ(text_of((tmp.p / "here.txt").string()), "ok");
}

TEST(BaseFileIo, ReadFullStopsAtTheEnd) {
  ScratchDir tmp;
  const std::string p = (tmp.p / "f").string();
  write_file_atomic(p, std::string_view("abc"));
  UniqueFd fd = open_or_throw(p, O_RDONLY);
  char buf[8];
  EXPECT_EQ(read_full(fd.get(), buf, sizeof buf, p), 3u);
  EXPECT_EQ(std::string(buf, 3), "abc");
}

TEST(BaseFileIo, UniqueDirNameSaysPurposeAndPid) {
  const std::string n = unique_dir_name("storage");
  EXPECT_EQ(n.rfind("gpuaccept-storage-", 0), 0u) << n;
  EXPECT_EQ(n.substr(n.rfind('-') + 1), std::to_string(::getpid()));
}

}  // namespace
}  // namespace ga::base
