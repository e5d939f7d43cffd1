#include "base/prefault.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace ga::base {

void prefault(const void* data, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  static const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + page - 1) & ~(page - 1), last = (begin + bytes) & ~(page - 1);
  if (bytes < 16 * page || last <= first) return;  // a few pages: the faults cost less than the call
  // EINVAL on kernels before 5.14; anything else (ENOMEM) leaves the pages to fault as usual.
  (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
#else
  (void)data, (void)bytes;
#endif
}

}  // namespace ga::base
