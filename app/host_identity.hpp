#pragma once
#include <string>

namespace ga::app {
// The short hostname: places are keyed by it (node017, not node017.cluster.example).
std::string short_hostname();
// GPUACCEPT_SYSFS_ROOT: a recorded /sys tree for tests ("" = the real one).
std::string sysfs_root_from_env();
}  // namespace ga::app
