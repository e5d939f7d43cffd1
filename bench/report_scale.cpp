// report_scale: judging and writing the report of a large run, without the cluster.
// Builds the journal a default run on N hosts x 8 GPUs would leave (--hosts N, 1024 unless
// told): topology per host, inventory, topology features, hostmem per NUMA node, clock, storage,
// 20 gpu metrics per GPU, nccl (set-up time per GPU and scope, an intra-host all_reduce sweep),
// rdma (every port, and each port with the same port of the next host), and p2p as a bounded
// round-robin run measures it (each host with 4 partners, h+1, h+2, h+4, h+8, plus one pair
// inside each host, latency 8 B and bandwidth 4 MiB in both directions), each with the unit
// its probe declares. Judges it with the built-in criteria, writes report.json, report.md,
// report.html and report.junit.xml, and prints wall time and peak RSS, for all four files
// together and for each text writer alone. Targets (docs/measurements.md).
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "probes/journal.hpp"
#include "reports/report.hpp"
#include "suites/criteria.hpp"
#include "suites/judge.hpp"
#include "topology/place.hpp"
#include "topology/topology.hpp"

namespace {

struct Shape {
  int hosts = 1024;
  int gpus = 8;
  int nics = 8;
  int numa = 2;
  int gpu_metrics = 20;
};

std::string host_name(int h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "node%04d", h + 1);
  return buf;
}

ga::topo::HostTopology host_topology(const std::string& name, const Shape& s) {
  ga::topo::HostTopology h;
  h.hostname = name;
  h.source = "synthetic";
  h.packages = s.numa;
  h.cores = 96;
  h.pus = 192;
  for (int n = 0; n < s.numa; ++n) h.numa_nodes.push_back({n, std::to_string(n * 48) + "-" + std::to_string(n * 48 + 47), 1ull << 40});
  static const char* kBus[] = {"18", "2a", "3a", "5d", "9a", "ab", "ba", "db"};
  for (int g = 0; g < s.gpus; ++g) {
    ga::topo::Gpu gpu;
    gpu.index = g;
    gpu.vendor = "nvidia";
    gpu.model = "NVIDIA H200";
    gpu.pci_bus_id = std::string("0000:") + kBus[g % 8] + ":00.0";
    gpu.numa_node = g * s.numa / s.gpus;
    gpu.nearest_nics = {"mlx5_" + std::to_string(g % s.nics)};
    gpu.nic_path = ga::topo::PathClass::PIX;
    h.gpus.push_back(gpu);
  }
  for (int n = 0; n < s.nics; ++n) {
    ga::topo::Nic nic;
    nic.name = "mlx5_" + std::to_string(n);
    nic.kind = "infiniband";
    nic.netdevs = {"ib" + std::to_string(n)};
    nic.pci_bus_id = std::string("0000:") + kBus[n % 8] + ":01.0";
    nic.numa_node = n * s.numa / s.nics;
    nic.rate_gbps = 400;
    h.nics.push_back(nic);
  }
  std::vector<int> island;
  for (int a = 0; a < s.gpus; ++a) {
    island.push_back(a);
    for (int b = a + 1; b < s.gpus; ++b) h.gpu_links.push_back({a, b, "nvswitch", 18, std::nullopt});
  }
  h.gpu_link_islands = {island};
  h.gpu_link_all_to_all = true;
  for (int g = 0; g < s.gpus; ++g)
    for (const auto& nic : h.nics)
      h.gpu_nic_paths[g][nic.name] = nic.name == h.gpus[g].nearest_nics[0] ? ga::topo::PathClass::PIX
                                                                           : ga::topo::PathClass::SYS;
  return h;
}

// Deterministic spread around a nominal value so the medians and majorities have work to do.
double jitter(double nominal, int h, int i) { return nominal * (1.0 + 0.01 * ((h * 7 + i * 13) % 11 - 5)); }

