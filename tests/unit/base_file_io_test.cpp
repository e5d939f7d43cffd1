// base/file_io: a file appears whole or not at all, nothing is left behind on failure, and
// every error names the path.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
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

// A file of several 32 MiB windows: every byte arrives, in order, and the windows behind the
// writer have been handed to the disk and dropped from the page cache (the first is not
// resident after the write), so a report of gigabytes does not take gigabytes of fresh cache.
TEST(BaseFileIo, ALargeFileIsWrittenWholeAndLeavesTheCacheBehindIt) {
  ScratchDir tmp;
  const std::string p = (tmp.p / "big.prom").string();
  constexpr std::size_t kLines = 1'000'000;  // ~100 MiB: three windows and part of a fourth
  auto line = [](std::size_t i) { return "line " + std::to_string(i) + std::string(90, 'a' + i % 26) + "\n"; };
  std::size_t bytes = 0;
  write_file_atomic(p, [&](std::ostream& out) {
    for (std::size_t i = 0; i < kLines; ++i) {
      const std::string l = line(i);
      out << l;
      bytes += l.size();
    }
  });
  ASSERT_EQ(fs::file_size(p), bytes);
  EXPECT_EQ(entries(tmp.p), std::vector<std::string>{"big.prom"});

  // Residency first (reading the file back brings it into the cache).
  struct statfs sf{};
  ASSERT_EQ(::statfs(p.c_str(), &sf), 0);
  const bool memory_fs = sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC;  // nothing to drop there
  UniqueFd fd = open_or_throw(p, O_RDONLY);
  constexpr std::size_t kWindow = AtomicFile::kStreamWindow;
  void* map = ::mmap(nullptr, kWindow, PROT_READ, MAP_SHARED, fd.get(), 0);
  ASSERT_NE(map, MAP_FAILED);
  const long page = ::sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> resident(kWindow / static_cast<std::size_t>(page));
  ASSERT_EQ(::mincore(map, kWindow, resident.data()), 0);
  ::munmap(map, kWindow);
  const auto in_cache = std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; });
  if (!memory_fs) {
    EXPECT_LT(in_cache, static_cast<long>(resident.size() / 2)) << "of the first window's pages";
  }

  const auto back = read_whole_file(p);
  std::size_t at = 0;
  for (std::size_t i = 0; i < kLines; ++i) {
    const std::string l = line(i);
    ASSERT_EQ(std::string_view(reinterpret_cast<const char*>(back.data()) + at, l.size()), l) << "line " << i;
    at += l.size();
  }
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
