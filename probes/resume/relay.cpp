#include "probes/resume/relay.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <thread>

#ifdef GA_WITH_MPI
#include <mpi.h>
#endif

#include "probes/resume/frame.hpp"

namespace ga::resume {

namespace {

constexpr std::uint64_t kGoneMagic = 0x454e4f4757524147ULL;  // "GARWGONE": this rank's worker is gone

// Every rank's fixed-size buffer, in rank order. One MPI collective per step; polled with
// yields so that oversubscribed hosts stay responsive.
std::vector<std::uint64_t> allgather_words(Comm& comm, const std::vector<std::uint64_t>& mine) {
  std::vector<std::uint64_t> all(mine.size() * static_cast<std::size_t>(comm.size()));
#ifdef GA_WITH_MPI
  if (void* nat = comm.native()) {
    MPI_Comm c = *static_cast<MPI_Comm*>(nat);
    MPI_Request req;
    const int n = static_cast<int>(mine.size());
    if (MPI_Iallgather(mine.data(), n, MPI_UINT64_T, all.data(), n, MPI_UINT64_T, c, &req) != MPI_SUCCESS)
      throw std::runtime_error("resume: MPI_Iallgather failed");
    int done = 0;
    for (int spins = 0; !done; ++spins) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      if (done) break;
      if (spins < 200) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return all;
  }
#endif
  if (comm.size() != 1) throw std::logic_error("resume: allgather needs MPI with more than one rank");
  all = mine;
  return all;
}

}  // namespace

const char* to_string(RelayEnd e) {
  switch (e) {
    case RelayEnd::finished: return "finished";
    case RelayEnd::killed_here: return "killed";
    case RelayEnd::stopped: return "stopped";
    case RelayEnd::failed: return "failed";
  }
  return "?";
}

RelayResult relay(Comm& comm, WorkerProcess* wp, const JobConfig& c, std::uint64_t frame_contrib, int kill_at_step,
                  double frame_timeout_s, const std::string& not_started) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t fw = frame_words(frame_contrib);
  const int n = comm.size();
  RelayResult res;
  bool first = true;
  std::vector<std::uint64_t> mine(fw), reply(fw * static_cast<std::size_t>(n));
  auto finish = [&](RelayEnd e, std::string why) {
    res.end = e;
    res.why = std::move(why);
    if (wp && wp->status()) res.wait_status = *wp->status();
    res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  };
  std::string gone_why = wp ? "" : "worker not started: " + not_started;
  for (;;) {
    // This rank's contribution to the exchange: its worker's frame, or word that it is gone.
    if (gone_why.empty()) {
      WorkerProcess& w = *wp;
      if (!w.readable_within(frame_timeout_s)) {
        w.signal(SIGKILL);
        w.wait();
        gone_why = "worker sent nothing for " + std::to_string(static_cast<int>(frame_timeout_s)) + " s after step " +
                   std::to_string(res.step) + " (hung); killed it";
      } else if (!recv_all(w.fd(), mine.data(), fw * 8)) {
        gone_why = "worker " + describe_wait_status(w.wait()) + " after step " + std::to_string(res.step);
      } else {
        Frame f;
        try {
          f = decode_frame(mine.data(), frame_contrib);
        } catch (const std::exception& e) {
          w.signal(SIGKILL);
          w.wait();
          gone_why = e.what();
        }
        if (gone_why.empty()) {
        res.step = static_cast<int>(f.step);
        if (first) res.start_step = static_cast<int>(f.start_step);
        first = false;
        if (kill_at_step > 0 && res.step == kill_at_step) {
          w.signal(SIGKILL);
          w.wait();
          gone_why = "killed here";
        }
        }
      }
    }
    if (!gone_why.empty()) {
      std::fill(mine.begin(), mine.end(), 0);
      mine[0] = kGoneMagic;
    }
    const auto all = allgather_words(comm, mine);

    int gone_rank = -1;
    for (int r = 0; r < n && gone_rank < 0; ++r)
      if (all[static_cast<std::size_t>(r) * fw] != kFrameMagic) gone_rank = r;
    if (gone_rank >= 0) {
      if (!gone_why.empty()) {
        const bool killed = gone_why == "killed here";
        return finish(killed ? RelayEnd::killed_here : RelayEnd::failed, killed ? "" : gone_why);
      }
      // Another worker is gone: stop this one, as a launcher stops the rest of a job.
      wp->stop_talking();
      wp->wait();
      return finish(RelayEnd::stopped, "the worker on rank " + std::to_string(gone_rank) + " is gone");
    }
    // Hand every frame to the worker in worker order; it reduces them itself.
    bool all_last = true;
    for (int r = 0; r < n; ++r) {
      const std::uint64_t* f = all.data() + static_cast<std::size_t>(r) * fw;
      const std::uint64_t worker = f[2];
      if (worker >= static_cast<std::uint64_t>(n)) throw std::runtime_error("resume: rank " + std::to_string(r) + " relayed a frame of worker " + std::to_string(worker));
      std::memcpy(reply.data() + worker * fw, f, fw * 8);
      if (f[1] != static_cast<std::uint64_t>(c.steps)) all_last = false;
    }
    try {
      send_all(wp->fd(), reply.data(), reply.size() * 8);
    } catch (const std::exception&) {
      // The worker died after sending its frame; the next round reads its end of file.
    }
    if (all_last) {
      const int st = wp->wait();
      if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return finish(RelayEnd::finished, "");
      return finish(RelayEnd::failed, "worker " + describe_wait_status(st) + " after the last step");
    }
  }
}

Shift shift_for_restart(const std::vector<std::string>& rank_hosts) {
  const int n = static_cast<int>(rank_hosts.size());
  if (n <= 1) return {0, false};
  for (int s = 1; s < n; ++s) {
    bool moved = true;
    for (int w = 0; w < n && moved; ++w)
      moved = rank_hosts[static_cast<std::size_t>(w)] != rank_hosts[static_cast<std::size_t>((w + s) % n)];
    if (moved) return {s, true};
  }
  return {1, false};
}

}  // namespace ga::resume
