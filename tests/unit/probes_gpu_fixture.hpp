// Shared by the gpu and nccl probe tests: one probe run in this process (a one-rank
// communicator, one host "h1"), on a recorded PCI tree, with every sample it emitted kept.
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "probes/probe.hpp"

namespace ga::gpu_fixture {

inline const std::string kTree = std::string(GA_TEST_DATA_DIR) + "/gpu/sysfs-two-nvidia";

struct Collect : SampleSink {
  std::vector<Sample> s;
  void emit(Sample x) override { s.push_back(std::move(x)); }
  // Every sample of `metric`, at `place` when one is given.
  std::vector<const Sample*> find(const std::string& metric, const std::string& place = "") const {
    std::vector<const Sample*> out;
    for (const auto& x : s)
      if (x.metric == metric && (place.empty() || x.place == place)) out.push_back(&x);
    return out;
  }
};

struct Run {
  Outcome outcome;
  Collect out;
};

inline Run run_probe(const std::string& name, nlohmann::json params, const std::string& sysfs) {
  ProbeRegistry reg;
  register_builtin_probes(reg);
  Probe* p = reg.find(name);
  EXPECT_NE(p, nullptr) << "no probe named " << name;
  auto comm = make_self_comm();
  topo::ClusterTopology cluster;
  topo::HostTopology host;
  host.hostname = "h1";
  cluster.hosts.push_back(host);
  ProbeContext ctx{*comm, cluster, cluster.hosts[0], "h1", 0, 1, 0, 1, 0, 1, {"h1"}, std::move(params), sysfs,
                   "", "", {}, std::chrono::steady_clock::now() + std::chrono::seconds(60)};
  Run r;
  if (p) r.outcome = p->run(ctx, r.out);
  return r;
}

}  // namespace ga::gpu_fixture
