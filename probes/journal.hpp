// The journal, samples.jsonl: the one input of the judge besides the criteria.
// Rank 0 appends a record per line and fsyncs after each probe, so a crash loses nothing
// already measured. Survivors of a killed job append `signal` records themselves (one
// write(2) with O_APPEND each), which is how the judge tells the lost rank from the others.
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
// A torn last line (a crash mid-write) is ignored by the reader; any other malformed line
// is an error naming the line.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/outcome.hpp"
#include "probes/sample.hpp"
#include "topology/model.hpp"

namespace ga {

inline constexpr int kJournalSchemaVersion = 1;

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
};

struct JournalError : std::runtime_error {
  JournalError(const std::string& file, int line, const std::string& what)
      : std::runtime_error(file + ":" + std::to_string(line) + ": " + what), file(file), line(line) {}
  std::string file;
  int line;
};

JournalData read_journal(const std::string& path);               // throws JournalError
JournalData parse_journal(std::istream& in, const std::string& name);

// Appends records to samples.jsonl. RAII over the file descriptor; flush() fsyncs.
class JournalWriter {
 public:
  explicit JournalWriter(const std::string& path);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  void append(const nlohmann::json& record);  // one write(2) per record
  void flush();                               // fsync
  const std::string& path() const { return path_; }
 private:
  std::string path_;
  int fd_ = -1;
  long long seq_ = 0;  // the last record's "seq"
};

// Appends one record with a single O_APPEND write, from any process. Used for signal records.
void append_record_once(const std::string& path, const nlohmann::json& record);

}  // namespace ga
