// One-line reads of sysfs and procfs attributes, shared by discovery and the probes that
// re-read the live state (ports, GPUs, processes).
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace ga::sysfs {

// The file's first line without trailing whitespace (sysfs values end in "\n");
// nullopt when the file is missing, unreadable or holds no line at all.
std::optional<std::string> read_line(const std::filesystem::path& p);

// The running kernel's boot id (/proc/sys/kernel/random/boot_id). Ranks that read the same
// one share that kernel's CPUs, memory and devices whatever their hostnames say (fake hosts
// are network namespaces of one kernel), so they are not independent evidence against each
// other. nullopt where /proc does not tell.
std::optional<std::string> boot_id();

}  // namespace ga::sysfs
