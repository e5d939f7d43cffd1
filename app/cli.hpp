// gpuaccept's command line (CLI11), parsed into the options of one subcommand.
// parse_command_line neither prints nor exits: main does both, so every usage error exits
// kExitUsage (2) and never one of CLI11's own exit codes.
#pragma once
#include <string>

#include "app/commands.hpp"

namespace ga::app {

struct CommandLine {
  enum class Action { run, health, judge, verify, keygen, sign, topo, list, launch, drain, undrain, rerun_plan, show, help, version, usage_error };
  Action action = Action::run;
  RunOptions run;       // run.argv: argv as given, for the report
  HealthOptions health;
  JudgeOptions judge;
  VerifyOptions verify;
  KeygenOptions keygen;
  SignOptions sign;
  TopoOptions topo;
  ListOptions list;
  LaunchOptions launch;
  DrainOptions drain;
  UndrainOptions undrain;
  RerunPlanOptions rerun_plan;
  ShowOptions show;
  // help: the help text for stdout. usage_error: "gpuaccept: MESSAGE\nrun 'gpuaccept ... --help'\n"
  // for stderr.
  std::string text;
};

// Bare `gpuaccept` and `gpuaccept --option ...` (options, no subcommand) mean `run`: mpirun
// and srun launch `gpuaccept --suite X`. The resume worker's hidden command is not parsed
// here: main dispatches it before.
CommandLine parse_command_line(int argc, const char* const* argv);

}  // namespace ga::app
