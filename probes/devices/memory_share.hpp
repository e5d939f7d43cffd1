// How much memory a GPU probe's buffers may take on one rank: a stated share of the device's
// free memory (cuMemGetInfo) and the same share of the host's available memory
// (/proc/meminfo MemAvailable) divided among the ranks of the host, which allocate at once.
// Without it the buffers were sized from the device alone: on hosts where the "device" is host
// memory (the fakes) or where many ranks share a host, the run went to the OOM killer.
#pragma once
#include <cstddef>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

namespace ga::gpu {

struct MemoryShare {
  std::size_t device_free = 0;
  std::size_t host_available = 0;  // 0: unknown (no /proc/meminfo), then not a limit
  int local_ranks = 1;
  double fraction = 0.25;

  std::size_t device_bytes() const { return static_cast<std::size_t>(double(device_free) * fraction); }
  std::size_t host_bytes() const {
    if (host_available == 0) return std::numeric_limits<std::size_t>::max();
    return static_cast<std::size_t>(double(host_available) / double(local_ranks < 1 ? 1 : local_ranks) * fraction);
  }
  // What the sizes were chosen from, for a sample's params.
  nlohmann::json params() const {
    return {{"device_free", device_free}, {"host_available", host_available}, {"local_ranks", local_ranks},
            {"memory_share", fraction}};
  }
};

// MemAvailable of `meminfo` in bytes; 0 when it cannot be read.
std::size_t host_mem_available(const std::string& meminfo = "/proc/meminfo");

}  // namespace ga::gpu
