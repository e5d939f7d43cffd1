// What a probe declares before it runs: the metrics it may emit (unit, which way is better,
// how the samples of one place combine) and the parameters it takes (type, default, range).
// Declaration, instance and result are separate types (google/benchmark's shape): the judge
// takes a metric's unit, direction and owning probe from here, never from a name prefix or a
// sample, and a criteria file or a --set naming something undeclared is refused before a run.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "topology/place.hpp"

namespace ga {

enum class Better {
  higher,  // bandwidth, FLOP/s, free space
  lower,   // latency, errors, offsets, slowdowns
  none,    // a state, a version, a count that must only match its peers
};
const char* to_string(Better);

// How the samples of one (metric, place, params) combine into the judged value. A place is
// measured by one rank, so this is how its repeats combine: one slow iteration must not decide.
// last: the sample with the highest iter, for a running figure a probe states again after
// each interval (soak.step_drift): the last statement covers the whole run.
enum class Combine { median, min, max, sum, last };
const char* to_string(Combine);

struct MetricDecl {
  std::string id;       // "p2p.bw"; a trailing '*' declares a family: "inventory.version.*"
  std::string unit;     // as the samples carry it: "B/s", "s", "x", "bool", "count", "text", "" ...
  Better better = Better::none;
  std::string summary;  // one line: list --metrics and docs/criteria.md
  Combine combine = Combine::median;
  // Where its samples are emitted (the place kinds) and which params keys they may carry: what
  // a criterion's `scope` and `where` are checked against before a run, so a typo'd scope or
  // key cannot silently select nothing (issue 32). Held to the samples the probes emit by
  // tests/unit/probes_declarations_test.cpp. Empty `places`: not stated (nothing is checked);
  // `param_keys` nullopt: not stated, an empty list: its samples carry no params.
  std::vector<place::Kind> places{};
  std::optional<std::vector<std::string>> param_keys{};
  // Absent where its probe ran means "could not be judged", not "does not apply": a figure
  // derived from a table the probe lacks an entry for (soak.gemm_of_theory for a GPU model
  // with no peak). The judge makes a criterion on it inconclusive there, never skipped (a gate
  // dropping out reads as a pass) nor missing (no node lacks anything).
  bool absent_unjudged = false;
  // Its samples are a network namespace's (the net counters): hosts that share one kernel but
  // not one network stack (fake hosts) are independent evidence for it, so the judge compares
  // them with the cluster median although they share a boot_id (suites/judge.cpp).
  bool per_network_namespace = false;
  // What a failure that is not the node's becomes (suites/judge.cpp): failing at every host
  // where it was judged (two or more: a plugin or library no host loads, a setting all of them
  // got), or where the sample's params.configured_by names the run's own setting that chose it
  // (NCCL_IB_DISABLE=1, --mca btl tcp,self). none: neither rule applies; tool_error: a tool
  // error (NCCL on sockets everywhere); warning: a warning naming it, never a failure (MPI
  // over TCP in a run launched that way on purpose). Where some hosts pass, the others fail.
  enum class NotTheNode { none, tool_error, warning } not_the_node = NotTheNode::none;

  // Builders for the declaration lists: {"hostmem.triad_bw", ...}.at({K::numa}).carries({"numa"}).
  MetricDecl at(std::vector<place::Kind> kinds) && {
    places = std::move(kinds);
    return std::move(*this);
  }
  MetricDecl carries(std::vector<std::string> keys) && {
    param_keys = std::move(keys);
    return std::move(*this);
  }
  MetricDecl unjudged_when_absent() && {
    absent_unjudged = true;
    return std::move(*this);
  }
  MetricDecl own_network() && {
    per_network_namespace = true;
    return std::move(*this);
  }
  MetricDecl when_not_the_node(NotTheNode n) && {
    not_the_node = n;
    return std::move(*this);
  }
  bool emitted_at(place::Kind k) const;   // true when `places` is empty (not stated)
  bool may_carry(const std::string& key) const;  // true when `param_keys` is not stated
};
// "numa" / "numa, gpu": the kinds a declaration states, for messages.
std::string places_text(const MetricDecl&);

enum class ParamType { integer, number, boolean, string, list, mapping, any };
const char* to_string(ParamType);

struct ParamDecl {
  std::string name;                 // the key in the suite file and in --set PROBE.KEY=VALUE
  ParamType type = ParamType::any;
  nlohmann::json default_value;     // null: none (the probe derives it, e.g. from the deadline)
  std::optional<double> min, max;   // numbers: the allowed range, inclusive
  std::vector<std::string> choices; // strings: the allowed values; empty = any
  std::string summary;
};

// True when `id` is `decl` or inside a family it declares ("inventory.version.mpi" in
// "inventory.version.*").
bool declares(const MetricDecl& decl, const std::string& id);

// Checks one parameter value against its declaration: "" when it fits, else why not
// ("must be a whole number from 1 to 4096, got 0").
std::string check_param(const ParamDecl& decl, const nlohmann::json& value);

// Every declared metric of a build, with the probe that declares it: what the judge takes a
// metric's unit, direction and owner from, and what a criteria file is checked against. Built
// from the probe registry (catalogue_of in probes/probe.hpp); plain data, so the judge needs no
// probe code to use it.
struct DeclaredMetric {
  std::string probe;
  MetricDecl decl;
};

class MetricCatalogue {
 public:
  // Throws std::logic_error when two probes declare the same id.
  void add(const std::string& probe, const MetricDecl& decl);
  // The declaration of a metric id: exactly, else the longest family that holds it.
  const DeclaredMetric* find(const std::string& id) const;
  // Whether a criteria glob "prefix*" ("inventory.version.*", "topology.*") names any declared
  // metric or family.
  bool covers_glob(const std::string& glob) const;
  // Declared ids that look like a misspelt one (same probe, few edits), for error messages.
  std::vector<std::string> near(const std::string& id) const;
  const std::vector<DeclaredMetric>& all() const { return all_; }
  bool empty() const { return all_.empty(); }

 private:
  std::vector<DeclaredMetric> all_;
  std::map<std::string, std::size_t> exact_;  // id -> index in all_ (families with their '*')
};

}  // namespace ga
