// `gpuaccept run`: the MPI program. Inputs are validated before MPI starts (a bad file
// exits 2 on every rank, no job half-started). Then: discover each host's topology,
// open the journal, run each probe under a deadline, gather its samples to rank 0,
// journal and fsync them, and finally judge the journal and write the report.
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "app/commands.hpp"
#include "app/host_identity.hpp"
#include "probes/harness/mpi_comm.hpp"
#include "probes/harness/mpi_watchdog.hpp"
#include "probes/harness/process_state.hpp"
#include "probes/harness/signals.hpp"
#include "probes/inventory/versions.hpp"
#include "probes/journal.hpp"
#include "probes/probe.hpp"
#include "slurm/slurm_env.hpp"
#include "suites/criteria.hpp"
#include "suites/suite_file.hpp"
#include "topology/topology.hpp"

namespace ga::app {

namespace {

namespace fs = std::filesystem;

std::string iso_now() {
  auto t = std::chrono::system_clock::now();
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string default_out_dir() {
  std::time_t tt = std::time(nullptr);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "gpuaccept-report-%Y%m%d-%H%M%S", &tm);
  return buf;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What the signal thread and the watchdog need to know about the run, shared with the main thread.
struct RunState {
  std::mutex mu;
  std::string journal_path;             // "" until the journal exists
  std::string dir;
  std::string phase = "startup";
  int rank = 0;
  std::string host;
  std::vector<std::string> rank_hosts;  // empty until the layout is known
  std::vector<long> pids;
};

// After SIGTERM (mpirun ends the job because a rank died), Open MPI sends SIGKILL one second
// later. Rank 0 waits for the other survivors' signal records only as long as it must: until
// every rank has written one or is visibly dead on this host, at most half a second.
void wait_for_survivor_records(const std::string& journal, const std::vector<std::string>& rank_hosts,
                               const std::vector<long>& pids, const std::string& host) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  while (std::chrono::steady_clock::now() < until) {
    std::vector<bool> accounted(rank_hosts.size(), false);
    std::ifstream in(journal);
    for (std::string line; std::getline(in, line);) {
      if (line.find("\"type\":\"signal\"") == std::string::npos) continue;
      try {
        auto r = nlohmann::json::parse(line).value("rank", -1);
        if (r >= 0 && static_cast<std::size_t>(r) < accounted.size()) accounted[static_cast<std::size_t>(r)] = true;
      } catch (const std::exception&) {
      }
    }
    bool all = true;
    for (std::size_t r = 0; r < rank_hosts.size() && all; ++r)
      if (!accounted[r] && !(rank_hosts[r] == host && process_state(pids[r]) != ProcState::running)) all = false;
    if (all) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Inputs parsed before MPI starts.
struct Inputs {
  Suite suite;
  std::string criteria_source, criteria_text;
  std::optional<topo::HostTopology> expected;
};

class CollectingSink final : public SampleSink {
 public:
  CollectingSink(std::string probe, int rank) : probe_(std::move(probe)), rank_(rank) {}
  void emit(Sample s) override {
    s.probe = probe_;
    s.rank = rank_;
    samples.push_back(std::move(s));
  }
  std::vector<Sample> samples;
 private:
  std::string probe_;
  int rank_;
};

void progress(int rank, const std::string& msg) {
  if (rank == 0) std::fprintf(stderr, "[gpuaccept] %s\n", msg.c_str());
}

// Rank layout derived from everyone's hostname and pid.
struct Layout {
  std::vector<std::string> rank_hosts;
  std::vector<long> pids;
  std::vector<std::string> hosts;       // distinct, in order of first rank
  int local_rank = 0, local_size = 0, host_index = 0;
};

Layout make_layout(Comm& world, const std::string& host) {
  Layout l;
  auto all = world.allgather(host + "\t" + std::to_string(::getpid()));
  for (const auto& e : all) {
    auto tab = e.find('\t');
    l.rank_hosts.push_back(e.substr(0, tab));
    l.pids.push_back(std::stol(e.substr(tab + 1)));
  }
  for (int r = 0; r < world.size(); ++r) {
    const auto& h = l.rank_hosts[static_cast<std::size_t>(r)];
    if (std::find(l.hosts.begin(), l.hosts.end(), h) == l.hosts.end()) l.hosts.push_back(h);
    if (h == host) {
      if (r < world.rank()) ++l.local_rank;
      ++l.local_size;
    }
  }
  l.host_index = static_cast<int>(std::find(l.hosts.begin(), l.hosts.end(), host) - l.hosts.begin());
  return l;
}

// Each host's first rank discovers its topology; rank 0 assembles the cluster's and shares it.
topo::ClusterTopology gather_topology(Comm& world, const Layout& l, const std::string& host, const std::string& sysfs_root) {
  std::string mine;
  if (l.local_rank == 0) {
    nlohmann::json j;
    try {
      j = topo::to_json(topo::discover_local(host, sysfs_root));
    } catch (const std::exception& e) {
      topo::HostTopology h;
      h.hostname = host;
      h.source = std::string("error: ") + e.what();
      j = topo::to_json(h);
    }
    mine = j.dump();
  }
  auto parts = world.gather(mine, 0);
  std::string cluster;
  if (world.rank() == 0) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& p : parts)
      if (!p.empty()) arr.push_back(nlohmann::json::parse(p));
    cluster = arr.dump();
  }
  cluster = world.broadcast(cluster, 0);
  topo::ClusterTopology c;
  for (const auto& h : nlohmann::json::parse(cluster)) c.hosts.push_back(topo::host_from_json(h));
  return c;
}

nlohmann::json rank_refs_json(const std::vector<RankRef>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : v) a.push_back({{"rank", r.rank}, {"host", r.host}});
  return a;
}

// Judge what is on disk and say so; used on every exit path that can still write.
void judge_and_announce(const std::string& dir) {
  try {
    auto r = judge_directory(dir, "");
    std::fprintf(stderr, "[gpuaccept] %s\n[gpuaccept] report %s\n", r.summary_line.c_str(),
                 (fs::path(dir) / "report.md").c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[gpuaccept] could not write the report: %s\n", e.what());
  }
}

Inputs load_inputs(const RunOptions& o) {
  Inputs in;
  in.suite = load_suite(o.suite);
  for (const auto& a : o.overrides) apply_override(in.suite, a);
  if (o.criteria.empty()) {
    in.criteria_source = "builtin";
    in.criteria_text = builtin_criteria_text();
  } else {
    in.criteria_source = o.criteria;
    in.criteria_text = read_file(o.criteria);
  }
  (void)parse_criteria(in.criteria_text, in.criteria_source);  // fail now, not after the run
  if (!o.expect_topology.empty()) in.expected = topo::load_topology_file(o.expect_topology);
  ProbeRegistry reg;
  register_builtin_probes(reg);
  for (const auto& p : in.suite.probes)
    if (!reg.find(p.name)) throw SuiteError(in.suite.source, 0, "unknown probe \"" + p.name + "\" (see gpuaccept list)");
  return in;
}

}  // namespace

int run_command(const RunOptions& o, int* argc, char*** argv) {
  Inputs in;
  try {
    in = load_inputs(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuaccept: %s\n", e.what());
    return kExitUsage;
  }

  RunState state;
  // Before MPI_Init, so MPI's own threads inherit the blocked signal mask.
  SignalThread signals([&state](int signo) {
    std::string journal, dir, phase, host;
    int rank;
    std::vector<std::string> rank_hosts;
    std::vector<long> pids;
    {
      std::lock_guard lk(state.mu);
      journal = state.journal_path;
      dir = state.dir;
      phase = state.phase;
      rank = state.rank;
      host = state.host;
      rank_hosts = state.rank_hosts;
      pids = state.pids;
    }
    if (!dir.empty()) {
      // A survivor says so: the judge then knows the rank that left no record is the lost one.
      append_record_once((fs::path(dir) / "samples.jsonl").string(),
                         {{"type", "signal"}, {"rank", rank}, {"host", host}, {"signal", signal_name(signo)},
                          {"probe", phase}, {"time", iso_now()}});
      if (rank == 0 && !journal.empty()) {
        wait_for_survivor_records(journal, rank_hosts, pids, host);
        judge_and_announce(dir);
      } else if (rank != 0) {
        // Exiting at once would make mpirun kill what is left of the job, rank 0 included,
        // before it has written the report; mpirun's own SIGKILL ends this wait.
        std::this_thread::sleep_for(std::chrono::seconds(2));
      }
    }
    std::_Exit(128 + signo);
  });

  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  int exit_code = kExitIncomplete;
  // The watchdog outlives the communicators so that MPI_Finalize itself runs under a deadline.
  std::optional<Watchdog> watchdog;
  {
    MpiComm world(MPI_COMM_WORLD);
    const int rank = world.rank();
    if (provided < MPI_THREAD_MULTIPLE) {
      // The watchdog answers pings from its own thread while the main thread is blocked in MPI.
      if (rank == 0) std::fprintf(stderr, "gpuaccept: the MPI library does not provide MPI_THREAD_MULTIPLE\n");
      MPI_Abort(MPI_COMM_WORLD, kExitUsage);
    }
    const std::string host = short_hostname();
    const std::string sysfs_root = sysfs_root_from_env();
    {
      std::lock_guard lk(state.mu);
      state.rank = rank;
      state.host = host;
    }
    const Layout layout = make_layout(world, host);
    {
      std::lock_guard lk(state.mu);
      state.rank_hosts = layout.rank_hosts;
      state.pids = layout.pids;
    }

    WatchdogHooks hooks;
    hooks.on_hang = [&state](const IncompleteRecord& rec) {
      std::string dir;
      {
        std::lock_guard lk(state.mu);
        dir = state.dir;
      }
      std::fprintf(stderr, "[gpuaccept] incomplete: %s\n", rec.reason.c_str());
      if (dir.empty()) return;
      append_record_once((fs::path(dir) / "samples.jsonl").string(),
                         {{"type", "incomplete"}, {"probe", rec.probe}, {"reason", rec.reason},
                          {"missing_ranks", rank_refs_json(rec.missing_ranks)},
                          {"waiting_ranks", rank_refs_json(rec.waiting_ranks)}, {"detected_by", rec.detected_by}});
      judge_and_announce(dir);
    };
    // MPI_Finalize hangs when a peer stopped after its last collective: MPI cannot be asked
    // any more, but each host can see its own ranks in /proc. The first running rank of each
    // host journals the stopped or vanished ones; rank 0 (and the deputy, should rank 0 be the
    // stopped one) then judges.
    hooks.on_local_timeout = [&state, layout](const std::string& phase, double secs) {
      std::string dir, host;
      int rank;
      {
        std::lock_guard lk(state.mu);
        dir = state.dir;
        host = state.host;
        rank = state.rank;
      }
      nlohmann::json bad = nlohmann::json::array();
      std::string bad_text;
      int first_running = -1;
      bool rank0_down = false;
      for (std::size_t r = 0; r < layout.rank_hosts.size(); ++r) {
        if (layout.rank_hosts[r] != host) continue;
        const auto st = static_cast<int>(r) == rank ? ProcState::running : process_state(layout.pids[r]);
        if (st == ProcState::running) {
          if (first_running < 0) first_running = static_cast<int>(r);
          continue;
        }
        if (r == 0) rank0_down = true;
        bad.push_back({{"rank", r}, {"host", host}});
        bad_text += (bad_text.empty() ? "" : ", ") + std::string("rank ") + std::to_string(r) + " (pid " +
                    std::to_string(layout.pids[r]) + ") is " + to_string(st);
      }
      const std::string why = phase + " did not return within " + std::to_string(static_cast<int>(secs)) +
                              " s on rank " + std::to_string(rank) + " (" + host + "); on " + host + ": " +
                              (bad_text.empty() ? "every rank is running" : bad_text);
      std::fprintf(stderr, "[gpuaccept] incomplete: %s\n", why.c_str());
      if (!dir.empty() && rank == first_running && (!bad.empty() || rank == 0)) {
        append_record_once((fs::path(dir) / "samples.jsonl").string(),
                           {{"type", "incomplete"}, {"probe", phase}, {"reason", why}, {"missing_ranks", bad},
                            {"waiting_ranks", nlohmann::json::array()}, {"detected_by", rank}});
      }
      const bool judge_here = rank == 0 || (rank == first_running && rank0_down);
      if (judge_here && !dir.empty()) {
        // Let the other hosts' first ranks journal what they see first.
        std::this_thread::sleep_for(std::chrono::seconds(1));
        judge_and_announce(dir);
      }
      std::_Exit(kExitIncomplete);
    };
    watchdog.emplace(MPI_COMM_WORLD, layout.rank_hosts, hooks);
    auto set_phase = [&](const std::string& p) {
      std::lock_guard lk(state.mu);
      state.phase = p;
    };

    watchdog->arm("startup", o.probe_timeout_s);
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
      watchdog->disarm();
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

      std::unique_ptr<JournalWriter> journal;
      if (rank == 0) {
        journal = std::make_unique<JournalWriter>(journal_path);
        nlohmann::json ranks = nlohmann::json::array();
        for (int r = 0; r < world.size(); ++r) {
          const auto& h = layout.rank_hosts[static_cast<std::size_t>(r)];
          int local = 0;
          for (int q = 0; q < r; ++q)
            if (layout.rank_hosts[static_cast<std::size_t>(q)] == h) ++local;
          ranks.push_back({{"rank", r}, {"host", h}, {"local_rank", local}, {"pid", layout.pids[static_cast<std::size_t>(r)]}});
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
                         {"argv", o.argv},
                         {"ranks", ranks},
                         {"hosts", layout.hosts},
                         {"versions", versions},
                         {"slurm", slurm::capture_job()},
                         {"suite", in.suite.to_json()},
                         {"probe_timeout_s", o.probe_timeout_s},
                         {"criteria", {{"source", in.criteria_source}, {"text", in.criteria_text}}},
                         {"expected_topology", in.expected ? topo::to_json(*in.expected) : nlohmann::json(nullptr)}});
        for (const auto& h : cluster.hosts) journal->append({{"type", "topology"}, {"host", h.hostname}, {"topology", topo::to_json(h)}});
        journal->flush();
        progress(rank, "run " + dir + ": " + std::to_string(world.size()) + " ranks on " +
                           std::to_string(layout.hosts.size()) + " hosts, suite " + in.suite.name);
      }
      {
        std::lock_guard lk(state.mu);
        state.dir = dir;
        state.journal_path = journal_path;
      }
      watchdog->disarm();

      ProbeRegistry registry;
      register_builtin_probes(registry);
      const std::size_t nprobes = in.suite.probes.size();
      for (std::size_t pi = 0; pi < nprobes; ++pi) {
        const auto& sp = in.suite.probes[pi];
        Probe* probe = registry.find(sp.name);
        watchdog->arm(sp.name, o.probe_timeout_s);
        set_phase(sp.name);
        const auto t0 = std::chrono::steady_clock::now();
        if (rank == 0) {
          journal->append({{"type", "probe_begin"}, {"probe", sp.name}, {"time", iso_now()}, {"deadline_s", o.probe_timeout_s}});
          journal->flush();
          progress(rank, "probe " + sp.name + " (" + std::to_string(pi + 1) + "/" + std::to_string(nprobes) + ")");
        }
        world.barrier();
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
                                std::chrono::duration<double>(o.probe_timeout_s));
        CollectingSink sink(sp.name, rank);
        Outcome outcome;
        if (probe->info().needs.multi_host && layout.hosts.size() < 2) {
          outcome = Outcome::skipped("needs 2 or more hosts; this run has 1");
        } else {
          try {
            outcome = probe->run(ctx, sink);
          } catch (const std::exception& e) {
            outcome = Outcome::failed(e.what());
          }
        }
        watchdog->stage("sending results");
        nlohmann::json mine = {{"outcome", {{"status", to_string(outcome.status)}, {"reason", outcome.reason}}},
                               {"samples", nlohmann::json::array()}};
        for (const auto& s : sink.samples) mine["samples"].push_back(to_json(s));
        auto parts = world.gather(mine.dump(), 0);
        if (rank == 0) {
          std::map<std::string, int> counts;
          for (int r = 0; r < world.size(); ++r) {
            auto j = nlohmann::json::parse(parts[static_cast<std::size_t>(r)]);
            for (auto& s : j["samples"]) {
              s["type"] = "sample";
              journal->append(s);
            }
            journal->append({{"type", "outcome"}, {"probe", sp.name}, {"rank", r},
                             {"host", layout.rank_hosts[static_cast<std::size_t>(r)]},
                             {"status", j["outcome"]["status"]}, {"reason", j["outcome"]["reason"]}});
            counts[j["outcome"]["status"].get<std::string>()]++;
          }
          const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          journal->append({{"type", "probe_end"}, {"probe", sp.name}, {"time", iso_now()}, {"elapsed_s", elapsed}});
          journal->flush();
          std::ostringstream msg;
          msg << "probe " << sp.name << " done in " << std::fixed;
          msg.precision(1);
          msg << elapsed << " s:";
          for (const auto& [st, n] : counts) msg << " " << n << " " << st;
          progress(rank, msg.str());
        }
        // Everyone leaves the probe together: a gather completes early on non-root ranks, and a
        // hang must be reported against the probe it happened in, not the next one.
        world.barrier();
        watchdog->disarm();
      }

      watchdog->arm("shutdown", o.probe_timeout_s);
      set_phase("shutdown");
      world.barrier();
      std::string code = "3";
      if (rank == 0) {
        journal->append({{"type", "run_end"}, {"time", iso_now()}});
        journal->flush();
        journal.reset();
        try {
          auto r = judge_directory(dir, "");
          code = std::to_string(r.exit_code);
          std::printf("gpuaccept: %s\ngpuaccept: report %s\n", r.summary_line.c_str(),
                      (fs::path(dir) / "report.md").c_str());
          std::fflush(stdout);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "gpuaccept: judging failed: %s\n", e.what());
          code = std::to_string(kExitUsage);
        }
      }
      code = world.broadcast(code, 0);
      exit_code = std::stoi(code);
      watchdog->disarm();
    }
    watchdog->release_mpi();
    set_phase("MPI_Finalize");
  }  // frees world's communicator, which must happen before MPI_Finalize
  // Everything is journaled and judged; a hang from here on can only be timed out locally.
  watchdog->arm_local("MPI_Finalize", std::min(o.probe_timeout_s, 60.0));
  MPI_Finalize();
  watchdog->disarm();
  watchdog.reset();
  return exit_code;
}

}  // namespace ga::app
