// Versions of the stack a host runs, as found at run time (never as compiled against).
#pragma once
#include <map>
#include <string>

namespace ga {

// Keys: mpi, hwloc, cuda_driver, cuda_runtime, nccl, libibverbs. "none" when absent, with
// the reason in reasons[key].
struct StackVersions {
  std::map<std::string, std::string> version;
  std::map<std::string, std::string> reasons;
};

StackVersions discover_versions();

}  // namespace ga