ga::JournalData synthetic_journal(const Shape& s) {
  using nlohmann::json;
  ga::JournalData j;
  json ranks = json::array();
  for (int h = 0; h < s.hosts; ++h)
    for (int l = 0; l < s.gpus; ++l) {
      int rank = h * s.gpus + l;
      j.ranks.push_back({rank, host_name(h), l, 10000L + l});
      ranks.push_back({{"rank", rank}, {"host", host_name(h)}, {"local_rank", l}, {"pid", 10000 + l}});
    }
  j.run_start = {{"type", "run_start"},
                 {"schema_version", 1},
                 {"started", "2025-03-14T09:26:53Z"},
                 {"argv", {"gpuaccept", "run", "--suite", "default"}},
                 {"ranks", ranks},
                 {"versions", {{"gpuaccept", "0.1.0"}, {"mpi", "Open MPI v4.1.5"}, {"hwloc", "2.9.0"},
                               {"cuda_driver", "12040"}, {"cuda_runtime", "12020"}, {"nccl", "2.21.5"},
                               {"libibverbs", "1.14.43"}}},
                 {"slurm", {{"job_id", "1"}}},
                 {"suite", {{"name", "default"}, {"probes", {"inventory", "topology", "clock", "hostmem", "storage", "gpu", "nccl", "p2p", "rdma"}}}},
                 {"probe_timeout_s", 300},
                 {"criteria", {{"source", "builtin"}, {"text", ga::builtin_criteria_text()}}}};
  j.criteria_source = "builtin";
  j.criteria_text = ga::builtin_criteria_text();
  j.run_ended = true;
  j.end_time = "2025-03-14T09:41:07Z";

  auto add = [&](std::string probe, std::string place, std::string metric, std::optional<double> v,
                 std::optional<std::string> t, std::string unit, int rank, json params = json::object()) {
    ga::Sample x;
    x.probe = std::move(probe);
    x.place = std::move(place);
    x.metric = std::move(metric);
    x.value = v;
    x.text = std::move(t);
    x.unit = std::move(unit);
    x.params = std::move(params);
    x.rank = rank;
    j.samples.push_back(std::move(x));
  };
  // 20 per GPU, as the gpu probe declares them (name, unit).
  static const std::pair<const char*, const char*> kGpuMetrics[] = {
      {"gpu.hbm_bw", "B/s"},           {"gpu.h2d_bw", "B/s"},                 {"gpu.d2h_bw", "B/s"},
      {"gpu.gemm_flops", "FLOP/s"},    {"gpu.memory_total", "B"},             {"gpu.memory_free", "B"},
      {"gpu.temperature", "degC"},     {"gpu.hbm_bw_of_theory", "%"},         {"gpu.h2d_bw_of_theory", "%"},
      {"gpu.d2h_bw_of_theory", "%"},   {"gpu.gemm_of_theory", "%"},           {"gpu.pcie_gen_below_max", "count"},
      {"gpu.pcie_width_below_max", "count"}, {"gpu.ecc_enabled", "bool"},     {"gpu.ecc_uncorrected_volatile", "count"},
      {"gpu.remapped_rows_pending", "bool"}, {"gpu.remapped_rows_failure", "bool"}, {"gpu.nvlink_inactive", "count"},
      {"gpu.xid_errors", "count"},     {"gpu.throttle_hw", "bool"}};
  // Values that pass the built-in criteria, except one XID error on node0003/gpu:3, so the
  // report has a failing host to show among the passing ones.
  auto gpu_value = [](int m, int h, int g) -> double {
    switch (m) {
      case 4: return 1.5e11;
      case 5: return 1.4e11;
      case 6: return 60 + (h + g) % 5;
      case 7: case 8: case 9: return 85 + (h + g) % 3;
      case 10: return 75;
      case 13: return 1;
      case 18: return h == 2 && g == 3 ? 1 : 0;
      case 11: case 12: case 14: case 15: case 16: case 17: case 19: return 0;
      default: return jitter(1e9 * (m + 1), h, g + m);
    }
  };
  for (int h = 0; h < s.hosts; ++h) {
    const std::string host = host_name(h);
    const int rank0 = h * s.gpus;
    j.topology.hosts.push_back(host_topology(host, s));
    const auto& topo = j.topology.hosts.back();
    add("inventory", host, "inventory.cores", topo.cores, std::nullopt, "count", rank0);
    add("inventory", host, "inventory.memory_bytes", 2.2e12 * (1.0 + 0.001 * ((h * 7) % 11 - 5)), std::nullopt, "B", rank0);
    add("inventory", host, "inventory.gpu_count", s.gpus, std::nullopt, "count", rank0);
    add("inventory", host, "inventory.rdma_device_count", s.nics, std::nullopt, "count", rank0);
    add("inventory", host, "inventory.kernel", std::nullopt, "5.15.0-105-generic", "text", rank0);
    add("inventory", host, "inventory.cpu_model", std::nullopt, "Intel(R) Xeon(R) Platinum 8480C", "text", rank0);
    for (const auto& [k, v] : j.run_start["versions"].items())
      add("inventory", host, "inventory.version." + k, std::nullopt, v.get<std::string>(), "text", rank0);
    for (const auto& f : ga::topo::features(topo))
      add("topology", f.subplace.empty() ? host : host + "/" + f.subplace, f.metric, f.value, f.text, f.unit, rank0);
    for (int n = 0; n < s.numa; ++n)
      add("hostmem", ga::place::numa(host, n), "hostmem.triad_bw", jitter(2.4e11, h, n), std::nullopt, "B/s",
          rank0);
    add("hostmem", host, "hostmem.triad_bw_cross", jitter(1.1e11, h, 9), std::nullopt, "B/s", rank0);
    for (int g = 0; g < s.gpus; ++g)
      for (int m = 0; m < s.gpu_metrics; ++m)
        add("gpu", ga::place::gpu(host, g), kGpuMetrics[m % 20].first, gpu_value(m % 20, h, g), std::nullopt,
            kGpuMetrics[m % 20].second, rank0 + g);
    // clock: one host's view of the cluster clock.
    add("clock", host, "clock.offset", 1e-6 * ((h % 7) - 3), std::nullopt, "s", rank0);
    add("clock", host, "clock.offset_abs", 1e-6 * (1 + h % 4), std::nullopt, "s", rank0);
    add("clock", host, "clock.offset_uncertainty", 2e-6, std::nullopt, "s", rank0);
    add("clock", host, "clock.drift_ppm", 0.1 * (h % 5), std::nullopt, "ppm", rank0);
    add("clock", host, "clock.synchronized", 1, std::nullopt, "bool", rank0, {{"daemon", "chrony"}});
    add("clock", host, "clock.kernel_synchronized", 1, std::nullopt, "bool", rank0);
    add("clock", host, "clock.daemon", std::nullopt, "chrony", "text", rank0);
    add("clock", host, "clock.timezone", std::nullopt, "UTC", "text", rank0);
    // rdma: every port of the host, as port_inventory reports it.
    for (int n = 0; n < s.nics; ++n) {
      const std::string nic = ga::place::nic(host, "mlx5_" + std::to_string(n));
      add("rdma", nic, "rdma.port_active", 1, std::nullopt, "bool", rank0);
      add("rdma", nic, "rdma.state", std::nullopt, "ACTIVE", "text", rank0);
      add("rdma", nic, "rdma.phys_state", std::nullopt, "LinkUp", "text", rank0);
      add("rdma", nic, "rdma.rate_gbps", 400, std::nullopt, "Gb/s", rank0, {{"link_layer", "InfiniBand"}});
      add("rdma", nic, "rdma.width", 4, std::nullopt, "count", rank0);
      add("rdma", nic, "rdma.link_layer", std::nullopt, "InfiniBand", "text", rank0);
      add("rdma", nic, "rdma.mtu", 4096, std::nullopt, "B", rank0);
      add("rdma", nic, "rdma.is_vf", 0, std::nullopt, "bool", rank0);
      add("rdma", nic, "rdma.fw", std::nullopt, "28.39.1002", "text", rank0);
      add("rdma", nic, "rdma.numa_node", n * s.numa / s.nics, std::nullopt, "count", rank0);
      for (const char* c : {"symbol_error", "link_downed", "port_rcv_errors", "link_error_recovery"})
        add("rdma", nic, std::string("rdma.errors_delta.") + c, 0, std::nullopt, "count", rank0);
    }
    add("rdma", host, "rdma.data_path", std::nullopt, "verbs", "text", rank0);
    // rdma pairs: each port with the same port of the next host, both directions.
    if (s.hosts > 1)
      for (int n = 0; n < s.nics; ++n) {
        const std::string port = "mlx5_" + std::to_string(n);
        const std::string a = ga::place::nic(host, port), b = ga::place::nic(host_name((h + 1) % s.hosts), port);
        const std::string pair = ga::place::pair(a, b);
        for (const auto& dir : {a + "->" + b, b + "->" + a}) {
          json prm = {{"direction", dir}, {"transport", "verbs"}};
          add("rdma", pair, "rdma.pair_ok", 1, std::nullopt, "bool", rank0, prm);
          add("rdma", pair, "rdma.write_bw", jitter(4.8e10, h, n), std::nullopt, "B/s", rank0, prm);
          add("rdma", pair, "rdma.write_lat", jitter(1.0e-6, h, n), std::nullopt, "s", rank0, prm);
          add("rdma", pair, "rdma.write_lat_p99", jitter(1.4e-6, h, n), std::nullopt, "s", rank0, prm);
        }
      }
    // storage: per host, as the storage probe reports it.
    add("storage", host, "storage.write_bw", jitter(2e9, h, 1), std::nullopt, "B/s", rank0);
    add("storage", host, "storage.read_bw", jitter(3e9, h, 2), std::nullopt, "B/s", rank0);
    add("storage", host, "storage.visible", 1, std::nullopt, "bool", rank0);
    add("storage", host, "storage.metadata_rate", jitter(5e3, h, 3), std::nullopt, "op/s", rank0);
    add("storage", host, "storage.free_bytes", 1e14, std::nullopt, "B", rank0);
    add("storage", host, "storage.free_inodes", 1e9, std::nullopt, "count", rank0);
    add("storage", host, "storage.free_space_ratio", 50, std::nullopt, "count", rank0);
    add("storage", host, "storage.free_inodes_ratio", 1e4, std::nullopt, "count", rank0);
    // nccl: set-up time per GPU and scope, the intra-host sweep at HOST, the stack.
    for (int g = 0; g < s.gpus; ++g)
      for (const char* scope : {"intra-host", "inter-host", "cluster"})
        add("nccl", ga::place::gpu(host, g), "nccl.init_time", jitter(0.2, h, g), std::nullopt, "s", rank0 + g,
            {{"scope", scope}});
    add("nccl", host, "nccl.version", std::nullopt, "2.21.5", "text", rank0, {{"library", "libnccl.so.2"}});
    add("nccl", host, "nccl.env", std::nullopt, "none", "text", rank0, {{"vars", 0}});
    for (long long size : {1LL << 20, 1LL << 26, 1LL << 30}) {
      json prm = {{"collective", "all_reduce"}, {"size", size}, {"count", size / 4}, {"dtype", "float"},
                  {"in_place", false}, {"ranks", s.gpus}, {"scope", "intra-host"}};
      add("nccl", host, "nccl.time", jitter(size / 3e11, h, 4), std::nullopt, "s", rank0, prm);
      add("nccl", host, "nccl.algbw", jitter(3e11, h, 4), std::nullopt, "B/s", rank0, prm);
      add("nccl", host, "nccl.busbw", jitter(4.5e11, h, 4), std::nullopt, "B/s", rank0, prm);
      add("nccl", host, "nccl.wrong", 0, std::nullopt, "count", rank0, prm);
    }
    {
      json prm = {{"collective", "all_reduce"}, {"nvls", false}, {"scope", "intra-host"}};
      add("nccl", host, "nccl.busbw_theoretical", 4.5e11, std::nullopt, "B/s", rank0, prm);
      add("nccl", host, "nccl.busbw_of_theory", 80 + h % 5, std::nullopt, "%", rank0, prm);
      add("nccl", host, "nccl.avg_busbw", jitter(4.2e11, h, 5), std::nullopt, "B/s", rank0, {{"scope", "intra-host"}});
    }
  }
  // p2p, host mode, one pass: a bounded round-robin run measures each host with kPartners
  // partners (host h with h+1, h+2, h+4, h+8 ... mod n: 2 x kPartners pairs per host in all
  // directions), at the two headline sizes (latency 8 B, bandwidth 4 MiB), both directions,
  // plus one pair inside each host (rank:0 ~ rank:1).
  constexpr int kPartners = 4;
  auto p2p_pair = [&](const std::string& a, const std::string& b, bool intra, int h, int k) {
    const std::string pair = ga::place::pair(a, b);
    for (const auto& dir : {a + "->" + b, b + "->" + a}) {
      json lat = {{"direction", dir}, {"size", 8}, {"pass", 1}, {"path", intra ? "intra" : "inter"}};
      json bw = lat;
      bw["size"] = 4194304;
      json dl = lat, db = bw;
      dl["test"] = "latency";
      db["test"] = "bw";
      add("p2p", pair, "p2p.completed", 1, std::nullopt, "bool", 0, dl);
      add("p2p", pair, "p2p.latency_p50", jitter(intra ? 4e-7 : 2e-6, h, k), std::nullopt, "s", 0, lat);
      add("p2p", pair, "p2p.latency_p99", jitter(intra ? 6e-7 : 3e-6, h, k), std::nullopt, "s", 0, lat);
      add("p2p", pair, "p2p.latency_max", jitter(intra ? 9e-7 : 5e-6, h, k), std::nullopt, "s", 0, lat);
      add("p2p", pair, "p2p.jitter", jitter(intra ? 2e-7 : 1e-6, h, k), std::nullopt, "s", 0, lat);
      add("p2p", pair, "p2p.completed", 1, std::nullopt, "bool", 0, db);
      add("p2p", pair, "p2p.bw", jitter(intra ? 1e10 : 4.8e10, h, k), std::nullopt, "B/s", 0, bw);
    }
  };
  if (s.hosts > 1)
    for (int h = 0; h < s.hosts; ++h)
      for (int k = 0, d = 1; k < kPartners && d < s.hosts; ++k, d *= 2) {
        const int o = (h + d) % s.hosts;
        if (o == h || (2 * d == s.hosts && o < h)) continue;  // d = n/2 pairs each pair once
        p2p_pair(host_name(std::min(h, o)), host_name(std::max(h, o)), false, h, k);
      }
  for (int h = 0; h < s.hosts; ++h)
    p2p_pair(host_name(h) + "/rank:0", host_name(h) + "/rank:1", true, h, 7);
  for (const char* p : {"inventory", "topology", "clock", "hostmem", "storage", "gpu", "nccl", "p2p", "rdma"}) {
    ga::ProbeRecord rec;
    rec.name = p;
    rec.ended = true;
    rec.elapsed_s = 1.5;
    for (const auto& r : j.ranks) rec.outcomes.push_back({r.rank, r.host, ga::ProbeStatus::ok, ""});
    j.probes.push_back(std::move(rec));
  }
  return j;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;  // Linux reports KiB
}

}  // namespace

