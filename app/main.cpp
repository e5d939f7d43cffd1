// gpuaccept: one MPI binary from probe to judged, topology-annotated report.
#include <iostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "probes/probe.hpp"

int main(int argc, char** argv) {
  using namespace ga::app;
  // Hidden: a probe's helper command (the resume probe's worker), started by a gpuaccept rank;
  // not an MPI program, and not a command of the command line below (its arguments are its own).
  if (argc > 1) {
    ga::ProbeRegistry reg;
    ga::register_builtin_probes(reg);
    if (const auto helper = reg.find_helper(argv[1])) return helper->main(argc - 1, argv + 1);
  }
  const CommandLine cl = parse_command_line(argc, argv);
  switch (cl.action) {
    case CommandLine::Action::help: std::cout << cl.text; return ga::kExitPass;
    case CommandLine::Action::version: std::cout << version_text(); return ga::kExitPass;
    case CommandLine::Action::usage_error: std::cerr << cl.text; return ga::kExitUsage;
    case CommandLine::Action::run: return run_command(cl.run, &argc, &argv);  // argc, argv: for MPI_Init
    case CommandLine::Action::health: return health_command(cl.health);
    case CommandLine::Action::judge: return judge_command(cl.judge);
    case CommandLine::Action::verify: return verify_command(cl.verify);
    case CommandLine::Action::keygen: return keygen_command(cl.keygen);
    case CommandLine::Action::sign: return sign_command(cl.sign);
    case CommandLine::Action::topo: return topo_command(cl.topo);
    case CommandLine::Action::list: return list_command(cl.list);
    case CommandLine::Action::launch: return launch_command(cl.launch);
    case CommandLine::Action::drain: return drain_command(cl.drain);
    case CommandLine::Action::undrain: return undrain_command(cl.undrain);
    case CommandLine::Action::rerun_plan: return rerun_plan_command(cl.rerun_plan);
    case CommandLine::Action::show: return show_command(cl.show);
  }
  return ga::kExitUsage;
}
