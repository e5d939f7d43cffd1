#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "app/host_identity.hpp"
#include "app/run_support.hpp"
#include "base/redact.hpp"
#include "base/sysfs_read.hpp"
#include "probes/devices/numa_binding.hpp"
#include "probes/harness/progress_printer.hpp"
#include "probes/harness/net_watch.hpp"
#include "probes/vendor/versions.hpp"
#include "topology/place.hpp"
#include "reports/report.hpp"
#include "slurm/slurm_env.hpp"
#include "topology/topology.hpp"

namespace ga::app::run {

namespace fs = std::filesystem;

int run_suite(Comm& world, PhaseWatch& watch, RunState& state, const Inputs& in, const RunOptions& o,
              const Layout& layout, const std::string& host, const std::string& sysfs_root) {
  const int rank = world.rank();
  int exit_code = kExitIncomplete;
  auto set_phase = [&](const std::string& p) {
    std::lock_guard lk(state.mu);
    state.phase = p;
  };
  watch.arm("startup", o.probe_timeout_s);
  // The run directory: rank 0 names and creates it; everyone learns the absolute path.
  std::string dir_msg;
  if (rank == 0) {
    try {
      fs::path d = o.out.empty() ? fs::path(default_out_dir()) : fs::path(o.out);
      fs::create_directories(d);
      if (fs::exists(d / "samples.jsonl")) throw std::runtime_error(d.string() + " already holds a run (samples.jsonl); choose another --out");
      dir_msg = "ok\n" + fs::absolute(d).lexically_normal().string();
    } catch (const std::exception& e) {
      dir_msg = std::string("error\n") + e.what();
    }
  }
  dir_msg = world.broadcast(dir_msg, 0);
  if (dir_msg.rfind("error\n", 0) == 0) {
    if (rank == 0) std::fprintf(stderr, "gpuaccept: cannot create the report directory: %s\n", dir_msg.c_str() + 6);
    watch.disarm();
    exit_code = kExitUsage;
  } else {
    const std::string dir = dir_msg.substr(3);
    const std::string journal_path = (fs::path(dir) / "samples.jsonl").string();

    const auto cluster = gather_topology(world, layout, host, sysfs_root);
    const topo::HostTopology* my_host = cluster.find(host);
    topo::HostTopology fallback;
    if (!my_host) {
      fallback.hostname = host;
      fallback.source = "error: no topology gathered for this host";
      my_host = &fallback;
    }

    // Each rank on its GPU's NUMA node, for the whole run (launchers bind in rank order, not
    // by GPU); what each rank got goes into run_start.
    std::optional<gpu::NumaBinding> numa;
    std::string bound = "not bound: --no-numa-bind";
    if (o.numa_bind) {
      std::string why;
      const auto node = gpu::gpu_numa_node(*my_host, layout.local_rank, &why);
      numa.emplace(node);
      bound = numa->bound() ? std::to_string(*node) : "not bound: " + (node ? numa->why() : why);
    }
    const auto bindings = world.gather(bound, 0);
    // Which kernel each rank runs on, for every run whatever its suite: the judge does not
    // hold hosts that share one against each other's median (suites/judge.cpp).
    const auto boot_ids = world.gather(sysfs::boot_id().value_or(""), 0);
    std::unique_ptr<JournalWriter> journal;
    if (rank == 0) {
      journal = std::make_unique<JournalWriter>(journal_path);
      nlohmann::json ranks = nlohmann::json::array();
      for (int r = 0; r < world.size(); ++r) {
        const auto& h = layout.rank_hosts[static_cast<std::size_t>(r)];
        int local = 0;
        for (int q = 0; q < r; ++q)
          if (layout.rank_hosts[static_cast<std::size_t>(q)] == h) ++local;
        nlohmann::json one = {{"rank", r}, {"host", h}, {"local_rank", local}, {"pid", layout.pids[static_cast<std::size_t>(r)]}};
        const std::string& b = bindings[static_cast<std::size_t>(r)];
        if (b.rfind("not bound", 0) == 0) one["numa_binding"] = b;
        else one["numa_node"] = std::stoi(b);
        if (const auto& id = boot_ids[static_cast<std::size_t>(r)]; !id.empty()) one["boot_id"] = id;
        ranks.push_back(std::move(one));
      }
      const auto v = discover_versions();
      nlohmann::json versions = v.version;
      versions["gpuaccept"] =
#ifdef GA_VERSION
          GA_VERSION;
#else
          "0.1.0";
#endif
      journal->append({{"type", "run_start"},
                       {"schema_version", kJournalSchemaVersion},
                       {"started", iso_now()},
                       // Recorded for the report, never with a secret (base/redact.hpp).
                       {"argv", base::redact_argv(o.argv)},
                       {"ranks", ranks},
                       {"hosts", layout.hosts},
                       {"versions", versions},
                       {"slurm", slurm::capture_job()},
                       {"suite", in.suite.to_json()},
                       {"probe_timeout_s", o.probe_timeout_s},
                       {"criteria", {{"source", in.criteria_source}, {"text", in.criteria_text}}},
                       {"expected_topology", in.expected ? topo::to_json(*in.expected) : nlohmann::json(nullptr)},
                       {"rerun_of", in.rerun_of}});
      for (const auto& h : cluster.hosts) journal->append({{"type", "topology"}, {"host", h.hostname}, {"topology", topo::to_json(h)}});
      journal->flush();
      if (!o.quiet) progress(rank, "run " + dir + ": " + std::to_string(world.size()) + " ranks on " +
                         std::to_string(layout.hosts.size()) + " hosts, suite " + in.suite.name);
    }
    {
      std::lock_guard lk(state.mu);
      state.dir = dir;
      state.journal_path = journal_path;
    }
    watch.disarm();

    ProbeRegistry registry;
    register_builtin_probes(registry);
    auto make_ctx = [&](const SuiteProbe& sp, std::chrono::steady_clock::time_point t0, double deadline_s) {
      ProbeContext ctx{world, cluster, *my_host, host};
      ctx.rank = rank;
      ctx.size = world.size();
      ctx.local_rank = layout.local_rank;
      ctx.local_size = layout.local_size;
      ctx.host_index = layout.host_index;
      ctx.host_count = static_cast<int>(layout.hosts.size());
      ctx.rank_hosts = layout.rank_hosts;
      ctx.params = sp.params;
      ctx.sysfs_root = sysfs_root;
      ctx.run_dir = dir;
      ctx.shared_dir = o.shared_dir.empty() ? dir : fs::absolute(o.shared_dir).string();
      ctx.self_argv = o.argv;
      ctx.deadline = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(deadline_s));
      return ctx;
    };
    // Run-level readings (Probe::read_run_bound), once per probe of the suite that takes them
    // (with its first entry's parameters): samples only, journaled and fsync'd at once.
    auto read_run_bounds = [&](RunBound at) {
      std::set<std::string> seen;
      for (const auto& sp : in.suite.probes) {
        Probe* probe = registry.find(sp.name);
        if (!probe->reads_run_bounds() || !seen.insert(sp.name).second) continue;
        const std::string phase = sp.name + (at == RunBound::start ? " (run start)" : " (run end)");
        watch.arm(phase, o.probe_timeout_s);
        set_phase(phase);
        world.barrier();
        ProbeContext ctx = make_ctx(sp, std::chrono::steady_clock::now(), o.probe_timeout_s);
        CollectingSink sink(sp.name, rank);
        try {
          probe->read_run_bound(at, ctx, sink);
        } catch (const std::exception& e) {
          // A tool failure, not a node fault: its samples are then absent and nothing is derived
          // from them (the probe readers do not throw on a missing or unreadable file).
          std::fprintf(stderr, "gpuaccept: rank %d: %s: %s\n", rank, phase.c_str(), e.what());
        }
        watch.stage("sending results");
        nlohmann::json mine = nlohmann::json::array();
        for (const auto& s : sink.samples) mine.push_back(to_json(s));
        auto parts = world.gather(mine.dump(), 0);
        if (rank == 0) {
          for (const auto& part : parts)
            for (auto& s : nlohmann::json::parse(part)) {
              s["type"] = "sample";
              journal->append(s);
            }
          journal->flush();
        }
        world.barrier();
        watch.disarm();
      }
    };
    read_run_bounds(RunBound::start);
    const std::size_t nprobes = in.suite.probes.size();
    for (std::size_t pi = 0; pi < nprobes; ++pi) {
      const auto& sp = in.suite.probes[pi];
      Probe* probe = registry.find(sp.name);
      // A probe whose suite states how long it runs (the burn-in's soak.duration_s) gets the
      // deadline that length needs; --probe-timeout bounds the others (issue 32).
      const double deadline_s = probe->deadline_s(sp.params, o.probe_timeout_s);
      watch.arm(sp.name, deadline_s);
      set_phase(sp.name);
      const auto t0 = std::chrono::steady_clock::now();
      if (rank == 0) {
        journal->append({{"type", "probe_begin"}, {"probe", sp.name}, {"time", iso_now()}, {"deadline_s", deadline_s}});
        journal->flush();
        if (!o.quiet) progress(rank, "probe " + sp.name + " (" + std::to_string(pi + 1) + "/" + std::to_string(nprobes) + ")");
      }
      // The fabric probes' traffic leaves its trace in each host's TCP and interface counters
      // (probes/harness/net_watch.hpp): read by the host's first rank once every rank is here.
      const bool count_network = net::watched(sp.name) && layout.local_rank == 0;
      net::Watch net_watch;
      world.barrier();
      if (count_network) net_watch.begin();
      ProbeContext ctx = make_ctx(sp, t0, deadline_s);
      // Rank 0 alone prints where the probe is (probes/progress.hpp); --quiet prints nothing.
      std::optional<harness::ProgressPrinter> printer;
      if (rank == 0 && !o.quiet) {
        printer.emplace(sp.name, ctx.deadline, o.verbose ? 0.0 : harness::kProgressIntervalS,
                        [rank](const std::string& line) { progress(rank, line); });
        ctx.progress = &*printer;
      }
      if (rank == 0) {
        ctx.journal_now = [&journal, name = sp.name](std::vector<Sample> samples) {
          for (auto& s : samples) {
            s.probe = name;
            nlohmann::json j = to_json(s);
            j["type"] = "sample";
            journal->append(j);
          }
          journal->flush();
        };
      }
      CollectingSink sink(sp.name, rank);
      Outcome outcome;
      if (probe->info().needs.multi_host && layout.hosts.size() < 2) {
        outcome = Outcome::skipped("needs 2 or more hosts; this run has 1");
      } else {
        try {
          outcome = probe->run(ctx, sink);
        } catch (const std::exception& e) {
          // A probe that throws has broken, not found a fault: the host is not blamed for it.
          outcome = Outcome::tool_error(std::string("uncaught exception: ") + e.what());
        }
      }
      // ... and again once every rank has left the probe (no rank's traffic is still in flight).
      CollectingSink net_sink("net", rank);
      if (net::watched(sp.name)) {
        watch.stage("reading network counters");
        world.barrier();
        if (count_network) net_watch.end(place::host(host), sp.name, net_sink);
      }
      watch.stage("sending results");
      nlohmann::json mine = {{"outcome", {{"status", to_string(outcome.status)}, {"reason", outcome.reason}, {"library", outcome.library}, {"waited", outcome.waited}}},
                             {"samples", nlohmann::json::array()}};
      for (const auto& s : sink.samples) mine["samples"].push_back(to_json(s));
      for (const auto& s : net_sink.samples) mine["samples"].push_back(to_json(s));
      auto parts = world.gather(mine.dump(), 0);
      if (rank == 0) {
        std::map<std::string, int> counts;
        std::vector<nlohmann::json> got;
        std::vector<Outcome> outcomes;
        for (int r = 0; r < world.size(); ++r) {
          got.push_back(nlohmann::json::parse(parts[static_cast<std::size_t>(r)]));
          const auto& o = got.back()["outcome"];
          outcomes.push_back({probe_status_from_string(o["status"].get<std::string>()).value_or(ProbeStatus::error),
                              o["reason"].get<std::string>(), o.value("library", false), o.value("waited", false)});
        }
        // A library no host loads is the run's environment, not every node's fault (one node's
        // health check has no other host to tell the two apart: its node's, there).
        if (!o.one_node_of_a_fleet) settle_library_failures(outcomes);
        // Ranks cut short waiting for a late one: cleared only where the late one said so.
        settle_waiting_ranks(outcomes);
        for (int r = 0; r < world.size(); ++r) {
          auto& j = got[static_cast<std::size_t>(r)];
          for (auto& s : j["samples"]) {
            s["type"] = "sample";
            journal->append(s);
          }
          const Outcome& o = outcomes[static_cast<std::size_t>(r)];
          journal->append({{"type", "outcome"}, {"probe", sp.name}, {"rank", r},
                           {"host", layout.rank_hosts[static_cast<std::size_t>(r)]},
                           {"status", to_string(o.status)}, {"reason", o.reason}});
          counts[to_string(o.status)]++;
        }
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        journal->append({{"type", "probe_end"}, {"probe", sp.name}, {"time", iso_now()}, {"elapsed_s", elapsed}});
        journal->flush();
        std::ostringstream msg;
        msg << "probe " << sp.name << " done in " << std::fixed;
        msg.precision(1);
        msg << elapsed << " s:";
        for (const auto& [st, n] : counts) msg << " " << n << " " << st;
        if (!o.quiet) progress(rank, msg.str());
      }
      // Everyone leaves the probe together: a gather completes early on non-root ranks, and a
      // hang must be reported against the probe it happened in, not the next one.
      world.barrier();
      watch.disarm();
    }

    read_run_bounds(RunBound::end);
    watch.arm("shutdown", o.probe_timeout_s);
    set_phase("shutdown");
    world.barrier();
    std::string code = "3";
    if (rank == 0) {
      journal->append({{"type", "run_end"}, {"time", iso_now()}});
      journal->flush();
      journal.reset();
      if (!o.judge) {
        code = std::to_string(kExitPass);  // the caller judges the complete journal
      } else {
        try {
          auto r = judge_directory(dir, "", true, "", o.report);
          code = std::to_string(r.exit_code);
          // A report printed to stdout keeps stdout to itself: the summary goes to stderr then.
          FILE* said = parse_report_choice(o.report).to_stdout.empty() ? stdout : stderr;
          if (!o.sign.empty()) {
            // A signature that cannot be made is gpuaccept's failure, never the cluster's.
            try {
              sign_directory(dir, o.sign);
              std::fprintf(said, "gpuaccept: signed %s\n", (fs::path(dir) / "signature.dsse.json").c_str());
            } catch (const std::exception& e) {
              // Combined with the verdict, not over it: a node fault stays exit 1 (issue 32).
              std::fprintf(stderr, "gpuaccept: tool error: signing failed (the report is unsigned): %s\n", e.what());
              code = std::to_string(worse_exit(r.exit_code, kExitToolError));
            }
          }
          std::fprintf(said, "gpuaccept: %s\n", r.summary_line.c_str());
          if (!r.bad_hosts_line.empty()) std::fprintf(said, "gpuaccept: %s\n", r.bad_hosts_line.c_str());
          std::fprintf(said, "gpuaccept: report %s\n", (fs::path(dir) / "report.md").c_str());
          std::fflush(stdout);
        } catch (const std::exception& e) {
          // The journal is this run's own: judging it failing is gpuaccept's failure (5), not a
          // bad input of the user's (2).
          std::fprintf(stderr, "gpuaccept: tool error: judging failed: %s\n", e.what());
          code = std::to_string(kExitToolError);
        }
      }
    }
    code = world.broadcast(code, 0);
    exit_code = std::stoi(code);
    watch.disarm();
  }
  return exit_code;
}

}  // namespace ga::app::run
