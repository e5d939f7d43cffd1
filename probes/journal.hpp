// The journal, samples.jsonl: the one input of the judge besides the criteria.
// Rank 0 writes a record per line and fsyncs after each probe's results, so a crash loses
// nothing already written. Survivors of a killed job append `signal` records themselves (one
// write(2) with O_APPEND each, under the journal's lock, joining its chain), which is how the
// judge tells the lost rank from the others.
//
// Records, one JSON object per line, each with "type":
//   run_start    {schema_version, started, argv[], ranks[{rank,host,local_rank,pid}],
//                 versions{}, slurm{}|null, suite{name, probes[]}, probe_timeout_s,
//                 criteria{source, text}, expected_topology{HostTopology}|null}
//   topology     {host, topology{HostTopology}}
//   probe_begin  {probe, time, deadline_s}
//   sample       {probe, place, metric, value|text, unit, params, rank, iter}
//   outcome      {probe, rank, host, status, reason}
//   probe_end    {probe, time, elapsed_s}
//   incomplete   {probe, reason, missing_ranks[{rank,host}], waiting_ranks[{rank,host}], detected_by}
//   signal       {rank, host, signal, probe, time}
//   run_end      {time}
// Every record carries "seq" (1, 2, ... in file order) and "chain" (probes/journal_chain.hpp):
// a line missing, doubled, moved or edited is an error naming the first line where the chain
// breaks. A torn last line (a crash mid-write) is ignored by the reader; any other malformed
// line is an error naming the line.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/sha256.hpp"
#include "probes/outcome.hpp"
#include "probes/sample.hpp"
#include "topology/model.hpp"

namespace ga {

// 2: every record carries "seq" and "chain" (probes/journal_chain.hpp). 1: before the chain;
// read still, with JournalData::chain_head empty (the judge notes that edits do not show).
inline constexpr int kJournalSchemaVersion = 2;
inline constexpr int kJournalSchemaBeforeChain = 1;

struct RankRef {
  int rank = 0;
  std::string host;
};

struct RankInfo {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  long pid = 0;
  std::string boot_id;  // the kernel it ran on ("" unknown): sysfs::boot_id()
};

struct RankOutcome {
  int rank = 0;
  std::string host;
  ProbeStatus status = ProbeStatus::ok;
  std::string reason;
};

struct ProbeRecord {
  std::string name;
  bool ended = false;
  double deadline_s = 0;
  double elapsed_s = 0;
  std::string begin_time, end_time;
  std::vector<RankOutcome> outcomes;
};

struct IncompleteRecord {
  std::string probe;
  std::string reason;
  std::vector<RankRef> missing_ranks;   // did not answer: stopped, dead or unreachable
  std::vector<RankRef> waiting_ranks;   // alive, but blocked waiting on the missing ones
  int detected_by = -1;
};

struct SignalRecord {
  int rank = 0;
  std::string host;
  std::string signal;
  std::string probe;                    // in flight when the signal came ("" between probes)
  std::string time;
};

struct JournalData {
  nlohmann::json run_start = nlohmann::json::object();  // raw record: argv, versions, slurm ...
  std::vector<RankInfo> ranks;
  topo::ClusterTopology topology;
  std::optional<topo::HostTopology> expected_topology;
  std::string criteria_source;          // "builtin" or a path
  std::string criteria_text;            // the YAML the run was judged with
  std::vector<Sample> samples;
  std::vector<ProbeRecord> probes;      // in order of probe_begin
  std::vector<IncompleteRecord> incomplete;
  std::vector<SignalRecord> signals;
  bool run_ended = false;
  std::string end_time;
  int schema_version = 0;               // of its run_start
  std::string chain_head;               // the last record's chain (hex); "" before schema 2
  int lines = 0;                        // the lines read (a torn last one not counted)
  std::optional<int> line_of_chain;     // the line whose chain is the one asked for, if any
};

struct JournalError : std::runtime_error {
  JournalError(const std::string& file, int line, const std::string& what)
      : std::runtime_error(file + ":" + std::to_string(line) + ": " + what), file(file), line(line), reason(what) {}
  std::string file;
  int line;
  std::string reason;  // what() without "FILE:LINE: "
};

// `find_chain` (hex, optional): a chain to look for, manifest.json's journal_chain; the line
// whose chain it is goes to JournalData::line_of_chain.
JournalData read_journal(const std::string& path, const std::string& find_chain = "");  // throws JournalError
JournalData parse_journal(std::istream& in, const std::string& name, const std::string& find_chain = "");

// Appends records to samples.jsonl, each with its "seq" and "chain" (probes/journal_chain.hpp).
// RAII over the file descriptor. Records are held until flush() (or until 8 MiB are held) and
// then written in one write(2) under the journal's lock (flock): a survivor of a signal may
// append its record at any moment (append_record_once), and each record joins the chain after
// the file's last one, whoever wrote it. A lock per flush, not per record: on a shared
// filesystem a lock is a round trip to its server, and a 4096-host run writes 3.6 M records in a
// few hundred flushes. The run flushes after each probe's results, so what a crash of rank 0
// loses is what it had gathered and not yet written, as before.
class JournalWriter {
 public:
  explicit JournalWriter(const std::string& path);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  void append(const nlohmann::json& record);
  void flush();                               // writes what is held, then fsync
  const std::string& path() const { return path_; }
 private:
  void write_held();
  std::string path_;
  int fd_ = -1;
  std::vector<std::string> held_;  // dumped records not yet written
  std::size_t held_bytes_ = 0;
  long long seq_ = 0;              // the last record's "seq" as this writer knows it
  std::optional<base::Digest> chain_;  // and its chain
  base::Sha256 sha_;
};

// Appends one record with a single O_APPEND write under the journal's lock, joining the chain
// after the file's last record, from any process. Used for signal and incomplete records.
void append_record_once(const std::string& path, const nlohmann::json& record);

}  // namespace ga
