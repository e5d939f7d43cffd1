// report_scale: judging and writing the report of a large run, without the cluster.
// Builds the journal a 1024-host x 8-GPU run would leave (topology per host, inventory,
// topology features, hostmem per NUMA node, ~20 numeric samples per GPU), judges it with the
// built-in criteria, writes report.json, report.md, report.html and report.junit.xml, and prints
// wall time and peak RSS, for all four files together and for each text writer alone.
// The targets (docs/measurements.md): under 10 s and 2 GiB on a 2-core machine.
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
                 {"suite", {{"name", "default"}, {"probes", {"inventory", "topology", "hostmem", "gpu"}}}},
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
  static const char* kGpuMetrics[] = {"gpu.hbm_bw", "gpu.h2d_bw", "gpu.d2h_bw", "gpu.gemm_bf16", "gpu.gemm_fp32",
                                      "gpu.sm_clock", "gpu.mem_clock", "gpu.temperature", "gpu.power",
                                      "gpu.mem_total", "gpu.mem_free", "gpu.ecc_sbe", "gpu.ecc_dbe",
                                      "gpu.pcie_gen", "gpu.pcie_width", "gpu.p2p_bw", "gpu.launch_lat",
                                      "gpu.nvlink_bw", "gpu.retired_pages", "gpu.throttle"};
  for (int h = 0; h < s.hosts; ++h) {
    const std::string host = host_name(h);
    const int rank0 = h * s.gpus;
    j.topology.hosts.push_back(host_topology(host, s));
    const auto& topo = j.topology.hosts.back();
    add("inventory", host, "inventory.cores", topo.cores, std::nullopt, "count", rank0);
    add("inventory", host, "inventory.memory_bytes", jitter(2.2e12, h, 0), std::nullopt, "B", rank0);
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
        add("gpu", ga::place::gpu(host, g), kGpuMetrics[m % 20], jitter(1e9 * (m + 1), h, g + m), std::nullopt,
            m < 5 ? "B/s" : "count", rank0 + g);
  }
  for (const char* p : {"inventory", "topology", "hostmem", "gpu"}) {
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
