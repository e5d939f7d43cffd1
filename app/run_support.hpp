// Pieces of `gpuaccept run` shared by the MPI and the one-process entry (run_command.cpp)
// and the probe loop (run_loop.cpp). Internal to app/.
#pragma once
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "probes/comm.hpp"
#include "probes/harness/phase_watch.hpp"
#include "probes/journal.hpp"
#include "probes/probe.hpp"
#include "suites/suite_file.hpp"
#include "topology/model.hpp"

namespace ga::app::run {

std::string iso_now();
std::string default_out_dir();
std::string read_file(const std::string& path);

// What the signal thread and the watchdog need to know about the run, shared with the main thread.
struct RunState {
  std::mutex mu;
  std::string journal_path;             // "" until the journal exists
  std::string dir;
  std::string phase = "startup";
  int rank = 0;
  std::string host;
  std::vector<std::string> rank_hosts;  // empty until the layout is known
  std::vector<long> pids;
  int deputy = -1;                      // writes the report when rank 0 is lost (the watchdog's)
};

// Inputs parsed before MPI starts.
struct Inputs {
  Suite suite;
  std::string criteria_source, criteria_text;
  std::optional<topo::HostTopology> expected;
  // What a `--rerun` copies of the run it re-tests (rerun_record): null for a first run.
  nlohmann::json rerun_of;
};

// What `run --rerun DIR` records of DIR in its own run_start, so that the re-test's directory
// stands alone (judge and verify never read DIR again; a copy, DIR deleted, verifies):
//   {run: DIR's run id, dir: where it was (for the reader only), manifest_sha256: the sha256
//    of DIR/manifest.json (null where DIR has none), suite: the suite it ran,
//    campaign: campaign_of_run(DIR), the non-passing outcomes and failed_at places the clearing
//    rule reads}
// Throws std::runtime_error naming the file when DIR's bad-hosts.txt or campaign.json cannot be
// read, or no longer has the digest DIR's manifest gives it: a re-test acts on what its run
// judged, not on an edited list.
nlohmann::json rerun_record(const std::string& dir);

// The suite a run directory's journal says it ran (its --suite as given, else the suite's
// name), "default" when it says nothing: the re-test runs it again.
std::string suite_of_run(const std::string& dir);

class CollectingSink final : public SampleSink {
 public:
  CollectingSink(std::string probe, int rank) : probe_(std::move(probe)), rank_(rank) {}
  void emit(Sample s) override {
    s.probe = probe_;
    s.rank = rank_;
    samples.push_back(std::move(s));
  }
  std::vector<Sample> samples;
 private:
  std::string probe_;
  int rank_;
};

// Rank layout derived from everyone's hostname and pid.
struct Layout {
  std::vector<std::string> rank_hosts;
  std::vector<long> pids;
  std::vector<std::string> hosts;       // distinct, in order of first rank
  int local_rank = 0, local_size = 0, host_index = 0;
};

Inputs load_inputs(const RunOptions& o);
Layout make_layout(Comm& world, const std::string& host);
// Each host's first rank discovers its topology; rank 0 assembles the cluster's and shares it.
topo::ClusterTopology gather_topology(Comm& world, const Layout& l, const std::string& host, const std::string& sysfs_root);
nlohmann::json rank_refs_json(const std::vector<RankRef>& v);
void progress(int rank, const std::string& msg);
// Judge what is on disk and say so; used on every exit path that can still write.
void judge_and_announce(const std::string& dir);
// Returns, by rank, whether the rank journaled a signal record (it survived to say so).
std::vector<bool> wait_for_survivor_records(const std::string& journal, const std::vector<std::string>& rank_hosts,
                                            const std::vector<long>& pids, const std::string& host);
// Appends an `incomplete` record to the run's journal (one O_APPEND write, from any thread).
void journal_incomplete(const std::string& dir, const IncompleteRecord& rec);

// The probe loop, common to both entries: run directory, topology, journal, every probe
// under `watch`, then judging. Returns the run's exit code (the same on every rank).
int run_suite(Comm& world, PhaseWatch& watch, RunState& state, const Inputs& in, const RunOptions& o,
              const Layout& layout, const std::string& host, const std::string& sysfs_root);

}  // namespace ga::app::run
