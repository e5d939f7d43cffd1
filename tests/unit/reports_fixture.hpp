// A small judged run, built by hand from the public types only: two hosts (node2, node10) of
// two ranks each, an NCCL probe that lost rank 3, and one metric or verdict of every kind the
// writers must place (NUMA, GPU, NIC, host, pair, cluster, a size sweep, a NaN).
#pragma once
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "probes/journal.hpp"
#include "suites/judge.hpp"

namespace ga::test {

inline nlohmann::json load_run_start() {
  std::ifstream in(std::string(GA_TEST_DATA_DIR) + "/reports/run_start.json");
  return nlohmann::json::parse(in);
}

inline topo::HostTopology two_gpu_host(const std::string& name) {
  topo::HostTopology h;
  h.hostname = name;
  h.source = "hwloc-xml";
  h.numa_nodes = {{0, "0-31", 549755813888ull}, {1, "32-63", 549755813888ull}};
  topo::Gpu g0;
  g0.index = 0;
  g0.vendor = "nvidia";
  g0.model = "NVIDIA H200";
  g0.pci_bus_id = "0000:1b:00.0";
  g0.numa_node = 0;
  g0.nearest_nics = {"mlx5_0"};
  g0.nic_path = topo::PathClass::PIX;
  topo::Gpu g1 = g0;
  g1.index = 1;
  g1.pci_bus_id = "0000:4e:00.0";
  g1.numa_node = 1;
  g1.nearest_nics = {"mlx5_1"};
  g1.nic_path = topo::PathClass::PXB;
  h.gpus = {g0, g1};
  topo::Nic n0;
  n0.name = "mlx5_0";
  n0.kind = "infiniband";
  n0.numa_node = 0;
  n0.rate_gbps = 400;
  topo::Nic n1 = n0;
  n1.name = "mlx5_1";
  n1.numa_node = 1;
  h.nics = {n0, n1};
  return h;
}

inline JournalData make_journal() {
  JournalData j;
  j.run_start = load_run_start();
  for (const auto& r : j.run_start["ranks"])
    j.ranks.push_back({r["rank"].get<int>(), r["host"].get<std::string>(), r["local_rank"].get<int>(),
                       r["pid"].get<long>(), ""});
  j.topology.hosts = {two_gpu_host("node2"), two_gpu_host("node10")};
  j.criteria_source = "builtin";
  j.criteria_text = j.run_start["criteria"]["text"];
  ProbeRecord nccl;
  nccl.name = "nccl";
  nccl.deadline_s = 120;
  nccl.begin_time = "2025-03-14T09:27:40Z";
  j.probes.push_back(nccl);
  ProbeRecord hostmem;
  hostmem.name = "hostmem";
  hostmem.ended = true;
  hostmem.elapsed_s = 4.25;
  hostmem.begin_time = "2025-03-14T09:27:00Z";
  hostmem.end_time = "2025-03-14T09:27:04Z";
  j.probes.push_back(hostmem);
  j.signals.push_back({3, "node10", "SIGKILL", "nccl", "2025-03-14T09:27:45Z"});
  return j;
}

inline Metric metric(std::string name, std::string place, std::optional<double> value, std::string unit,
                     nlohmann::json params = nlohmann::json::object()) {
  Metric m;
  m.metric = std::move(name);
  m.place = std::move(place);
  m.value = value;
  m.min = value;
  m.max = value;
  m.unit = std::move(unit);
  m.params = std::move(params);
  m.count = value ? 3 : 0;
  return m;
}

inline Verdict verdict(std::string criterion, std::string metric, std::string place, VerdictStatus status,
                       std::optional<double> value, std::string unit, nlohmann::json bounds, std::string reason,
                       Severity severity = Severity::error) {
  Verdict v;
  v.criterion = std::move(criterion);
  v.metric = std::move(metric);
  v.place = std::move(place);
  v.status = status;
  v.value = value;
  v.unit = std::move(unit);
  v.bounds = std::move(bounds);
  v.reason = std::move(reason);
  v.severity = severity;
  return v;
}

inline Judgement make_judgement() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Judgement g;
  g.metrics = {
      metric("hostmem.triad_bw", "node2/numa:1", 1.204e11, "B/s"),
      metric("gpu.hbm_bw", "node2/gpu:1", 3.1e12, "B/s"),
      metric("rdma.write_bw", "node2/nic:mlx5_0", 3.1e10, "B/s"),
      metric("inventory.driver", "node2", std::nullopt, "text"),
      metric("gpu.hbm_bw", "node10/gpu:0", nan, "B/s"),
      metric("gpu.h2d_bw", "node10/gpu:0", 2.5e10, "B/s", {{"size", 4194304}}),
      metric("gpu.h2d_bw", "node10/gpu:0", 5.1e10, "B/s", {{"size", 268435456}}),
      metric("nccl.p2p_lat", "node2/gpu:0~node10/gpu:0", 9.3e-7, "s"),
      metric("nccl.allreduce_busbw", "cluster", 3.66e11, "B/s", {{"nvls", false}}),
  };
  g.metrics[3].text = "550.54.15";
  g.metrics[3].count = 1;
  g.verdicts = {
      verdict("hostmem-triad", "hostmem.triad_bw", "node2/numa:1", VerdictStatus::pass, 1.204e11, "B/s",
              {{"op", ">="}, {"value", 1e11}}, "120.4 GB/s >= 100 GB/s"),
      verdict("rdma-write-bw", "rdma.write_bw", "node2/nic:mlx5_0", VerdictStatus::fail, 3.1e10, "B/s",
              {{"op", ">="}, {"value", 4.5e10}}, "31 GB/s below 90% of the 400 Gb/s port", Severity::warning),
      verdict("gpu-hbm-bw", "gpu.hbm_bw", "node2/gpu:1", VerdictStatus::fail, 3.1e12, "B/s",
              {{"op", ">="}, {"value", 4.0e12}}, "HBM bandwidth | well below the H200's 4.8 TB/s"),
      verdict("gpu-hbm-bw", "gpu.hbm_bw", "node10/gpu:0", VerdictStatus::tool_error, nan, "B/s",
              {{"op", ">="}, {"value", nan}}, "no finite value measured"),
      verdict("gpu-hbm-bw", "gpu.hbm_bw", "node10/gpu:1", VerdictStatus::missing, std::nullopt, "B/s",
              {{"op", ">="}, {"value", 4.0e12}}, "required metric not measured"),
      verdict("gpu-h2d-bw", "gpu.h2d_bw", "node10/gpu:0", VerdictStatus::pass, 5.1e10, "B/s",
              {{"op", ">="}, {"value", 4.8e10}}, "51 GB/s >= 48 GB/s"),
      verdict("driver-homogeneous", "inventory.driver", "node2", VerdictStatus::pass, std::nullopt, "text",
              {{"op", "equals"}, {"value", "550.54.15"}}, "same as the majority"),
  };
  g.verdicts.back().text = "550.54.15";
  g.verdicts.back().reference_text = "550.54.15";
  g.verdicts[0].reference = 1.25e11;
  ProbeSummary hostmem{"hostmem", ProbeStatus::ok, "", {}};
  for (int r = 0; r < 4; ++r)
    hostmem.per_rank.push_back({r, r < 2 ? "node2" : "node10", ProbeStatus::ok, ""});
  ProbeSummary nccl{"nccl", ProbeStatus::timeout, "rank 3 (node10) never arrived", {}};
  nccl.per_rank = {{0, "node2", ProbeStatus::timeout, "waiting on rank 3"},
                   {3, "node10", ProbeStatus::timeout, "killed by SIGKILL"}};
  g.probes = {hostmem, nccl};
  IncompleteRecord inc;
  inc.probe = "nccl";
  inc.reason = "watchdog: no progress for 120 s";
  inc.missing_ranks = {{3, "node10"}};
  inc.waiting_ranks = {{0, "node2"}, {1, "node2"}, {2, "node10"}};
  inc.detected_by = 0;
  g.incomplete = inc;
  g.summary = {3, 2, 1, 0, 1, 0, "INCOMPLETE", 3};
  return g;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ga::test
