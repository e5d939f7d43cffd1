// The journal's chain (probes/journal_chain.hpp): a journal written by JournalWriter, with
// records appended by other processes (append_record_once) as survivors of a signal do, reads
// back; any one line deleted, doubled, moved, stripped of its seq or chain, or edited, is an
// error naming that line; a schema 1 journal (before the chain) still reads.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "base/file_io.hpp"
#include "probes/journal.hpp"
#include "probes/journal_chain.hpp"
#include "topology/topology.hpp"

namespace ga {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/ga-chain-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string path;
};

std::vector<std::string> lines_of(const std::string& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string text_of(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

JournalData parse(const std::string& text) {
  std::istringstream in(text);
  return parse_journal(in, "samples.jsonl");
}

// A finished run as the run loop writes it: run_start, a topology record, one probe with
// samples and an outcome per rank, a signal record from another process in the middle, run_end.
std::string write_run(const std::string& dir, int samples = 20) {
  const std::string path = dir + "/samples.jsonl";
  JournalWriter w(path);
  w.append({{"type", "run_start"}, {"schema_version", kJournalSchemaVersion},
            {"ranks", {{{"rank", 0}, {"host", "n1"}}, {{"rank", 1}, {"host", "n2"}}}}});
  topo::HostTopology h;
  h.hostname = "n1";
  w.append({{"type", "topology"}, {"host", "n1"}, {"topology", topo::to_json(h)}});
  w.flush();
  w.append({{"type", "probe_begin"}, {"probe", "m"}, {"time", "t"}, {"deadline_s", 5}});
  w.flush();
  for (int i = 0; i < samples; ++i)
    w.append({{"type", "sample"}, {"probe", "m"}, {"metric", "m.a"}, {"place", "n1"}, {"value", i}, {"rank", 0}, {"iter", i}});
  w.flush();
  append_record_once(path, {{"type", "signal"}, {"rank", 1}, {"host", "n2"}, {"signal", "SIGTERM"}, {"probe", "m"}, {"time", "t"}});
  w.append({{"type", "outcome"}, {"probe", "m"}, {"rank", 0}, {"host", "n1"}, {"status", "ok"}, {"reason", ""}});
  w.append({{"type", "outcome"}, {"probe", "m"}, {"rank", 1}, {"host", "n2"}, {"status", "ok"}, {"reason", ""}});
  w.append({{"type", "probe_end"}, {"probe", "m"}, {"time", "t"}, {"elapsed_s", 1}});
  w.append({{"type", "run_end"}, {"time", "t"}});
  w.flush();
  return path;
}

void expect_refused_at(const std::vector<std::string>& lines, int line, const std::string& what) {
  try {
    parse(text_of(lines));
    ADD_FAILURE() << what << ": read without an error";
  } catch (const JournalError& e) {
    EXPECT_EQ(e.line, line) << what << ": " << e.what();
  }
}

TEST(JournalChain, AWrittenJournalReadsWithItsChainHead) {
  TempDir d;
  const auto lines = lines_of(write_run(d.path));
  ASSERT_EQ(lines.size(), 28u);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    ASSERT_TRUE(split_chained(lines[i])) << "line " << i + 1 << " has no chain: " << lines[i];
    EXPECT_NE(lines[i].find(",\"seq\":" + std::to_string(i + 1) + ",\"chain\":"), std::string::npos) << lines[i];
  }
  const auto j = parse(text_of(lines));
  EXPECT_EQ(j.schema_version, kJournalSchemaVersion);
  EXPECT_EQ(j.samples.size(), 20u);
  EXPECT_EQ(j.signals.size(), 1u);
  EXPECT_TRUE(j.run_ended);
  EXPECT_EQ(j.chain_head, base::to_hex(split_chained(lines.back())->chain));
}

// Each edit of each line, one at a time: the error names the line where the file departs from
// what was written (deleting the last line is a run cut short, which the manifest's chain head
// catches: the reader sees a journal without run_end).
TEST(JournalChain, EveryEditOfEveryLineIsRefusedNamingIt) {
  TempDir d;
  const auto lines = lines_of(write_run(d.path));
  const int n = static_cast<int>(lines.size());
  for (int k = 1; k <= n; ++k) {
    const std::size_t at = static_cast<std::size_t>(k - 1);
    const std::string where = "line " + std::to_string(k);
    if (k < n) {
      auto del = lines;
      del.erase(del.begin() + static_cast<long>(at));
      expect_refused_at(del, k, "deleting " + where);
      auto swapped = lines;
      std::swap(swapped[at], swapped[at + 1]);
      expect_refused_at(swapped, k, "swapping " + where + " and the next");
    }
    auto twice = lines;
    twice.insert(twice.begin() + static_cast<long>(at), lines[at]);
    expect_refused_at(twice, k + 1, "doubling " + where);

    auto no_seq = lines;
    const auto s = no_seq[at].rfind(",\"seq\":");
    const auto c = no_seq[at].rfind(",\"chain\":");
    no_seq[at].erase(s, c - s);
    expect_refused_at(no_seq, k, "stripping the seq of " + where);

    auto no_chain = lines;
    no_chain[at].erase(no_chain[at].rfind(",\"chain\":"), kChainSuffix - 1);
    ASSERT_EQ(no_chain[at].back(), '}');
    expect_refused_at(no_chain, k, "stripping the chain of " + where);

    auto edited = lines;
    const auto t = edited[at].find("\"type\":\"");
    ASSERT_NE(t, std::string::npos);
    edited[at].insert(t, "\"x\":1,");  // one more field: the record's bytes are not what was chained
    expect_refused_at(edited, k, "editing " + where);
  }
}

TEST(JournalChain, AValueEditedIsRefusedAtItsLine) {
  TempDir d;
  auto lines = lines_of(write_run(d.path));
  auto& l = lines[9];  // a sample
  const auto v = l.find("\"value\":");
  ASSERT_NE(v, std::string::npos);
  l.insert(v + 8, "1");  // 7 becomes 17
  expect_refused_at(lines, 10, "a value edited");
}

TEST(JournalChain, AHugeSeqIsRefusedAtOnce) {
  TempDir d;
  auto lines = lines_of(write_run(d.path));
  auto& l = lines[5];
  const auto s = l.rfind(",\"seq\":");
  const auto c = l.rfind(",\"chain\":");
  l.replace(s, c - s, ",\"seq\":1000000000000000");
  const auto t0 = std::chrono::steady_clock::now();
  expect_refused_at(lines, 6, "seq 10^15");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  // And in a journal before the chain: bounded by the line's number before anything is sized.
  std::vector<std::string> old = {R"({"type":"run_start","schema_version":1,"ranks":[]})",
                                  R"({"type":"run_end","time":"t","seq":1000000000000000})"};
  expect_refused_at(old, 2, "seq 10^15 in a schema 1 journal");
}

TEST(JournalChain, AChainedJournalRefusesAnEmptyLineAndLinesBeforeItsRunStart) {
  TempDir d;
  auto lines = lines_of(write_run(d.path));
  auto blank = lines;
  blank.insert(blank.begin() + 4, "");
  expect_refused_at(blank, 5, "an empty line");
  auto before = lines;
  before.insert(before.begin(), R"({"type":"signal","rank":0,"host":"n1","signal":"SIGTERM","probe":"","time":"t"})");
  expect_refused_at(before, 1, "a record before the run_start");
}

TEST(JournalChain, ATornLastLineStillReadsAsACutShortRun) {
  TempDir d;
  auto lines = lines_of(write_run(d.path));
  lines.pop_back();                                     // no run_end: a killed run
  lines.back().resize(lines.back().size() / 2);         // and its last write torn
  const auto j = parse(text_of(lines));
  EXPECT_FALSE(j.run_ended);
}

TEST(JournalChain, AJournalBeforeTheChainReadsWithNoHead) {
  const std::string old = std::string(R"({"type":"run_start","schema_version":1,"ranks":[],"seq":1})") + "\n" +
                          R"({"type":"run_end","time":"t","seq":2})" + "\n";
  const auto j = parse(old);
  EXPECT_EQ(j.schema_version, kJournalSchemaBeforeChain);
  EXPECT_TRUE(j.chain_head.empty());
}

// Survivors append while rank 0 writes: every record joins the chain after the file's last one,
// whoever wrote it (the journal's lock), so the journal reads whole.
TEST(JournalChain, RecordsAppendedByOtherProcessesWhileTheWriterWritesJoinTheChain) {
  TempDir d;
  const std::string path = d.path + "/samples.jsonl";
  constexpr int kChildren = 4, kEach = 40, kFlushes = 60, kPerFlush = 25;
  {
    JournalWriter w(path);
    w.append({{"type", "run_start"}, {"schema_version", kJournalSchemaVersion}, {"ranks", nlohmann::json::array()}});
    w.append({{"type", "probe_begin"}, {"probe", "m"}, {"time", "t"}, {"deadline_s", 5}});
    w.flush();
    std::vector<pid_t> kids;
    for (int c = 0; c < kChildren; ++c) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        for (int i = 0; i < kEach; ++i)
          append_record_once(path, {{"type", "signal"}, {"rank", c + 1}, {"host", "n"}, {"signal", "SIGTERM"}, {"probe", "m"}, {"time", std::to_string(i)}});
        ::_exit(0);
      }
      kids.push_back(pid);
    }
    for (int f = 0; f < kFlushes; ++f) {
      for (int i = 0; i < kPerFlush; ++i)
        w.append({{"type", "sample"}, {"probe", "m"}, {"metric", "m.a"}, {"place", "n1"}, {"value", i}, {"iter", f}});
      w.flush();
    }
    for (pid_t k : kids) {
      int st = 0;
      ::waitpid(k, &st, 0);
      ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    w.append({{"type", "probe_end"}, {"probe", "m"}, {"time", "t"}, {"elapsed_s", 1}});
    w.append({{"type", "run_end"}, {"time", "t"}});
  }
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  const auto j = parse(all.str());
  EXPECT_EQ(j.samples.size(), static_cast<std::size_t>(kFlushes * kPerFlush));
  EXPECT_EQ(j.signals.size(), static_cast<std::size_t>(kChildren * kEach));
  EXPECT_TRUE(j.run_ended);
}

TEST(JournalChain, TheTailOfAJournalSaysWhereTheChainGoesOn) {
  TempDir d;
  const auto path = write_run(d.path);
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY));
  const auto t = read_chain_tail(fd.get(), path);
  ASSERT_EQ(t.kind, ChainTail::Kind::chained);
  EXPECT_EQ(t.seq, 28);
  EXPECT_EQ(base::to_hex(t.chain), parse(text_of(lines_of(path))).chain_head);
}

}  // namespace
}  // namespace ga
