// `gpuaccept run`: inputs are validated before anything starts (a bad file exits 2 on every
// rank, no job half-started); then either the MPI session (gpuaccept is the MPI program) or,
// in a build without MPI, one process on one host. Both run the same probe loop
// (run_loop.cpp) under a phase watchdog.
#ifdef GA_WITH_MPI
#include <mpi.h>
#endif

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <thread>

#include "app/commands.hpp"
#include "app/host_identity.hpp"
#include "app/run_support.hpp"
#include "probes/harness/local_watchdog.hpp"
#include "probes/harness/process_state.hpp"
#include "probes/harness/signals.hpp"
#ifdef GA_WITH_MPI
#include "probes/harness/mpi_comm.hpp"
#include "probes/harness/mpi_watchdog.hpp"
#endif

namespace ga::app {

namespace {

namespace fs = std::filesystem;
using namespace run;

#ifdef GA_WITH_MPI
int run_mpi(const RunOptions& o, const Inputs& in, RunState& state, int* argc, char*** argv) {
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
      journal_incomplete(dir, rec);
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
    {
      std::lock_guard lk(state.mu);
      state.deputy = watchdog->deputy();
    }
    exit_code = run_suite(world, *watchdog, state, in, o, layout, host, sysfs_root_from_env());
    watchdog->release_mpi();
    std::lock_guard lk(state.mu);
    state.phase = "MPI_Finalize";
  }  // frees world's communicator, which must happen before MPI_Finalize
  // Everything is journaled and judged; a hang from here on can only be timed out locally.
  watchdog->arm_local("MPI_Finalize", std::min(o.probe_timeout_s, 60.0));
  MPI_Finalize();
  watchdog->disarm();
  watchdog.reset();
  return exit_code;
}
#endif

// One process on one host: the build without MPI, for GPU hosts that have none and for quick
// single-host checks. A phase past its deadline is journaled as this rank's and exits 3.
int run_local(const RunOptions& o, const Inputs& in, RunState& state) {
  auto world = make_self_comm();
  const std::string host = short_hostname();
  const Layout layout = make_layout(*world, host);
  {
    std::lock_guard lk(state.mu);
    state.rank = 0;
    state.host = host;
    state.rank_hosts = layout.rank_hosts;
    state.pids = layout.pids;
  }
  LocalWatchdog watch([&state, host](const std::string& phase, double secs) {
    std::string dir;
    {
      std::lock_guard lk(state.mu);
      dir = state.dir;
    }
    IncompleteRecord rec;
    rec.probe = phase;
    rec.reason = phase + " did not finish within " + std::to_string(static_cast<int>(secs)) + " s";
    rec.missing_ranks = {{0, host}};
    rec.detected_by = 0;
    std::fprintf(stderr, "[gpuaccept] incomplete: %s\n", rec.reason.c_str());
    if (!dir.empty()) {
      journal_incomplete(dir, rec);
      judge_and_announce(dir);
    }
    std::_Exit(kExitIncomplete);
  });
  return run_suite(*world, watch, state, in, o, layout, host, sysfs_root_from_env());
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
  // Before MPI_Init and any other thread, so every thread inherits the blocked signal mask.
  SignalThread signals([&state](int signo) {
    std::string journal, dir, phase, host;
    int rank;
    std::vector<std::string> rank_hosts;
    std::vector<long> pids;
    int deputy;
    {
      std::lock_guard lk(state.mu);
      journal = state.journal_path;
      dir = state.dir;
      phase = state.phase;
      rank = state.rank;
      host = state.host;
      rank_hosts = state.rank_hosts;
      pids = state.pids;
      deputy = state.deputy;
    }
    if (!dir.empty()) {
      // A survivor says so: the judge then knows the rank that left no record is the lost one.
      append_record_once((fs::path(dir) / "samples.jsonl").string(),
                         {{"type", "signal"}, {"rank", rank}, {"host", host}, {"signal", signal_name(signo)},
                          {"probe", phase}, {"time", iso_now()}});
      if (rank == 0 && !journal.empty()) {
        wait_for_survivor_records(journal, rank_hosts, pids, host);
        judge_and_announce(dir);
      } else if (rank == deputy && phase != "MPI_Finalize" && !journal.empty() && !wait_for_survivor_records(journal, rank_hosts, pids, host)[0]) {
        // Rank 0 left no signal record: it is the rank that died (the OOM killer picks the
        // largest process, often rank 0), so no one else writes the report. The judge names
        // it lost from the journal. Not after the run (MPI_Finalize): rank 0 judged it and
        // exited, and mpirun ends the rest when the exit code is not 0.
        judge_and_announce(dir);
      } else if (rank != 0) {
        // Exiting at once would make mpirun kill what is left of the job, rank 0 included,
        // before it has written the report; mpirun's own SIGKILL ends this wait.
        std::this_thread::sleep_for(std::chrono::seconds(2));
      }
    }
    std::_Exit(128 + signo);
  });

#ifdef GA_WITH_MPI
  return run_mpi(o, in, state, argc, argv);
#else
  (void)argc;
  (void)argv;
  return run_local(o, in, state);
#endif
}

}  // namespace ga::app
