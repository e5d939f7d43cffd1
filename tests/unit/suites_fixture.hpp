// Journals built by hand for the judge's tests: the smallest input that shows one rule.
#pragma once
#include <string>
#include <vector>

#include "probes/journal.hpp"
#include "suites/criteria.hpp"
#include "suites/judge.hpp"

namespace ga::testing {

class JournalBuilder {
 public:
  // One rank per host, rank = position; each host gets a topology record with `gpus` GPUs,
  // one NUMA node and no NIC, unless hosts_without_topology says otherwise.
  explicit JournalBuilder(std::vector<std::string> hosts, int gpus = 0) {
    j_.run_start = {{"type", "run_start"}, {"schema_version", 1}};
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      j_.ranks.push_back({static_cast<int>(i), hosts[i], 0, 1000 + static_cast<long>(i), ""});
      j_.topology.hosts.push_back(host_topology(hosts[i], gpus));
    }
    j_.run_ended = true;
  }

  // The kernel a host's ranks ran on, as run_start records it for every run.
  JournalBuilder& boot_id(const std::string& host, const std::string& id) {
    for (auto& r : j_.ranks)
      if (r.host == host) r.boot_id = id;
    return *this;
  }

  static topo::HostTopology host_topology(const std::string& name, int gpus, int nics = 0) {
    topo::HostTopology h;
    h.hostname = name;
    h.source = "test";
    h.packages = 1;
    h.cores = 4;
    h.pus = 8;
    h.numa_nodes.push_back({0, "0x000000ff", std::nullopt});
    for (int g = 0; g < gpus; ++g) {
      topo::Gpu gpu;
      gpu.index = g;
      gpu.vendor = "nvidia";
      gpu.model = "H100";
      gpu.numa_node = 0;
      h.gpus.push_back(gpu);
    }
    for (int n = 0; n < nics; ++n) {
      topo::Nic nic;
      nic.name = "mlx5_" + std::to_string(n);
      nic.kind = "infiniband";
      nic.numa_node = 0;
      nic.rate_gbps = 400;
      h.nics.push_back(nic);
    }
    return h;
  }

  JournalBuilder& sample(const std::string& metric, const std::string& place, double value,
                         const std::string& unit = "B/s", nlohmann::json params = nlohmann::json::object()) {
    Sample s;
    s.probe = metric.substr(0, metric.find('.'));
    s.metric = metric;
    s.place = place;
    s.value = value;
    s.unit = unit;
    s.params = std::move(params);
    j_.samples.push_back(std::move(s));
    return *this;
  }

  JournalBuilder& text(const std::string& metric, const std::string& place, const std::string& t) {
    Sample s;
    s.probe = metric.substr(0, metric.find('.'));
    s.metric = metric;
    s.place = place;
    s.text = t;
    s.unit = "text";
    j_.samples.push_back(std::move(s));
    return *this;
  }

  // A probe that ran to its end; every rank ok unless listed in `others` (host -> outcome).
  JournalBuilder& probe(const std::string& name,
                        const std::vector<std::pair<std::string, Outcome>>& others = {}) {
    ProbeRecord p;
    p.name = name;
    p.ended = true;
    for (const auto& r : j_.ranks) {
      RankOutcome o{r.rank, r.host, ProbeStatus::ok, ""};
      for (const auto& [host, out] : others)
        if (host == r.host) o.status = out.status, o.reason = out.reason;
      p.outcomes.push_back(o);
    }
    j_.probes.push_back(std::move(p));
    return *this;
  }

  JournalBuilder& all_skipped(const std::string& name, const std::string& reason) {
    std::vector<std::pair<std::string, Outcome>> o;
    for (const auto& r : j_.ranks) o.emplace_back(r.host, Outcome::skipped(reason));
    return probe(name, o);
  }

  JournalBuilder& expect(topo::HostTopology h) {
    j_.expected_topology = std::move(h);
    return *this;
  }

  JournalData& data() { return j_; }
  const JournalData& build() const { return j_; }

 private:
  JournalData j_;
};

inline CriteriaSet criteria(const std::string& body) {
  return parse_criteria("schema_version: 1\ncriteria:\n" + body, "test.yaml");
}

inline std::vector<const Verdict*> verdicts_of(const Judgement& j, const std::string& criterion) {
  std::vector<const Verdict*> out;
  for (const auto& v : j.verdicts)
    if (v.criterion == criterion) out.push_back(&v);
  return out;
}

inline const Verdict* verdict_at(const Judgement& j, const std::string& criterion, const std::string& place) {
  for (const auto& v : j.verdicts)
    if (v.criterion == criterion && v.place == place) return &v;
  return nullptr;
}

}  // namespace ga::testing
