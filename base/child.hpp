// Work that may crash, run in a forked child so that the crash is the child's: a library that
// reads untrusted input (hwloc's XML import dereferences NULL on some malformed files) cannot
// take gpuaccept down with it, and the caller gets an error naming the file instead of a
// SIGSEGV. POSIX fork: call it before MPI starts or from a process without MPI; the child runs
// only `work`, writes its result to a pipe and leaves with _exit (no destructors, no atexit).
#pragma once
#include <functional>
#include <string>

namespace ga::base {

struct ChildOutcome {
  enum class Kind {
    returned,  // `work` returned; `text` is what it returned
    threw,     // `work` threw; `text` is the exception's what()
    died,      // the child was killed by a signal (`signal`) or exited otherwise; `text` says how
  } kind = Kind::died;
  std::string text;
  int signal = 0;
};

// Throws std::runtime_error only when the child cannot be started (pipe or fork failing).
ChildOutcome run_in_child(const std::function<std::string()>& work);

}  // namespace ga::base
