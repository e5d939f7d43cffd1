// The subcommands of gpuaccept. Each returns the process exit code:
// 0 pass, 1 a node fault, 2 bad usage or input, 3 run incomplete, 4 inconclusive, 5 tool error.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "launchers/launch.hpp"
#include "suites/judge.hpp"

namespace ga::app {

// The exit codes (kExitPass, kExitNodeFault, kExitUsage, kExitIncomplete, kExitInconclusive,
// kExitToolError) are the judge's: suites/judge.hpp.

struct RunOptions {
  std::string suite = "default";
  std::string criteria;                 // "" = built-in
  std::string criteria_profile;         // --criteria-profile NAME: the built-in criteria and a system profile's
  std::string expect_topology;          // "" = none
  std::string out;                      // "" = gpuaccept-report-<date>-<time> in the working directory
  std::string shared_dir;               // "" = the report directory
  double probe_timeout_s = 300;
  std::vector<std::string> overrides;   // --set probe.key=value
  std::vector<std::string> argv;        // as given, for the report
  // Bind each rank to its GPU's NUMA node after discovery (probes/devices/numa_binding.hpp).
  bool numa_bind = true;
  // `--rerun DIR`: this run re-tests DIR's suspects; its report merges both (reports/campaign.hpp).
  std::string rerun;
  std::string sign;                     // --sign PREFIX.key: signature.dsse.json at the end (reports/attest.hpp)
  std::string report;                   // --report json,md,html,junit,prom[,FMT:out=-] ("" = all; reports/report.hpp)
  // No progress lines on stderr (errors still print): `run --quiet`, and `gpuaccept health`,
  // which runs the same loop and speaks for itself.
  bool quiet = false;
  // `run --verbose`: every in-probe progress step, not one line every few seconds.
  bool verbose = false;
  // For `gpuaccept health`: the journal is left unjudged (the loop then returns kExitPass once
  // it is complete).
  bool judge = true;
  // For `gpuaccept health`: this process is one node's check of a larger fleet, so a failure
  // it cannot compare with other hosts (a library that does not load) stays this node's fault,
  // as NHC drains a node whose driver does not load; the fleet cap keeps a fleet-wide
  // misconfiguration from draining many. A `run` settles it across its hosts (issue 32).
  bool one_node_of_a_fleet = false;
};

// `gpuaccept health`: one node's state in seconds, for Slurm's HealthCheckProgram, Prolog and
// Epilog. Exit 0 healthy (also inconclusive: nothing confirmed), 1 a node fault, 2 its own
// failure (a bad flag or file, a tool error, its own deadline).
struct HealthOptions {
  std::string expect_topology;          // "" = none
  std::string out;                      // "" = nothing written: the journal lives in a temporary directory
  bool drain = false;                   // drain this node on a node fault (never on exit 2); resume its own drain when healthy
  bool prolog = false;                  // Slurm's Prolog drains on exit 1: over the fleet cap, exit 0 instead
  double max_share = 0.1;               // the fleet cap: no drain once this share of the partition is drained by gpuaccept
  double timeout_s = 45;                // the whole check's deadline: under Slurm's 60 s kill
  std::vector<std::string> skip;        // probes of the health suite left out (inventory, topology, gpu, rdma, clock)
  std::vector<std::string> overrides;   // --set probe.key=value
  std::vector<std::string> argv;        // as given, for the journal
};

struct JudgeOptions {
  std::string dir;
  std::string criteria;                 // "" = the criteria the run recorded
  std::string criteria_profile;         // a built-in system profile instead of a file (as run's)
  std::string out;                      // "" = DIR; another criteria set must write elsewhere
  std::string report;                   // as run's --report
};

// gpuaccept verify DIR: the manifest, the report files recomputed from the samples, the signature.
struct VerifyOptions {
  std::string dir;
  std::string criteria;                 // a buyer's contract: judged again against it
  std::string criteria_profile;         // or a built-in system profile
  std::string pubkey;                   // check signature.dsse.json against this key
  bool unsigned_only = false;           // --unsigned: consistency only, said so (one of the two is needed)
};
struct KeygenOptions {
  std::string out;                      // PREFIX: PREFIX.key and PREFIX.pub
};
struct SignOptions {
  std::string dir, key;
};

struct TopoOptions {
  std::string input;                    // "" = this host, live
  bool json = false;
};

struct ListOptions {
  bool metrics = false;                 // --metrics: the declared metrics, as docs/criteria.md has them
  bool params = false;                  // --params: the declared parameters
  bool criteria = false;                // --criteria: the built-in criteria file, verbatim
  bool profiles = false;                // --profiles: every system profile's thresholds and sources (Markdown)
};

struct DrainOptions {
  std::string dir;
  bool apply = false;                   // run the scontrol lines, not only print them
  bool force = false;                   // past the circuit breaker
  double max_share = 0.5;               // --apply refuses to drain more of the judged hosts than this
};

struct UndrainOptions {
  std::string dir;
  bool apply = false;
};

struct LaunchOptions {
  std::string hostfile;                 // one host per line ("host slots=N" reads as host)
  std::string hosts;                    // h1,h2,...
  bool slurm = false;                   // srun inside the allocation instead of mpirun
  bool job_tasks = false;               // --slurm: the tasks the job asked for (sbatch -n), as Slurm lays them out
  int ranks_per_host = 0;               // 0: SLURM_GPUS_ON_NODE, else 1
  bool oversubscribe = false;           // more ranks than cores (laptops, CI)
  bool no_bind = false;                 // no NUMA binding (ranks sharing one machine's cores)
  bool dry_run = false;                 // print the line, run nothing
  std::vector<std::string> mca;         // --mca KEY=VALUE, for mpirun
  std::string program;                  // "" = this gpuaccept
  std::vector<std::string> run_args;    // after "--": gpuaccept run's options
};

// gpuaccept show DIR PLACE: every verdict and sample of PLACE, the places under it and its links.
struct ShowOptions {
  std::string dir;
  std::string place;
  bool json = false;                    // --json: {"verdicts": [...], "samples": [...]}
};

struct RerunPlanOptions {
  std::string dir;
  int partners = 2;                     // hosts that passed, as known-good partners
  int ranks_per_host = 0;               // 0: 1
};

int run_command(const RunOptions&, int* argc, char*** argv);
int health_command(const HealthOptions&);
// The re-test of DIR's node-fault and inconclusive hosts with hosts that passed as partners:
// the hostfile, the mpirun and the sbatch lines. 0 nothing to re-test, 1 a plan printed, 2 bad
// usage or no bad-hosts.txt.
int rerun_plan_command(const RerunPlanOptions&);
// The mpirun (or, with --slurm, srun) line for `gpuaccept run RUN_ARGS`: printed with --dry-run,
// else exec'd (its exit code is the run's). 2 bad usage or hostfile.
int launch_command(const LaunchOptions&);
// Print (and with --apply run) the scontrol lines that drain DIR's node-fault hosts, or resume
// the hosts gpuaccept drained that passed in DIR: 0 nothing to do, 1 lines printed (and run),
// 2 bad usage, no bad-hosts.txt, or the circuit breaker refused, 5 scontrol/sinfo failed.
int drain_command(const DrainOptions&);
int undrain_command(const UndrainOptions&);
int judge_command(const JudgeOptions&);
// 0 printed, 2 bad usage, no report.json, or PLACE is not in the run (the nearest names said).
int show_command(const ShowOptions&);
// 0 the directory is what its run wrote and passes, 1 it fails (the contract, or the recorded
// criteria), 2 tampered, unreadable or the signature invalid (each file named).
int verify_command(const VerifyOptions&);
int keygen_command(const KeygenOptions&);
int sign_command(const SignOptions&);
// signature.dsse.json over DIR's manifest (which DIR must still match); throws saying why not.
void sign_directory(const std::string& dir, const std::string& key_path);
int topo_command(const TopoOptions&);
int list_command(const ListOptions&);
// The tables `list --metrics` and `list --params` print; docs/criteria.md and docs/design.md
// carry the same text (a test keeps them equal; scripts/gen-docs.sh rewrites them).
std::string metrics_table();
std::string params_table();
// `list --profiles`: each system profile's criteria with their source figures and derivations,
// as docs/criteria.md has them.
std::string profiles_table();
std::string version_text();

// Judges a run directory from its journal and rewrites the reports. Shared by `judge`,
// the end of a run, the watchdog and the signal path, so all four agree.
struct JudgeResult {
  int exit_code = kExitIncomplete;
  std::string overall;
  std::string summary_line;
  // "" when every host passed; else how many did not, where bad-hosts.txt is, what to run next.
  std::string bad_hosts_line;
  // Every verdict that is not a pass or a skip (fail, missing, tool error, inconclusive),
  // warnings included, in the judge's order.
  std::vector<Verdict> findings;
};
// write_reports false: judged only (gpuaccept health without --out); bad_hosts_line is then "".
// out_dir: where the reports go ("" = dir).
// report: which writers (`--report`, "" = all); a format to stdout goes to std::cout.
// criteria_profile: a built-in system profile instead of criteria_file (one of the two, or neither).
JudgeResult judge_directory(const std::string& dir, const std::string& criteria_file, bool write_reports = true,
                            const std::string& out_dir = "", const std::string& report = "",
                            const std::string& criteria_profile = "");
// Criteria other than the recorded ones: FILE (checked against the declarations) or a built-in
// profile; nullopt when neither is given. Throws CriteriaError or std::invalid_argument.
struct Contract {
  CriteriaSet criteria;
  std::string source, text;             // what a report judged by it names and records
};
std::optional<Contract> contract_criteria(const std::string& file, const std::string& profile, const MetricCatalogue&);
// The launch description `gpuaccept launch` builds from its options (tests check its argv).
launch::Request launch_request(const LaunchOptions&);
// Every metric the built-in probes declare (what the judge and the criteria check use).
MetricCatalogue builtin_catalogue();

}  // namespace ga::app
