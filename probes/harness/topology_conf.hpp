// Which leaf switch each host hangs off, from a file the cluster already has or a short one
// the operator writes. Read by the adaptive pair schedule (probes/harness/isolation.hpp) so it
// pairs hosts within their leaf and samples the links between leaves.
//
// Two formats, told apart by their content:
//   Slurm topology.conf (topology/tree plugin): lines `SwitchName=leaf1 Nodes=node[001-032]`
//     make leaf1 the leaf of those nodes; `SwitchName=spine1 Switches=leaf[1-4]` make spine1
//     the parent of those switches. Other keys (LinkSpeed) are ignored; keys are
//     case-insensitive, as Slurm reads them; `#` starts a comment; a trailing `\` continues
//     the line.
//   A switch map (`--switch-map FILE`): one `HOSTS LEAF [UPLINK...]` per line, HOSTS a host
//     name or a Slurm hostlist expression (`node[001-032]`), LEAF the leaf switch's name, and
//     optionally the switches above it, nearest first (`node[01-16] leaf1 spine1`).
//     `#` starts a comment. A host named twice, on different leaves, is an error.
// Pure: text in, map out. Errors throw std::invalid_argument naming the source and line.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace ga::isolation {

// Expands a Slurm hostlist: "node[001-003,7],gpu1" -> node001 node002 node003 node007 gpu1.
// A range keeps the width of its first number (zero padding), several bracket groups in one
// name multiply ("r[1-2]n[1-2]" -> r1n1 r1n2 r2n1 r2n2). Throws std::invalid_argument on an
// unbalanced bracket, a reversed or non-numeric range, more than `limit` names, or names of
// more than kHostlistMaxBytes in all.
inline constexpr std::size_t kHostlistMaxNames = 65536;       // Slurm's own hostlists stop there
inline constexpr std::size_t kHostlistMaxBytes = 16u << 20;   // 165 bytes of brackets were 323 MB (fuzz_switch_map)
// What one switch map may name in all, every list of it together: a file of many lists of
// 65536 names each was hours of work.
inline constexpr std::size_t kSwitchMapMaxNames = 1u << 20;
std::vector<std::string> expand_hostlist(const std::string& expr, std::size_t limit = kHostlistMaxNames);

struct SwitchMap {
  std::string format;                                  // "topology.conf" or "switch-map"
  std::map<std::string, std::string> leaf_of;          // host -> its leaf switch
  std::map<std::string, std::string> parent_of;        // switch -> the switch above it
  // The switches above a leaf, nearest first (empty when the file says nothing above it).
  std::vector<std::string> uplinks(const std::string& leaf) const;
  // The lowest switch above both leaves ("" when the file does not connect them).
  std::string common_switch(const std::string& leaf_a, const std::string& leaf_b) const;
};

SwitchMap parse_topology_conf(const std::string& text, const std::string& source);
SwitchMap parse_switch_map(const std::string& text, const std::string& source);
// Either format: a line starting with SwitchName= (any case) makes it a topology.conf.
SwitchMap parse_switch_file(const std::string& text, const std::string& source);
// Reads and parses a file; throws std::invalid_argument when it cannot be read.
SwitchMap load_switch_file(const std::string& path);

}  // namespace ga::isolation
