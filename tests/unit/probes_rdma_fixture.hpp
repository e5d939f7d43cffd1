// Shared by the rdma tests that run the probe on recorded sysfs trees, one process per "host"
// (no MPI), and judge its samples with the built-in criteria.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "probes/comm.hpp"
#include "probes/rdma/rdma_probe.hpp"
#include "suites_fixture.hpp"
#include "topology/topology.hpp"

namespace ga::rdma_fixture {

struct VecSink : SampleSink {
  std::vector<Sample> samples;
  void emit(Sample s) override {
    s.probe = "rdma";
    samples.push_back(std::move(s));
  }
};

struct HostRun {
  std::string host, root;
  topo::HostTopology topo;
  Outcome outcome;
  std::vector<Sample> samples;
};

// As the harness runs it on one host: the run's start reading, the probe (inventory; no
// traffic from a recorded tree), then `before_end` (the counters move while the run goes on)
// and the end reading.
inline HostRun run_on(const std::string& host, const std::string& root, std::function<void()> before_end = {},
                      nlohmann::json params = nlohmann::json::object()) {
  HostRun r{host, root, topo::discover_local(host, root), {}, {}};
  auto comm = make_self_comm();
  topo::ClusterTopology cl;
  cl.hosts.push_back(r.topo);
  ProbeContext ctx{*comm, cl, cl.hosts[0], host};
  ctx.sysfs_root = root;
  ctx.rank_hosts = {host};
  ctx.params = std::move(params);
  ctx.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  VecSink sink;
  auto probe = make_rdma_probe_with_hook(std::move(before_end));
  EXPECT_TRUE(probe->reads_run_bounds());
  probe->read_run_bound(RunBound::start, ctx, sink);
  r.outcome = probe->run(ctx, sink);
  probe->read_run_bound(RunBound::end, ctx, sink);
  r.samples = std::move(sink.samples);
  return r;
}

// Every host's topology and samples in one journal, judged with the built-in criteria.
inline Judgement judge_runs(const std::vector<HostRun>& runs) {
  std::vector<std::string> hosts;
  for (const auto& r : runs) hosts.push_back(r.host);
  testing::JournalBuilder jb(hosts);
  jb.data().topology.hosts.clear();
  std::vector<std::pair<std::string, Outcome>> outcomes;
  for (const auto& r : runs) {
    jb.data().topology.hosts.push_back(r.topo);
    for (const auto& s : r.samples) jb.data().samples.push_back(s);
    outcomes.emplace_back(r.host, r.outcome);
  }
  jb.probe("rdma", outcomes);
  return judge(jb.build(), parse_criteria(builtin_criteria_text(), "builtin"));
}

}  // namespace ga::rdma_fixture
