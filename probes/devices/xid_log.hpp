// XID errors: the driver reports them only to the kernel log ("NVRM: Xid (PCI:0000:1b:00): 79,
// ..."); NVML has no call that returns past ones. So the gpu probe reads the kernel ring
// buffer (/dev/kmsg) when it may, and says so when it may not (unprivileged containers).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ga::gpu {

struct XidEvents {
  int count = 0;
  std::vector<int> codes;               // in log order, e.g. {79, 48}
};

// Per device "0000:1b:00" (domain:bus:device, lower case, no function).
std::map<std::string, XidEvents> count_xids(const std::vector<std::string>& kernel_log_lines);
// The kernel log lines, or nullopt with `why`.
std::optional<std::vector<std::string>> read_kernel_log(const std::string& path, std::string* why);
// "0000:1b:00.0" -> "0000:1b:00", the key count_xids uses.
std::string xid_key(const std::string& pci_bus_id);

}  // namespace ga::gpu
