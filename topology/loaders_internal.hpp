// Per-format loaders behind load_topology_text / discover_local. Each returns a classified
// host. `name` names the input in errors; `hostname` is used when the file records none.
#pragma once
#include <string>

#include "topology/topology.hpp"

namespace ga::topo::detail {

// Refuses XML that the parsers behind the loaders must not see (throws TopologyError naming the
// line): any document type declaration but the one hwloc itself writes (`<!DOCTYPE topology
// SYSTEM "hwloc.dtd">` or "hwloc2.dtd", no internal subset; NCCL writes none, so
// hwloc_dtd_allowed=false there), any entity declaration, NUL bytes, a declared encoding that
// is not ASCII-compatible. detect_format calls it, and each XML loader again before its parser.
void reject_unsafe_xml(const std::string& content, const std::string& name, bool hwloc_dtd_allowed);

// Refuses text that is not UTF-8 (throws TopologyError naming the line): the loaded host's names
// and models go into the journal and report.json, whose JSON writer throws on such bytes, far
// from the file. hwloc, NCCL and nvidia-smi all write UTF-8. Each loader calls it first.
void require_utf8(const std::string& content, const std::string& name);

HostTopology load_hwloc_xml(const std::string& content, const std::string& name, const std::string& hostname);
// The same, with hwloc's import in a child process (base/child.hpp): a file that crashes hwloc
// (a SIGSEGV the checks before it do not foresee) is a TopologyError naming the file, not a
// crash of gpuaccept. What load_topology_text and load_topology_file use; the fuzz target
// calls load_hwloc_xml itself, so that a crash is seen.
HostTopology load_hwloc_xml_isolated(const std::string& content, const std::string& name, const std::string& hostname);
HostTopology load_nccl_xml(const std::string& content, const std::string& name, const std::string& hostname);
HostTopology load_nvidia_smi(const std::string& content, const std::string& name, const std::string& hostname);

// Live hwloc topology of this machine, I/O kept, not yet classified; paths filled for classify_pci.
struct PciPaths;
HostTopology discover_hwloc_live(const std::string& hostname, PciPaths& paths);

// Marketing name for a known PCI vendor:device pair, else "PCI 10de:20b0" so models still compare.
std::string gpu_model_from_pci(unsigned vendor, unsigned device);
std::string vendor_name(unsigned pci_vendor);

}  // namespace ga::topo::detail
