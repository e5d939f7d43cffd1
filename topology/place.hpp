// Places (TopoKeys): every sample, metric and verdict is keyed to one.
//   HOST, HOST/numa:N, HOST/gpu:N, HOST/nic:NAME, HOST/rail:K, A~B (a pair of places), cluster
// HOST is the short hostname. NUMA N is the OS index (what hwloc calls os_index, as on disk);
// GPU N is the logical index (see model.hpp), never a CUDA ordinal; rail K is a local rank
// (p2p in rail mode, see suites/fabric_analysis.hpp); NIC NAME may hold a port ("mlx5_0:2").
//
// ga::Place is the parsed value; Place::parse and to_string are the one parser and the one
// formatter, and to_string(Place::parse(s)) == s for every string s. Code outside
// topology/place.* does not split place strings: it parses them, or calls the wrappers below.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ga::topo {
struct HostTopology;
struct ClusterTopology;
}  // namespace ga::topo

namespace ga::place {

// `rail` is the newest kind: a HOST/rail:K place was Kind::other before it. It is not a
// criterion scope (kind_from_string does not accept it), so criteria treat it as before.
enum class Kind { host, numa, gpu, nic, rail, pair, cluster, other };
const char* to_string(Kind);
// The kinds a criterion's `scope` may name: host, numa, gpu, nic, pair, cluster.
std::optional<Kind> kind_from_string(const std::string&);

}  // namespace ga::place

namespace ga {

struct Place {
  using Kind = place::Kind;

  Kind kind = Kind::other;
  // host, numa, gpu, nic, rail: the host. other: the text before the first '/' (all of it
  // when there is none), which is what host_of says. Empty for pair and cluster.
  std::string host;
  int index = 0;               // numa: the OS index (as on disk); gpu: the logical index; rail: K
  std::optional<int> logical;  // numa: the logical index, when a host topology was at hand (with_logical); never written
  std::string name;            // nic: NAME
  std::vector<Place> ends;     // pair: its two ends, A and B
  std::string text;            // other: the text as given; to_string writes it back

  // Total: never throws on any input. A shape it does not know ("", "h/rank:0", "h/gpu:x",
  // "h/gpu:01") is kind other with its text kept. Pairs split at the first '~', so the
  // second end of "a~b~c" is the pair "b~c"; past 64 nested pairs the rest is kind other.
  static Place parse(std::string_view);

  static Place make_host(std::string host);
  static Place make_numa(std::string host, int os_index);
  static Place make_gpu(std::string host, int logical_index);
  static Place make_nic(std::string host, std::string name);
  static Place make_rail(std::string host, int k);
  static Place make_pair(Place a, Place b);
  static Place make_cluster();

  const Place& first() const { return ends.at(0); }   // pair only
  const Place& second() const { return ends.at(1); }  // pair only

  bool operator==(const Place&) const = default;
};

// The place as written on disk (the logical NUMA index is never written).
std::string to_string(const Place&);

// Fills `logical` of a NUMA place (and of the NUMA ends of a pair) from a host topology:
// its position in the host's NUMA nodes sorted by OS index, so OS indexes {0, 2} are logical
// 0 and 1. Places on another host (when the topology names its host) and OS indexes the
// topology does not list are left without one.
Place with_logical(Place, const topo::HostTopology&);
Place with_logical(Place, const topo::ClusterTopology&);  // each end with its own host's topology

}  // namespace ga

namespace ga::place {

// Builders: the text of a Place. Thin wrappers, for the many call sites that hold strings.
std::string host(const std::string& h);
std::string numa(const std::string& h, int os_index);
std::string gpu(const std::string& h, int logical_index);
std::string nic(const std::string& h, const std::string& name);
std::string rail(const std::string& h, int k);
std::string pair(const std::string& a, const std::string& b);
inline const char* cluster() { return "cluster"; }

Kind kind(const std::string& place);
// The order places are listed in: `cluster` first, then natural order (digit runs compare as
// numbers: node2 < node10, gpu:3 < gpu:10), ties broken on the bytes, so it is total.
bool less(std::string_view a, std::string_view b);
// The host a place belongs to; empty for `cluster` and for pairs across hosts.
std::string host_of(const Place&);
std::string host_of(const std::string& place);
// For a pair "A~B": {A, B}. nullopt otherwise.
std::optional<std::pair<std::string, std::string>> split_pair(const std::string& place);
// The hosts a verdict at `place` is about: its own, or both ends of a link between two hosts
// (one, for a link inside a host); none for `cluster`.
std::vector<std::string> hosts_of(const Place&);
std::vector<std::string> hosts_of(const std::string& place);

// The place relative to its host, as topo::Feature::subplace has it: "" for the host,
// "gpu:3", "numa:1", "nic:mlx5_0", "rail:2", the text after HOST/ for other shapes
// ("rank:0"), "cluster" for the cluster, and for a pair its ends' ("gpu:0~gpu:1").
std::string subplace(const Place&);
// The inverse for one host: HOST for "", else HOST/SUB.
std::string on_host(const std::string& host, const std::string& subplace);

}  // namespace ga::place
