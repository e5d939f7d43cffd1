#include "app/host_identity.hpp"

#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace ga::app {

std::string short_hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  gethostname(buf, sizeof buf - 1);
  std::string h = buf;
  return h.substr(0, h.find('.'));
}

std::string sysfs_root_from_env() {
  const char* r = std::getenv("GPUACCEPT_SYSFS_ROOT");
  return r ? r : "";
}

}  // namespace ga::app
