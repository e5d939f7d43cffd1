#include "app/cli.hpp"

#include "app/run_support.hpp"
#include "reports/report.hpp"
#include "suites/criteria.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <exception>
#include <string>
#include <vector>

namespace ga::app {

namespace {

constexpr std::array<const char*, 13> kCommands = {"run",    "health", "judge",   "verify",    "keygen", "sign",   "topo",
                                                   "list",   "launch", "drain",   "undrain",   "rerun-plan", "show"};

bool is_command(const std::string& word) {
  return std::any_of(kCommands.begin(), kCommands.end(), [&](const char* c) { return word == c; });
}

std::string command_list() {
  std::string s;
  for (const char* c : kCommands) s += (s.empty() ? "" : ", ") + std::string(c);
  return s;
}

// A CLI11 validator: "" when V is a positive number of seconds (as std::stod reads it, the
// whole text), else what is wrong. CLI11 then converts the same text to the double.
std::string positive_seconds(const std::string& v) {
  try {
    std::size_t used = 0;
    const double d = std::stod(v, &used);
    if (used == v.size() && d > 0) return "";
  } catch (const std::exception&) {
  }
  return "needs a positive number of seconds, not \"" + v + "\"";
}

const char* kExitCodes =
    "exit codes: 0 pass, 1 a node fault (a criterion failed), 2 bad usage or input, 3 run incomplete,\n"
    "            4 inconclusive (re-test: a suspicion no re-test confirmed), 5 a tool error (gpuaccept or its setup failed)";

CommandLine usage_error(const std::string& command, const std::string& message) {
  CommandLine cl;
  cl.action = CommandLine::Action::usage_error;
  cl.text = "gpuaccept: " + message + "\nrun 'gpuaccept " + (command.empty() ? "" : command + " ") + "--help'\n";
  return cl;
}

CommandLine unknown_command(const std::string& word) {
  return usage_error("", "unknown command \"" + word + "\" (commands: " + command_list() + ")");
}

// CLI11's message for a parse error, reworded where it can name the flag and what it expects
// better. CLI11's messages start with the option's name, then ": ".
std::string message_of(const CLI::ParseError& e, const CLI::App* sub) {
  const std::string what = e.what();
  const auto colon = what.find(": ");
  const std::string name = colon == std::string::npos ? "" : what.substr(0, colon);
  const CLI::Option* opt = sub && !name.empty() ? sub->get_option_no_throw(name) : nullptr;
  if (dynamic_cast<const CLI::ValidationError*>(&e) && opt) return name + " " + what.substr(colon + 2);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && opt && what.find(" missing") != std::string::npos)
    return name + " needs a value: " + opt->get_type_name();
  // Arguments after "--", which the subcommand's remaining() does not keep.
  if (dynamic_cast<const CLI::ExtrasError*>(&e) && sub && colon != std::string::npos)
    return sub->get_name() + " takes no argument " + what.substr(colon + 2);
  return what;
}

}  // namespace

