// gpuaccept: one MPI binary from probe to judged, topology-annotated report.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "app/commands.hpp"
#include "probes/resume/worker.hpp"

namespace {

const char* kUsage = R"(usage:
  gpuaccept [run] [--suite NAME|FILE] [--criteria FILE] [--expect-topology FILE]
                  [--out DIR] [--shared-dir DIR] [--probe-timeout SECONDS]
                  [--set PROBE.KEY=VALUE ...]
      Run a suite under mpirun or srun (gpuaccept itself is the MPI program).
  gpuaccept judge DIR [--criteria FILE]
      Re-judge a run directory from its journal; no MPI, no GPU.
  gpuaccept topo [--input FILE] [--json]
      This host's topology, or a recorded one (hwloc XML, NCCL topology XML, nvidia-smi topo -m).
  gpuaccept list
      Probes, what each needs, and the built-in suites.
  gpuaccept --version | --help
exit codes: 0 pass, 1 a criterion failed, 2 bad usage or input, 3 run incomplete
)";

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "gpuaccept: %s\n%s", msg.c_str(), kUsage);
  std::exit(ga::app::kExitUsage);
}

std::string value_of(int& i, int argc, char** argv) {
  if (i + 1 >= argc) usage_error(std::string(argv[i]) + " needs a value");
  return argv[++i];
}

double seconds_of(const std::string& flag, const std::string& v) {
  try {
    std::size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size() && d > 0) return d;
  } catch (const std::exception&) {
  }
  usage_error(flag + " needs a positive number of seconds, not \"" + v + "\"");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ga::app;
  int first = 1;
  std::string cmd = "run";
  if (argc > 1 && argv[1][0] != '-') {
    cmd = argv[1];
    first = 2;
  }
  if (argc > 1 && (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "version"))) {
    std::cout << version_text();
    return 0;
  }
  if (argc > 1 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help"))) {
    std::cout << kUsage;
    return 0;
  }
  // Hidden: a worker of the resume probe, started by a gpuaccept rank; not an MPI program.
  if (cmd == ga::resume::kWorkerCommand) return ga::resume::resume_worker_main(argc - 1, argv + 1);
  if (cmd == "run") {
    RunOptions o;
    for (int i = 0; i < argc; ++i) o.argv.push_back(argv[i]);
    for (int i = first; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--suite") o.suite = value_of(i, argc, argv);
      else if (a == "--criteria") o.criteria = value_of(i, argc, argv);
      else if (a == "--expect-topology") o.expect_topology = value_of(i, argc, argv);
      else if (a == "--out") o.out = value_of(i, argc, argv);
      else if (a == "--shared-dir") o.shared_dir = value_of(i, argc, argv);
      else if (a == "--probe-timeout") o.probe_timeout_s = seconds_of(a, value_of(i, argc, argv));
      else if (a == "--set") o.overrides.push_back(value_of(i, argc, argv));
      else usage_error("unknown argument to run: " + a);
    }
    return run_command(o, &argc, &argv);
  }
  if (cmd == "judge") {
    JudgeOptions o;
    for (int i = first; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--criteria") o.criteria = value_of(i, argc, argv);
      else if (!a.empty() && a[0] != '-' && o.dir.empty()) o.dir = a;
      else usage_error("unknown argument to judge: " + a);
    }
    if (o.dir.empty()) usage_error("judge needs the run directory");
    return judge_command(o);
  }
  if (cmd == "topo") {
    TopoOptions o;
    for (int i = first; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--input") o.input = value_of(i, argc, argv);
      else if (a == "--json") o.json = true;
      else usage_error("unknown argument to topo: " + a);
    }
    return topo_command(o);
  }
  if (cmd == "list") {
    if (argc > first) usage_error("list takes no arguments");
    return list_command();
  }
  usage_error("unknown command \"" + cmd + "\"");
}
