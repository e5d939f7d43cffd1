// Runs a host tool (chronyc, timedatectl) with a hard time limit and captures its output.
// A time daemon that does not answer must cost the probe a second, never hang it: on
// timeout the child's whole process group is killed.
#pragma once
#include <string>
#include <vector>

namespace ga::clock {

struct CommandResult {
  bool found = false;      // the program exists on PATH
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;      // -1 when killed by a signal or not run
  std::string out, err;
  std::string problem;     // why it did not give usable output, "" when exit code 0
};

// argv[0] is looked up on PATH. The child runs with LC_ALL=C so output parses the same
// everywhere, stdin from /dev/null. Output beyond 1 MiB is dropped.
CommandResult run_bounded(const std::vector<std::string>& argv, double timeout_s);

}  // namespace ga::clock
