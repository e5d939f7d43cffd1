// NVIDIA's Xid catalogue (probes/gpu/xid_catalogue.yaml, embedded into the binary): what each
// Xid in the kernel log asks of the operator. The gpu probe puts the action into the XID
// sample's params.reason, which the judge appends to a failing verdict's reason, so the report
// (and a drain reason built from it) says "Xid 79 (GPU has fallen off the bus): reboot the node,
// then inspect the hardware" rather than a bare count.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace ga::gpu {

struct XidEntry {
  int xid = 0;
  std::string mnemonic;      // ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS ("" where the catalogue has none)
  std::string description;   // "GPU has fallen off the bus" ("" where the catalogue gives none)
  std::string bucket;        // the catalogue's immediate action: RESTART_BM
  std::string action;        // the bucket in the operator's words: "reboot the node, then inspect the hardware"
  bool node = true;          // the bucket's severity: the node needs an operator (else the application's)
  // "GPU has fallen off the bus", else the mnemonic, else "".
  std::string name() const { return description.empty() || description == "Unused" ? mnemonic : description; }
};

class XidCatalogue {
 public:
  // Parses the catalogue's YAML; throws std::runtime_error naming the entry that is wrong (an
  // Xid without an action, an action that is not in `actions`, an Xid listed twice).
  static XidCatalogue parse(const std::string& yaml_text);
  // The one built into the binary, parsed once.
  static const XidCatalogue& builtin();

  const XidEntry* find(int xid) const;
  // Whether Xid `xid` points at the hardware or the node (a drain), by its bucket's severity;
  // an Xid the catalogue does not know is the node's until someone says otherwise (fail closed).
  bool node_fault(int xid) const;
  // A copy with buckets moved, as the gpu probe's xid_severity parameter says them:
  // "RESTART_APP=node,IGNORE=application". Throws std::invalid_argument naming an unknown
  // bucket or severity.
  XidCatalogue with_severity(const std::string& spec) const;
  // Every bucket and its severity ("node" or "application"), for `gpuaccept list` and the docs.
  const std::map<std::string, std::string>& severities() const { return severity_; }
  const std::map<int, XidEntry>& entries() const { return entries_; }
  const std::string& source() const { return source_; }    // the documentation's URL
  const std::string& version() const { return version_; }

  // "Xid 79 (GPU has fallen off the bus): reboot the node, then inspect the hardware";
  // "Xid 999: not in NVIDIA's Xid catalogue (<version>): look it up at <source>".
  std::string describe(int xid) const;
  // The distinct codes of `codes` in first-seen order, each described, "; "-separated, with
  // "(3 times)" where one repeats: the XID sample's reason.
  std::string reason(const std::vector<int>& codes) const;

 private:
  std::map<int, XidEntry> entries_;
  std::map<std::string, std::string> severity_;  // bucket -> "node" | "application"
  std::string source_, version_;
};

}  // namespace ga::gpu