int main(int argc, char** argv) {
  Shape shape;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--hosts" && i + 1 < argc) shape.hosts = std::atoi(argv[++i]);
    else if (a == "--keep") keep = true;
    else {
      std::fprintf(stderr, "usage: %s [--hosts N] [--keep]\n", argv[0]);
      return 2;
    }
  }
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "ga-report-scale-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) {
    std::perror("mkdtemp");
    return 1;
  }
  const fs::path dir = tmpl;

  auto t0 = std::chrono::steady_clock::now();
  ga::JournalData journal = synthetic_journal(shape);
  double t_build = seconds_since(t0);
  double rss_journal = peak_rss_mib();

  t0 = std::chrono::steady_clock::now();
  ga::CriteriaSet criteria = ga::parse_criteria(ga::builtin_criteria_text(), "builtin");
  ga::Judgement judgement = ga::judge(journal, criteria);
  double t_judge = seconds_since(t0);
  double rss_judge = peak_rss_mib();

  t0 = std::chrono::steady_clock::now();
  ga::Report report = ga::build_report(journal, judgement);
  double t_report = seconds_since(t0);
  double rss_report = peak_rss_mib();
  t0 = std::chrono::steady_clock::now();
  ga::write_report_files(report, dir.string());
  double t_files = seconds_since(t0);
  double rss_write = peak_rss_mib();
  double t_write = t_report + t_files;

  // Each writer alone, into memory, so the cost of one format is not hidden in the total.
  auto time_writer = [&](auto&& writer) {
    auto t = std::chrono::steady_clock::now();
    std::size_t bytes = writer(report).size();
    return std::pair{seconds_since(t), bytes};
  };
  auto [t_md, md_bytes] = time_writer(ga::report_to_markdown);
  auto [t_html, html_bytes] = time_writer(ga::report_to_html);
  auto [t_junit, junit_bytes] = time_writer(ga::report_to_junit);
  (void)md_bytes;
  (void)html_bytes;
  (void)junit_bytes;

  auto mib = [](const fs::path& p) { return double(fs::file_size(p)) / (1024.0 * 1024.0); };
  std::printf("report_scale: %d hosts x %d GPUs, %zu ranks, %zu samples\n", shape.hosts, shape.gpus,
              journal.ranks.size(), journal.samples.size());
  std::printf("%-28s %10s %14s\n", "step", "wall s", "peak RSS MiB");
  std::printf("%-28s %10.2f %14.0f\n", "build synthetic journal", t_build, rss_journal);
  std::printf("%-28s %10.2f %14.0f\n", "judge (builtin criteria)", t_judge, rss_judge);
  std::printf("%-28s %10.2f %14.0f\n", "build_report", t_report, rss_report);
  std::printf("%-28s %10.2f %14.0f\n", "write_report_files", t_files, rss_write);
  std::printf("%-28s %10.2f %14.0f\n", "judge + report + write", t_judge + t_write, rss_write);
  std::printf("%-28s %10.2f\n", "  report_to_markdown alone", t_md);
  std::printf("%-28s %10.2f\n", "  report_to_html alone", t_html);
  std::printf("%-28s %10.2f\n", "  report_to_junit alone", t_junit);
  std::printf("peak RSS after the writers alone: %.0f MiB\n", peak_rss_mib());
  std::printf("metrics %zu, verdicts %zu (pass %d, fail %d, missing %d, skipped %d, tool error %d, inconclusive %d), "
              "overall %s\n",
              judgement.metrics.size(), judgement.verdicts.size(), judgement.summary.pass, judgement.summary.fail,
              judgement.summary.missing, judgement.summary.skipped, judgement.summary.tool_error,
              judgement.summary.inconclusive,
              judgement.summary.overall.c_str());
  std::printf("report.json %.1f MiB, report.md %.1f MiB, report.html %.1f MiB, report.junit.xml %.1f MiB in %s%s\n",
              mib(dir / "report.json"), mib(dir / "report.md"), mib(dir / "report.html"),
              mib(dir / "report.junit.xml"), dir.c_str(), keep ? "" : " (removed)");
  if (!keep) fs::remove_all(dir);
  return 0;
}
