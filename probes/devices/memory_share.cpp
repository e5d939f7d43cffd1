#include "probes/devices/memory_share.hpp"

#include <fstream>
#include <sstream>

namespace ga::gpu {

std::size_t host_mem_available(const std::string& meminfo) {
  std::ifstream in(meminfo);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream s(line.substr(13));
    std::size_t kib = 0;
    s >> kib;  // the kernel writes "MemAvailable:   123456 kB"
    return kib * 1024;
  }
  return 0;
}

}  // namespace ga::gpu
