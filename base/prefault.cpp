#include "base/prefault.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "base/both.hpp"

namespace ga::base {

void prefault(const void* data, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  static const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + page - 1) & ~(page - 1), last = (begin + bytes) & ~(page - 1);
  if (bytes < 16 * page || last <= first) return;  // a few pages: the faults cost less than the call
  // EINVAL on kernels before 5.14; anything else (ENOMEM) leaves the pages to fault as usual.
  auto populate = [](std::uintptr_t from, std::uintptr_t to) {
    (void)madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
  };
  // A large range in two halves at once: zeroing (and, in a virtual machine, the hypervisor's
  // backing of) each page is per-page work that two cores do side by side, and the callers
  // make these ranges where the other core has nothing to do (the judge's metric slots at
  // 4096 hosts: ~1 GB). A thread costs tens of microseconds; below 64 MiB it is not worth it.
  if (last - first < (std::uintptr_t{64} << 20)) {
    populate(first, last);
    return;
  }
  const std::uintptr_t mid = first + ((last - first) / 2 & ~(page - 1));
  both([&] { populate(mid, last); }, [&] { populate(first, mid); });
#else
  (void)data, (void)bytes;
#endif
}

}  // namespace ga::base
