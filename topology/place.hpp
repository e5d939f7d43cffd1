// Places (TopoKeys): every sample, metric and verdict is keyed to one.
//   HOST, HOST/numa:N, HOST/gpu:N, HOST/nic:NAME, A~B (a pair of places), cluster
// HOST is the short hostname. GPU N is the logical index (see model.hpp), never a CUDA ordinal.
#pragma once
#include <optional>
#include <string>

namespace ga::place {

enum class Kind { host, numa, gpu, nic, pair, cluster, other };
const char* to_string(Kind);
std::optional<Kind> kind_from_string(const std::string&);

std::string host(const std::string& h);
std::string numa(const std::string& h, int os_index);
std::string gpu(const std::string& h, int logical_index);
std::string nic(const std::string& h, const std::string& name);
std::string pair(const std::string& a, const std::string& b);
inline const char* cluster() { return "cluster"; }

Kind kind(const std::string& place);
// The host a place belongs to; empty for `cluster` and for pairs across hosts.
std::string host_of(const std::string& place);
// For a pair "A~B": {A, B}. nullopt otherwise.
std::optional<std::pair<std::string, std::string>> split_pair(const std::string& place);

}  // namespace ga::place
