#include "probes/harness/process_state.hpp"

#include "base/sysfs_read.hpp"

namespace ga {

const char* to_string(ProcState s) {
  switch (s) {
    case ProcState::running: return "running";
    case ProcState::stopped: return "stopped";
    case ProcState::zombie: return "zombie";
    case ProcState::gone: return "gone";
  }
  return "gone";
}

ProcState process_state(long pid, const std::string& proc_root) {
  const auto read = sysfs::read_line(proc_root + "/" + std::to_string(pid) + "/stat");
  if (!read) return ProcState::gone;
  const std::string& line = *read;
  // "pid (comm) S ...": comm may hold spaces and parentheses, so the state follows the last ')'.
  auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return ProcState::gone;
  switch (line[close + 2]) {
    case 'T':
    case 't': return ProcState::stopped;
    case 'Z':
    case 'X':
    case 'x': return ProcState::zombie;
    default: return ProcState::running;  // R, S, D, I, ...: alive and schedulable
  }
}

}  // namespace ga
