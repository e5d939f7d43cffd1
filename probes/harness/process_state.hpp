// The state of a local process, from /proc. Used when MPI can no longer be asked (a hang in
// MPI_Finalize): a rank stopped by SIGSTOP or gone is visible to its host's other ranks.
#pragma once
#include <string>

namespace ga {

enum class ProcState { running, stopped, zombie, gone };
const char* to_string(ProcState);
ProcState process_state(long pid, const std::string& proc_root = "/proc");

}  // namespace ga
