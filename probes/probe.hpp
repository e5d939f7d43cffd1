// The probe contract. A probe measures and emits samples; it never judges and never prints.
// The harness owns warm-up, deadlines, gathering and journaling.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/declare.hpp"
#include "probes/comm.hpp"
#include "probes/outcome.hpp"
#include "probes/progress.hpp"
#include "probes/sample.hpp"
#include "topology/model.hpp"

namespace ga {

struct Needs {
  bool gpu = false;
  bool rdma = false;
  bool multi_host = false;             // meaningful only with 2+ hosts
};

struct ProbeInfo {
  std::string name;
  std::string summary;
  Needs needs;
  std::vector<MetricDecl> metrics;     // every metric it may emit (probes/declare.hpp)
  std::string caveat;                  // e.g. "verbs data path not validated on hardware"
  std::vector<ParamDecl> params;       // every parameter it takes; an undeclared one is refused
};

class SampleSink {
 public:
  virtual ~SampleSink() = default;
  virtual void emit(Sample s) = 0;
  // Shorthands for the usual samples; the sink fills in probe and rank.
  void value(std::string place, std::string metric, double v, std::string unit,
             nlohmann::json params = nlohmann::json::object(), int iter = 0) {
    emit(value_sample(std::move(place), std::move(metric), v, std::move(unit), std::move(params), iter));
  }
  void text(std::string place, std::string metric, std::string t, nlohmann::json params = nlohmann::json::object()) {
    emit(text_sample(std::move(place), std::move(metric), std::move(t), std::move(params)));
  }
};

struct ProbeContext {
  Comm& comm;
  const topo::ClusterTopology& cluster;
  const topo::HostTopology& host;       // this rank's host
  std::string hostname;
  int rank = 0, size = 1;
  int local_rank = 0, local_size = 1;   // among ranks on this host
  int host_index = 0, host_count = 1;
  std::vector<std::string> rank_hosts;  // host of every rank, by rank
  nlohmann::json params = nlohmann::json::object();  // from the suite
  std::string sysfs_root;               // "" = the real /sys; tests feed recorded trees
  std::string run_dir;                  // the report directory (absolute)
  std::string shared_dir;               // --shared-dir: storage and checkpoints; default run_dir
  std::vector<std::string> self_argv;   // how this process was started (for child launches)
  std::chrono::steady_clock::time_point deadline;
  // Where the probe says how far it is (probes/progress.hpp): the harness's printer on rank 0,
  // nullptr on every other rank, with --quiet and outside a run. Call report_step(), which
  // takes nullptr; ranks may call it alike, only rank 0's calls print.
  Progress* progress = nullptr;
  // Rank 0 only, during a run: appends samples to the journal at once and fsyncs it (unset on
  // every other rank and outside a run). For a probe that runs for minutes to hours (soak), so
  // that what it measured survives an interruption; samples given here are not emitted again.
  std::function<void(std::vector<Sample>)> journal_now{};
  double seconds_left() const {
    return std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  }
  void report_step(std::string_view doing, int index, int count, std::string_view unit,
                   StepCount kind = StepCount::exact) const {
    ga::report_step(progress, doing, index, count, unit, kind);
  }
};

// A hidden command of the gpuaccept binary that a probe starts as a child process of its own
// (the resume probe's worker): `gpuaccept NAME ARGS...`, not an MPI program, not in --help.
// Declared by the probe, so app/ finds it through the registry and names no probe folder.
struct HelperCommand {
  std::string name;
  int (*main)(int argc, char** argv) = nullptr;  // argv[0] is NAME
};

// Where a run-level reading is taken (Probe::read_run_bound).
enum class RunBound { start, end };

// A parameter that does not fit: its key (for the suite line it came from) and one line
// naming it and why.
struct ParamProblem {
  std::string key;
  std::string message;
};

class Probe {
 public:
  virtual ~Probe() = default;
  virtual ProbeInfo info() const = 0;
  // Collective over ctx.comm: every rank calls it. Emits samples; returns this rank's outcome.
  virtual Outcome run(ProbeContext& ctx, SampleSink& out) = 0;
  // Readings at the start of the run (before its first probe) and at its end (after its last),
  // for evidence that is a rate over the whole run (the rdma probe's port error counters).
  // Asked only of probes in the suite, with their suite parameters; collective over ctx.comm
  // like run(). The harness journals and fsyncs each reading's samples at once, so a run that
  // dies later keeps its start; the judge derives the rates from the samples.
  virtual bool reads_run_bounds() const { return false; }
  virtual void read_run_bound(RunBound, ProbeContext&, SampleSink&) {}
  virtual std::vector<HelperCommand> helper_commands() const { return {}; }
  // The parameters checked as the probe will read them, before the run's first probe starts:
  // a bad value is the user's, exit 2 naming the key and its suite line, never a probe that
  // fails on every host (issue 32). The default checks the declarations (check_params); a
  // probe whose parser reads more than a declaration states (sizes as text, one key against
  // another) runs that parser too. nullopt when they fit.
  virtual std::optional<ParamProblem> check_config(const nlohmann::json& params) const;
  // The probe's deadline in seconds, from the run's --probe-timeout: a probe whose params state
  // how long it runs (soak.duration_s) returns what that length needs, so a stated duration is
  // never silently cut to the default timeout. Called with params check_config accepted.
  virtual double deadline_s(const nlohmann::json& params, double probe_timeout_s) const {
    (void)params;
    return probe_timeout_s;
  }
};

class ProbeRegistry {
 public:
  void add(std::unique_ptr<Probe> p);  // throws std::logic_error on a duplicate name
  Probe* find(const std::string& name) const;
  std::vector<const Probe*> all() const;
  // The helper command of that name, from whichever probe declares it (several probes may
  // share one: resume and resume-gpu start the same worker); nullopt when none does.
  std::optional<HelperCommand> find_helper(const std::string& name) const;
 private:
  std::map<std::string, std::unique_ptr<Probe>> probes_;
};

void register_builtin_probes(ProbeRegistry&);

// Every metric the registry's probes declare (throws std::logic_error on an id declared twice).
MetricCatalogue catalogue_of(const ProbeRegistry&);
// The declaration of a probe's parameter, or nullptr.
const ParamDecl* find_param(const ProbeInfo&, const std::string& name);
// Checks a probe's parameters against its declarations: nullopt when they fit, else the first
// bad key and one line naming it, why, and the probe's known keys ("hostmem.arary_mib: unknown
// parameter (hostmem takes: array_mib, iterations)").
std::optional<ParamProblem> check_params(const ProbeInfo&, const nlohmann::json& params);
// A probe parser's error as a ParamProblem: its key the longest of `params`' keys the message
// names (none: ""), so the run can point at the suite line.
ParamProblem param_problem(const nlohmann::json& params, std::string message);
// Probe::check_config for a probe with a parser of its own: the declarations (check_params),
// then `parse` over the params, whose std::exception becomes the problem (`prefix` + what()).
std::optional<ParamProblem> check_params_and_parse(const ProbeInfo&, const nlohmann::json& params,
                                                   const std::function<void(const nlohmann::json&)>& parse,
                                                   const std::string& prefix = "");

}  // namespace ga