CommandLine parse_command_line(int argc, const char* const* argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // The words the old command line took, and `help COMMAND`.
  if (!args.empty() && args[0] == "version") {
    CommandLine cl;
    cl.action = CommandLine::Action::version;
    return cl;
  }
  if (!args.empty() && args[0] == "help") {
    if (args.size() > 1 && !is_command(args[1])) return unknown_command(args[1]);
    args = args.size() > 1 ? std::vector<std::string>{args[1], "--help"} : std::vector<std::string>{"--help"};
  }
  // No command, only options: `run`, which is what mpirun and srun launch.
  const bool top_level_flag = !args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "--version");
  if (args.empty() || (args[0].size() > 1 && args[0][0] == '-' && !top_level_flag)) args.insert(args.begin(), "run");
  if (!top_level_flag && !is_command(args[0])) return unknown_command(args[0]);
  const std::string command = top_level_flag ? "" : args[0];

  CommandLine cl;
  for (int i = 0; i < argc; ++i) cl.run.argv.push_back(argv[i]);
  // launch: what follows "--" is the run's own options, passed on untouched.
  if (command == "launch")
    if (auto dd = std::find(args.begin(), args.end(), "--"); dd != args.end()) {
      cl.launch.run_args.assign(dd + 1, args.end());
      args.erase(dd, args.end());
    }

  CLI::App app{"gpuaccept: one MPI binary from probe to judged, topology-annotated report.\n"
               "With options and no command it runs: `gpuaccept --suite quick` is "
               "`gpuaccept run --suite quick`.",
               "gpuaccept"};
  app.set_help_flag("-h,--help", "Print this help and exit");  // the subcommands copy it
  app.require_subcommand(1, 1);
  // As the hand-written parser did: an option given twice, the last one counts.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  CLI::App* run = app.add_subcommand("run", "Run a suite under mpirun or srun (gpuaccept itself is the MPI program)");
  auto* suite_opt = run->add_option("--suite", cl.run.suite, "A built-in suite (gpuaccept list) or a suite file")
      ->type_name("NAME|FILE")
      ->capture_default_str();
  // A name that is no profile is a usage error (exit 2) listing the known ones.
  auto profile_check = CLI::Validator(
      [](std::string& v) {
        try {
          criteria_profile(v);
          return std::string();
        } catch (const std::exception& e) {
          return std::string(e.what());
        }
      },
      "");
  std::string profile_names;
  for (const auto& n : criteria_profile_names()) profile_names += (profile_names.empty() ? "" : " | ") + n;
  run->add_option("--criteria", cl.run.criteria, "Judge by these criteria instead of the built-in ones")
      ->type_name("FILE");
  run->add_option("--criteria-profile", cl.run.criteria_profile,
                  "Judge by the built-in criteria and one system's absolute thresholds (gpuaccept list; docs/criteria.md)")
      ->type_name(profile_names)
      ->check(profile_check)
      ->excludes(run->get_option("--criteria"));
  run->add_option("--expect-topology", cl.run.expect_topology,
                  "Hold every host against this topology (hwloc XML, NCCL topology XML, nvidia-smi topo -m)")
      ->type_name("FILE");
  run->add_option("--out", cl.run.out, "The report directory (default: gpuaccept-report-<date>-<time>)")
      ->type_name("DIR");
  run->add_option("--shared-dir", cl.run.shared_dir,
                  "Where the storage and resume probes write (default: the report directory)")
      ->type_name("DIR");
  run->add_option("--probe-timeout", cl.run.probe_timeout_s,
                  "The deadline of each phase (startup, each probe, shutdown)")
      ->type_name("SECONDS")
      ->check(CLI::Validator([](std::string& v) { return positive_seconds(v); }, ""))
      ->capture_default_str();
  run->add_option("--rerun", cl.run.rerun,
                  "Re-test DIR's node-fault and inconclusive hosts (launch on rerun-plan's hosts): its suite unless --suite "
                  "says otherwise, its recorded criteria unless --criteria or --criteria-profile does; the report merges both "
                  "runs (campaign.md, campaign.json, bad-hosts.txt), clearing a host only where this run passed every "
                  "criterion it had failed, at the same place")
      ->type_name("DIR");
  auto report_check = CLI::Validator(
      [](std::string& v) {
        try {
          parse_report_choice(v);
          return std::string();
        } catch (const std::exception& e) {
          return std::string(e.what());
        }
      },
      "");
  run->add_option("--report", cl.run.report,
                  "The report files to write: json,md,html,junit,prom (default all); FMT:out=- prints one to stdout")
      ->type_name("FORMATS")
      ->check(report_check);
  run->add_option("--sign", cl.run.sign, "Sign the report at the end of the run (signature.dsse.json; gpuaccept keygen)")
      ->type_name("PREFIX.key");
  bool no_numa_bind = false;
  run->add_flag("--no-numa-bind", no_numa_bind,
                "Leave each rank's CPU binding as the launcher made it (default: bound to its GPU's NUMA node after "
                "discovery, on hosts with GPUs and several NUMA nodes)");
  // One value per --set (`--set a.b=1 c=2` leaves c=2 over), all of them, in order.
  run->add_option("--set", cl.run.overrides, "Override a probe parameter (repeatable, applied in order)")
      ->type_name("PROBE.KEY=VALUE")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1)
      ->allow_extra_args(false);
  // The p2p probe's leaf groups, a file every rank can name the same way; it becomes the first
  // --set, so an explicit --set p2p.switch_map=... still wins. Read by rank 0 when p2p runs.
  std::string switch_map;
  run->add_option("--switch-map", switch_map,
                  "Each host's leaf switch for the p2p probe's adaptive schedule: HOSTS LEAF [UPLINK...] lines or a "
                  "Slurm topology.conf (the same as --set p2p.switch_map=FILE)")
      ->type_name("FILE");
  // Progress lines go to stderr on rank 0 (docs/design.md, "Progress lines"); errors print either way.
  run->add_flag("--quiet", cl.run.quiet, "No progress lines on stderr (errors still print)");
  run->add_flag("--verbose", cl.run.verbose,
                "A progress line at every step of a probe (size, pair round), not one every few seconds");
  run->get_option("--quiet")->excludes(run->get_option("--verbose"));
  run->footer(kExitCodes);

  CLI::App* health = app.add_subcommand(
      "health", "One node's state in seconds, no MPI: Slurm's HealthCheckProgram, Prolog, Epilog (docs/slurm.md)");
  health->add_option("--expect-topology", cl.health.expect_topology,
                     "Hold this node against this topology (hwloc XML, NCCL topology XML, nvidia-smi topo -m)")
      ->type_name("FILE");
  health->add_option("--out", cl.health.out, "Keep the journal and the reports here (default: nothing is written)")
      ->type_name("DIR");
  health->add_flag("--drain", cl.health.drain,
                   "On a node fault, drain this node (scontrol, reason \"gpuaccept: health: ...\"), never on exit 2; "
                   "healthy, resume it if a health check drained it; drains nothing once --max-share of the node's "
                   "partition is drained by gpuaccept (then exit 1, saying why)");
  health->add_flag("--prolog", cl.health.prolog,
                   "For Slurm's Prolog, which drains on exit 1: on a node fault with the partition at --max-share, "
                   "print why and exit 0 so slurmd drains nothing either");
  health->add_option("--max-share", cl.health.max_share,
                     "The fleet cap of --drain and --prolog: the share of the node's partition(s) already drained with "
                     "a gpuaccept reason at which this check drains nothing (asked of sinfo; Slurm unreachable: exit 2). "
                     "Not drain's --max-share, which caps one run's drains at 0.5 of that run's hosts")
      ->type_name("FRACTION")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  health->add_option("--timeout", cl.health.timeout_s, "The whole check's deadline; past it, exit 2")
      ->type_name("SECONDS")
      ->check(CLI::Validator([](std::string& v) { return positive_seconds(v); }, ""))
      ->capture_default_str();
  health->add_option("--skip", cl.health.skip, "Leave a check out: inventory, topology, gpu, rdma or clock (repeatable)")
      ->type_name("CHECK")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1)
      ->allow_extra_args(false);
  health->add_option("--set", cl.health.overrides, "Override a probe parameter (repeatable, applied in order)")
      ->type_name("PROBE.KEY=VALUE")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1)
      ->allow_extra_args(false);
  health->footer("exit codes: 0 healthy (or inconclusive: nothing confirmed), 1 a node fault (drain),\n"
                 "            2 gpuaccept's own failure (a bad flag or file, a tool error, --timeout passed)");

  CLI::App* judge = app.add_subcommand("judge", "Re-judge a run directory from its journal; no MPI, no GPU");
  judge->add_option("DIR", cl.judge.dir, "The run directory (gpuaccept run --out DIR)")->type_name("")->required();
  judge->add_option("--criteria", cl.judge.criteria, "Judge by these criteria (default: those the run recorded; needs --out)")
      ->type_name("FILE");
  judge->add_option("--criteria-profile", cl.judge.criteria_profile,
                    "Judge by the built-in criteria and a system profile's (needs --out)")
      ->type_name(profile_names)
      ->check(profile_check)
      ->excludes(judge->get_option("--criteria"));
  judge->add_option("--out", cl.judge.out, "Write the reports here, not into DIR (the journal stays in DIR)")
      ->type_name("NEW");
  judge->add_option("--report", cl.judge.report, "As run's --report: json,md,html,junit,prom, FMT:out=- to stdout")
      ->type_name("FORMATS")
      ->check(report_check);
  judge->footer(kExitCodes);

  CLI::App* verify = app.add_subcommand(
      "verify", "Check a run directory: its manifest, its report files recomputed from its samples, its signature");
  verify->add_option("DIR", cl.verify.dir, "The run directory")->type_name("")->required();
  verify->add_option("--criteria", cl.verify.criteria, "Judge the samples again against this contract")->type_name("CONTRACT");
  verify->add_option("--criteria-profile", cl.verify.criteria_profile,
                     "Judge the samples again against the built-in criteria and a system profile's")
      ->type_name(profile_names)
      ->check(profile_check)
      ->excludes(verify->get_option("--criteria"));
  auto* pubkey = verify->add_option("--pubkey", cl.verify.pubkey,
                                    "Check signature.dsse.json against this public key (gpuaccept keygen): what proves who wrote DIR")
                     ->type_name("FILE");
  verify->add_flag("--unsigned", cl.verify.unsigned_only,
                   "Check consistency only (manifest, samples, report files), no signature: anyone with write access to DIR "
                   "could have produced a consistent directory")
      ->excludes(pubkey);
  verify->footer("One of --pubkey FILE and --unsigned is needed.\n"
                 "exit codes: 0 the directory is consistent (and signed by that key, with --pubkey) and passes, 1 it fails\n"
                 "            (the contract or the recorded criteria), 2 tampered, unreadable, the signature invalid, a file\n"
                 "            the manifest does not list or anything that is not a regular file (each named), or neither option");
  CLI::App* keygen = app.add_subcommand("keygen", "Write an Ed25519 key pair for signing reports (PEM, as openssl reads it)");
  keygen->add_option("--out", cl.keygen.out, "PREFIX: writes PREFIX.key (mode 0600) and PREFIX.pub")->type_name("PREFIX")->required();
  CLI::App* sign = app.add_subcommand("sign", "Sign a run directory's manifest (signature.dsse.json, DSSE around in-toto)");
  sign->add_option("DIR", cl.sign.dir, "The run directory")->type_name("")->required();
  sign->add_option("--key", cl.sign.key, "The private key (gpuaccept keygen)")->type_name("PREFIX.key")->required();

  CLI::App* topo = app.add_subcommand(
      "topo", "This host's topology, or a recorded one (hwloc XML, NCCL topology XML, nvidia-smi topo -m)");
  topo->add_option("--input", cl.topo.input, "Read this recorded topology instead of this host's")
      ->type_name("FILE");
  topo->add_flag("--json", cl.topo.json, "Print JSON instead of text");
  topo->footer("exit codes: 0 printed, 2 bad usage or a topology that cannot be read");

  CLI::App* list = app.add_subcommand("list", "Probes, what each needs, and the built-in suites");
  list->add_flag("--metrics", cl.list.metrics,
                 "Every declared metric: probe, unit, which way is better, how samples combine (a Markdown table)");
  list->add_flag("--params", cl.list.params,
                 "Every declared parameter: probe, type, default, allowed values (a Markdown table)");
  list->add_flag("--criteria", cl.list.criteria,
                 "The built-in criteria as YAML: what --criteria FILE replaces, a contract's starting point");
  list->add_flag("--profiles", cl.list.profiles,
                 "Every system profile's thresholds, each with its source figure and derivation (a Markdown table)");

  CLI::App* launch = app.add_subcommand(
      "launch", "Build the mpirun (or srun) line for a run and exec it: gpuaccept launch [OPTIONS] -- [RUN OPTIONS]");
  launch->add_option("--hostfile", cl.launch.hostfile, "The hosts, one per line (Open MPI's \"host slots=N\" reads too)")
      ->type_name("FILE");
  launch->add_option("--hosts", cl.launch.hosts, "The hosts")->type_name("H1,H2,...");
  launch->add_flag("--slurm", cl.launch.slurm, "srun inside the allocation (its nodes) instead of mpirun");
  launch->add_flag("--job-tasks", cl.launch.job_tasks,
                   "With --slurm: the tasks the job asked for (sbatch -n / --ntasks-per-node), as Slurm lays them out, "
                   "instead of --ranks-per-host on every node");
  launch->add_option("--ranks-per-host", cl.launch.ranks_per_host,
                     "Ranks on each host (default: one per GPU Slurm gives, SLURM_GPUS_ON_NODE, else 1)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  launch->add_flag("--oversubscribe", cl.launch.oversubscribe, "More ranks than cores (waiting ranks yield the core)");
  launch->add_flag("--no-bind", cl.launch.no_bind, "Do not bind ranks to NUMA nodes (ranks of several fake hosts on one machine)");
  launch->add_option("--mca", cl.launch.mca, "An Open MPI parameter for mpirun (repeatable)")
      ->type_name("KEY=VALUE")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1)
      ->allow_extra_args(false);
  launch->add_option("--program", cl.launch.program, "The gpuaccept the ranks run (default: this one)")->type_name("PATH");
  launch->add_flag("--dry-run", cl.launch.dry_run, "Print the line, run nothing");
  launch->get_option("--hostfile")->excludes(launch->get_option("--hosts"));
  launch->footer("NCCL_*, UCX_*, OMPI_MCA_* and GPUACCEPT_* variables are forwarded to every rank by name.\n"
                 "exit codes: those of the run; 2 bad usage or hostfile, 5 mpirun/srun could not be started");

  CLI::App* drain = app.add_subcommand(
      "drain", "Print the scontrol lines that drain a run's node-fault hosts (bad-hosts.txt); run them with --apply");
  drain->add_option("DIR", cl.drain.dir, "The run directory")->type_name("")->required();
  drain->add_flag("--apply", cl.drain.apply, "Run the scontrol lines (needs Slurm's admin rights)");
  drain->add_flag("--force", cl.drain.force, "Drain even more than --max-share of the run's hosts");
  drain->add_option("--max-share", cl.drain.max_share,
                    "With --apply, refuse to drain more than this share of the run's hosts (one run's drains; "
                    "health's --max-share, 0.1, caps the drains of every health check of a partition together)")
      ->type_name("FRACTION")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  drain->footer("Only node faults are drained, never a tool error or inconclusive evidence.\n"
                "exit codes: 0 nothing to drain, 1 lines printed (and run with --apply), 2 bad usage, no\n"
                "            bad-hosts.txt, or the circuit breaker refused, 5 scontrol failed");

  CLI::App* undrain = app.add_subcommand(
      "undrain", "Print the scontrol lines that resume hosts gpuaccept drained and that passed in a run; --apply runs them");
  undrain->add_option("DIR", cl.undrain.dir, "The run directory")->type_name("")->required();
  undrain->add_flag("--apply", cl.undrain.apply, "Run the scontrol lines");
  undrain->footer("A node drained for another reason (not \"gpuaccept: ...\") keeps its state and reason.\n"
                  "exit codes: 0 nothing to resume, 1 lines printed (and run with --apply), 2 bad usage or no\n"
                  "            bad-hosts.txt, 5 sinfo or scontrol failed");

  CLI::App* rerun = app.add_subcommand(
      "rerun-plan", "Print the re-test of a run's node-fault and inconclusive hosts, with hosts that passed as partners");
  rerun->add_option("DIR", cl.rerun_plan.dir, "The run directory")->type_name("")->required();
  rerun->add_option("--partners", cl.rerun_plan.partners, "How many hosts that passed join as known-good partners")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  rerun->add_option("--ranks-per-host", cl.rerun_plan.ranks_per_host, "Ranks on each host of the mpirun line (default 1)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  rerun->footer("Runs nothing. exit codes: 0 nothing to re-test, 1 a plan printed, 2 bad usage or no bad-hosts.txt");

  CLI::App* show = app.add_subcommand(
      "show", "Every verdict and sample of one place, the places under it (NUMA nodes, GPUs, NICs, rails) and its links");
  show->add_option("DIR", cl.show.dir, "The run directory")->type_name("")->required();
  show->add_option("PLACE", cl.show.place, "A host, HOST/gpu:N, HOST/numa:N, HOST/nic:NAME, A~B or cluster")
      ->type_name("")
      ->required();
  show->add_flag("--json", cl.show.json, "JSON instead of tables: {\"verdicts\": [...], \"samples\": [...]}");
  show->footer("Reads report.json and samples.jsonl, writes nothing. exit codes: 0 printed, 2 bad usage, no report.json,\n"
               "or PLACE not in the run (the nearest names are listed)");

  // After the subcommands, which copy the help flag and the footer from here when created.
  app.set_help_flag("-h,--help", "Print this help and exit (also: gpuaccept help [COMMAND])");
  app.set_version_flag("--version", [] { return version_text(); },
                       "Print the version and what it was built with, and exit");
  app.footer(std::string(kExitCodes) + "\nrun 'gpuaccept COMMAND --help' for the options of each command");

  // Unknown options and extra arguments stay in the subcommand's remaining(), so the message
  // can say which command did not take them.
  for (CLI::App* s : {run, health, judge, verify, keygen, sign, topo, list, launch, drain, undrain, rerun, show}) s->allow_extras();
  CLI::App* sub = command.empty() ? nullptr : app.get_subcommand(command);

  std::reverse(args.begin(), args.end());  // CLI11 takes the vector reversed
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    cl.action = CommandLine::Action::help;
    cl.text = app.help();  // the subcommand's, when one was given
    return cl;
  } catch (const CLI::CallForVersion&) {
    cl.action = CommandLine::Action::version;
    return cl;
  } catch (const CLI::RequiredError& e) {
    if (sub == judge) return usage_error(command, "judge needs the run directory: gpuaccept judge DIR [--criteria FILE --out NEW]");
    if (sub == verify) return usage_error(command, "verify needs the run directory: gpuaccept verify DIR (--pubkey FILE | --unsigned)");
    if (sub == keygen) return usage_error(command, "keygen needs --out PREFIX");
    if (sub == sign) return usage_error(command, "sign needs the run directory and a key: gpuaccept sign DIR --key PREFIX.key");
    if (sub == drain) return usage_error(command, "drain needs the run directory: gpuaccept drain DIR [--apply]");
    if (sub == undrain) return usage_error(command, "undrain needs the run directory: gpuaccept undrain DIR [--apply]");
    if (sub == rerun) return usage_error(command, "rerun-plan needs the run directory: gpuaccept rerun-plan DIR");
    if (sub == show) return usage_error(command, "show needs the run directory and a place: gpuaccept show DIR PLACE [--json]");
    return usage_error(command, message_of(e, sub));
  } catch (const CLI::ParseError& e) {
    return usage_error(command, message_of(e, sub));
  }

  if (sub) {
    const auto extra = sub->remaining();
    if (!extra.empty()) {
      const std::string& a = extra.front();
      if (a.size() > 1 && a[0] == '-') return usage_error(command, command + " has no option " + a);
      return usage_error(command, command + " takes no argument \"" + a + "\"");
    }
  }
  if (sub == run) cl.run.numa_bind = !no_numa_bind;
  if (sub == run && !cl.run.rerun.empty() && suite_opt->count() == 0) cl.run.suite = run::suite_of_run(cl.run.rerun);
  if (sub == run && !switch_map.empty()) cl.run.overrides.insert(cl.run.overrides.begin(), "p2p.switch_map=" + switch_map);
  cl.health.argv = cl.run.argv;
  if (sub == run) cl.action = CommandLine::Action::run;
  else if (sub == health) cl.action = CommandLine::Action::health;
  else if (sub == judge) cl.action = CommandLine::Action::judge;
  else if (sub == verify) cl.action = CommandLine::Action::verify;
  else if (sub == keygen) cl.action = CommandLine::Action::keygen;
  else if (sub == sign) cl.action = CommandLine::Action::sign;
  else if (sub == topo) cl.action = CommandLine::Action::topo;
  else if (sub == launch) cl.action = CommandLine::Action::launch;
  else if (sub == drain) cl.action = CommandLine::Action::drain;
  else if (sub == undrain) cl.action = CommandLine::Action::undrain;
  else if (sub == rerun) cl.action = CommandLine::Action::rerun_plan;
  else if (sub == show) cl.action = CommandLine::Action::show;
  else cl.action = CommandLine::Action::list;
  return cl;
}

}  // namespace ga::app
