#include "topology/place.hpp"

#include <algorithm>
#include <charconv>

#include "base/natural_order.hpp"
#include "topology/model.hpp"

namespace ga::place {

const char* to_string(Kind k) {
  switch (k) {
    case Kind::host: return "host";
    case Kind::numa: return "numa";
    case Kind::gpu: return "gpu";
    case Kind::nic: return "nic";
    case Kind::rail: return "rail";
    case Kind::pair: return "pair";
    case Kind::cluster: return "cluster";
    case Kind::other: return "other";
  }
  return "other";
}

std::optional<Kind> kind_from_string(const std::string& s) {
  // Not rail: a criterion could not select rail places before it was a kind (they were
  // `other`, which is no scope either), and the criteria's error message names these six.
  for (Kind k : {Kind::host, Kind::numa, Kind::gpu, Kind::nic, Kind::pair, Kind::cluster})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

}  // namespace ga::place

namespace ga {
namespace {

using Kind = place::Kind;

constexpr int kMaxPairDepth = 64;

// An int exactly as std::to_string writes it ("0", "12", "-3"; not "01", "+1", "-0", " 1"),
// so that a parsed index formats back to the same text.
std::optional<int> canonical_int(std::string_view s) {
  std::size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  if (s[i] == '0' && (i == 1 || s.size() > 1)) return std::nullopt;
  for (std::size_t j = i; j < s.size(); ++j)
    if (s[j] < '0' || s[j] > '9') return std::nullopt;
  int v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

Place other(std::string_view s) {
  Place p;
  p.kind = Kind::other;
  p.host = std::string(s.substr(0, s.find('/')));
  p.text = std::string(s);
  return p;
}

Place parse_at(std::string_view s, int depth) {
  if (s == "cluster") return Place::make_cluster();
  if (auto t = s.find('~'); t != std::string_view::npos) {
    if (depth >= kMaxPairDepth) return other(s);
    Place p;
    p.kind = Kind::pair;
    p.ends.reserve(2);
    p.ends.push_back(parse_at(s.substr(0, t), depth + 1));
    p.ends.push_back(parse_at(s.substr(t + 1), depth + 1));
    return p;
  }
  auto slash = s.find('/');
  if (slash == std::string_view::npos) return s.empty() ? other(s) : Place::make_host(std::string(s));
  const std::string_view host = s.substr(0, slash), rest = s.substr(slash + 1);
  auto after = [&](std::string_view prefix) -> std::optional<std::string_view> {
    if (rest.substr(0, prefix.size()) != prefix) return std::nullopt;
    return rest.substr(prefix.size());
  };
  if (auto n = after("numa:"))
    if (auto i = canonical_int(*n)) return Place::make_numa(std::string(host), *i);
  if (auto n = after("gpu:"))
    if (auto i = canonical_int(*n)) return Place::make_gpu(std::string(host), *i);
  if (auto n = after("rail:"))
    if (auto i = canonical_int(*n)) return Place::make_rail(std::string(host), *i);
  if (auto n = after("nic:")) return Place::make_nic(std::string(host), std::string(*n));
  return other(s);
}

Place indexed(Kind k, std::string host, int i) {
  Place p;
  p.kind = k;
  p.host = std::move(host);
  p.index = i;
  return p;
}

}  // namespace

Place Place::parse(std::string_view s) { return parse_at(s, 0); }

Place Place::make_host(std::string host) {
  Place p;
  p.kind = Kind::host;
  p.host = std::move(host);
  return p;
}
Place Place::make_numa(std::string host, int os_index) { return indexed(Kind::numa, std::move(host), os_index); }
Place Place::make_gpu(std::string host, int logical_index) { return indexed(Kind::gpu, std::move(host), logical_index); }
Place Place::make_rail(std::string host, int k) { return indexed(Kind::rail, std::move(host), k); }
Place Place::make_nic(std::string host, std::string name) {
  Place p;
  p.kind = Kind::nic;
  p.host = std::move(host);
  p.name = std::move(name);
  return p;
}
Place Place::make_pair(Place a, Place b) {
  Place p;
  p.kind = Kind::pair;
  p.ends.reserve(2);
  p.ends.push_back(std::move(a));
  p.ends.push_back(std::move(b));
  return p;
}
Place Place::make_cluster() {
  Place p;
  p.kind = Kind::cluster;
  return p;
}

std::string to_string(const Place& p) {
  switch (p.kind) {
    case Kind::host: return p.host;
    case Kind::numa: return p.host + "/numa:" + std::to_string(p.index);
    case Kind::gpu: return p.host + "/gpu:" + std::to_string(p.index);
    case Kind::nic: return p.host + "/nic:" + p.name;
    case Kind::rail: return p.host + "/rail:" + std::to_string(p.index);
    case Kind::pair: {
      std::string s;
      for (std::size_t i = 0; i < p.ends.size(); ++i) {
        if (i) s += '~';
        s += to_string(p.ends[i]);
      }
      return s;
    }
    case Kind::cluster: return place::cluster();
    case Kind::other: return p.text;
  }
  return p.text;
}

Place with_logical(Place p, const topo::HostTopology& h) {
  if (p.kind == Kind::pair) {
    for (auto& e : p.ends) e = with_logical(std::move(e), h);
    return p;
  }
  if (p.kind != Kind::numa || (!h.hostname.empty() && p.host != h.hostname)) return p;
  std::vector<int> os;
  for (const auto& n : h.numa_nodes) os.push_back(n.os_index);
  std::sort(os.begin(), os.end());
  os.erase(std::unique(os.begin(), os.end()), os.end());
  auto it = std::lower_bound(os.begin(), os.end(), p.index);
  p.logical = it != os.end() && *it == p.index ? std::optional<int>(static_cast<int>(it - os.begin())) : std::nullopt;
  return p;
}

Place with_logical(Place p, const topo::ClusterTopology& c) {
  if (p.kind == Kind::pair) {
    for (auto& e : p.ends) e = with_logical(std::move(e), c);
    return p;
  }
  if (p.kind != Kind::numa) return p;
  for (const auto& h : c.hosts)
    if (h.hostname == p.host) return with_logical(std::move(p), h);
  p.logical.reset();
  return p;
}

}  // namespace ga

namespace ga::place {

std::string host(const std::string& h) { return to_string(Place::make_host(h)); }
std::string numa(const std::string& h, int n) { return to_string(Place::make_numa(h, n)); }
std::string gpu(const std::string& h, int i) { return to_string(Place::make_gpu(h, i)); }
std::string nic(const std::string& h, const std::string& name) { return to_string(Place::make_nic(h, name)); }
std::string rail(const std::string& h, int k) { return to_string(Place::make_rail(h, k)); }
std::string pair(const std::string& a, const std::string& b) {
  return to_string(Place::make_pair(Place::parse(a), Place::parse(b)));
}

Kind kind(const std::string& p) { return Place::parse(p).kind; }

std::string host_of(const Place& p) {
  switch (p.kind) {
    case Kind::cluster: return {};
    case Kind::pair: {
      if (p.ends.size() != 2) return {};
      auto a = host_of(p.ends[0]), b = host_of(p.ends[1]);
      return a == b ? a : std::string{};
    }
    default: return p.host;
  }
}
bool less(std::string_view a, std::string_view b) {
  if (a == b) return false;
  if (a == "cluster") return true;
  if (b == "cluster") return false;
  return natural_less(a, b);
}

std::string host_of(const std::string& p) { return host_of(Place::parse(p)); }

std::optional<std::pair<std::string, std::string>> split_pair(const std::string& p) {
  Place pl = Place::parse(p);
  if (pl.kind != Kind::pair || pl.ends.size() != 2) return std::nullopt;
  return std::make_pair(to_string(pl.ends[0]), to_string(pl.ends[1]));
}

std::vector<std::string> hosts_of(const Place& p) {
  if (p.kind != Kind::pair) {
    std::string h = host_of(p);
    return h.empty() ? std::vector<std::string>{} : std::vector<std::string>{std::move(h)};
  }
  std::vector<std::string> out;
  for (const auto& e : p.ends)
    if (auto h = host_of(e); !h.empty() && std::find(out.begin(), out.end(), h) == out.end()) out.push_back(std::move(h));
  return out;
}

std::vector<std::string> hosts_of(const std::string& place) { return hosts_of(Place::parse(place)); }

std::string subplace(const Place& p) {
  switch (p.kind) {
    case Kind::host: return {};
    case Kind::numa:
    case Kind::gpu:
    case Kind::nic:
    case Kind::rail: {
      std::string s = to_string(p);
      return s.substr(p.host.size() + 1);
    }
    case Kind::pair: {
      std::string s;
      for (std::size_t i = 0; i < p.ends.size(); ++i) {
        if (i) s += '~';
        s += subplace(p.ends[i]);
      }
      return s;
    }
    case Kind::cluster: return place::cluster();
    case Kind::other: {
      auto slash = p.text.find('/');
      return slash == std::string::npos ? std::string() : p.text.substr(slash + 1);
    }
  }
  return {};
}

std::string on_host(const std::string& h, const std::string& sub) { return sub.empty() ? h : h + "/" + sub; }

}  // namespace ga::place
