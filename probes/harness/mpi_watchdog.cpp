#include "probes/harness/mpi_watchdog.hpp"

#include <sstream>

namespace ga {

namespace {
constexpr int kTagPing = 1, kTagPong = 2, kTagStandDown = 3;
using Clock = std::chrono::steady_clock;

void send_small(const std::string& payload, int dest, int tag, MPI_Comm comm) {
  MPI_Request req;
  // Small messages go eagerly; freeing the request lets the send complete on its own.
  MPI_Isend(payload.data(), static_cast<int>(payload.size()), MPI_CHAR, dest, tag, comm, &req);
  MPI_Request_free(&req);
}

std::string recv_small(const MPI_Status& st, MPI_Comm comm) {
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string buf(static_cast<std::size_t>(n), '\0');
  MPI_Recv(buf.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, comm, MPI_STATUS_IGNORE);
  return buf;
}
}  // namespace

Watchdog::Watchdog(MPI_Comm world, std::vector<std::string> rank_hosts, WatchdogHooks hooks, WatchdogOptions opt)
    : hosts_(std::move(rank_hosts)), hooks_(std::move(hooks)), opt_(opt) {
  MPI_Comm_dup(world, &control_);
  MPI_Comm_rank(control_, &rank_);
  MPI_Comm_size(control_, &size_);
  // The deputy should not share rank 0's fate: prefer the first rank on another host.
  for (int r = 1; r < size_; ++r)
    if (hosts_[r] != hosts_[0]) { deputy_ = r; break; }
  if (deputy_ < 0 && size_ > 1) deputy_ = 1;
  thread_ = std::thread([this] { loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && control_ != MPI_COMM_NULL) MPI_Comm_free(&control_);
}

void Watchdog::arm(const std::string& phase, double seconds) {
  std::lock_guard lk(mu_);
  armed_ = true;
  local_only_ = false;
  stood_down_ = false;
  phase_ = phase;
  stage_ = "running";
  seconds_ = seconds;
  deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

void Watchdog::arm_local(const std::string& phase, double seconds) {
  arm(phase, seconds);
  std::lock_guard lk(mu_);
  local_only_ = true;
}

void Watchdog::stage(const char* what) {
  std::lock_guard lk(mu_);
  stage_ = what;
}

void Watchdog::disarm() {
  std::lock_guard lk(mu_);
  armed_ = false;
  stage_ = "idle";
}

void Watchdog::release_mpi() {
  std::lock_guard lk(mu_);
  // Collective, with every rank's thread out of the control communicator (no one is armed).
  if (control_ != MPI_COMM_NULL) MPI_Comm_free(&control_);
  control_ = MPI_COMM_NULL;
}

std::vector<RankRef> Watchdog::refs(const std::vector<int>& ranks) const {
  std::vector<RankRef> out;
  for (int r : ranks) out.push_back({r, hosts_[static_cast<std::size_t>(r)]});
  return out;
}

void Watchdog::loop() {
  std::unique_lock lk(mu_);
  while (!stop_) {
    cv_.wait_for(lk, std::chrono::milliseconds(opt_.poll_ms));
    if (stop_ || !armed_ || fired_) continue;
    const auto now = Clock::now();
    if (local_only_) {
      if (now > deadline_) {
        fired_ = true;
        auto phase = phase_;
        auto secs = seconds_;
        lk.unlock();
        hooks_.on_local_timeout(phase, secs);
        lk.lock();
      }
      continue;
    }
    if (control_ == MPI_COMM_NULL) continue;
    const auto listen_from = deadline_ - std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(opt_.listen_margin_s));
    if (now >= listen_from) poll_control();
    const auto grace = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt_.grace_s));
    const bool mine = (rank_ == 0 && now > deadline_) || (rank_ == deputy_ && !stood_down_ && now > deadline_ + grace);
    if (mine) {
      fired_ = true;
      lk.unlock();
      fire();  // does not return: aborts the job
      lk.lock();
    }
  }
}

// Called with mu_ held.
void Watchdog::poll_control() {
  for (;;) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, control_, &flag, &st);
    if (!flag) return;
    if (st.MPI_TAG == kTagPong) return;  // answers are for fire()
    auto msg = recv_small(st, control_);
    if (st.MPI_TAG == kTagPing) send_small(phase_ + "\n" + stage_, st.MPI_SOURCE, kTagPong, control_);
    if (st.MPI_TAG == kTagStandDown) stood_down_ = true;
  }
}

void Watchdog::fire() {
  std::string phase, own_stage;
  double seconds;
  {
    std::lock_guard lk(mu_);
    phase = phase_;
    own_stage = stage_;
    seconds = seconds_;
  }
  if (rank_ == 0 && deputy_ > 0) send_small("", deputy_, kTagStandDown, control_);
  for (int r = 0; r < size_; ++r)
    if (r != rank_) send_small("", r, kTagPing, control_);

  std::vector<std::string> answer(static_cast<std::size_t>(size_));
  std::vector<bool> answered(static_cast<std::size_t>(size_), false);
  answered[static_cast<std::size_t>(rank_)] = true;
  answer[static_cast<std::size_t>(rank_)] = phase + "\n" + own_stage;
  int pending = size_ - 1;
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(opt_.ping_wait_s));
  while (pending > 0 && Clock::now() < until) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, control_, &flag, &st);
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    auto msg = recv_small(st, control_);
    if (st.MPI_TAG == kTagPong && !answered[static_cast<std::size_t>(st.MPI_SOURCE)]) {
      answered[static_cast<std::size_t>(st.MPI_SOURCE)] = true;
      answer[static_cast<std::size_t>(st.MPI_SOURCE)] = msg;
      --pending;
    } else if (st.MPI_TAG == kTagPing) {
      send_small(phase + "\n" + own_stage, st.MPI_SOURCE, kTagPong, control_);
    }
  }

  std::vector<int> silent, running, waiting;
  for (int r = 0; r < size_; ++r) {
    if (!answered[static_cast<std::size_t>(r)]) { silent.push_back(r); continue; }
    const auto& a = answer[static_cast<std::size_t>(r)];
    (a.find("\nrunning") != std::string::npos ? running : waiting).push_back(r);
  }
  IncompleteRecord rec;
  rec.probe = phase;
  rec.detected_by = rank_;
  std::ostringstream why;
  why << phase << " did not finish within " << seconds << " s";
  auto list = [&](const std::vector<int>& rs) {
    std::ostringstream o;
    for (std::size_t i = 0; i < rs.size(); ++i)
      o << (i ? ", " : "") << "rank " << rs[i] << " (" << hosts_[static_cast<std::size_t>(rs[i])] << ")";
    return o.str();
  };
  if (!silent.empty()) {
    rec.missing_ranks = refs(silent);
    std::vector<int> alive = running;
    alive.insert(alive.end(), waiting.begin(), waiting.end());
    std::sort(alive.begin(), alive.end());
    rec.waiting_ranks = refs(alive);
    why << ": " << list(silent) << (silent.size() == 1 ? " did" : " did") << " not answer the watchdog (stopped, dead or cut off)";
  } else {
    // Every process answers: the hang is inside the probe on the ranks still running it.
    rec.missing_ranks = refs(running);
    rec.waiting_ranks = refs(waiting);
    why << ": every rank answered the watchdog; " << (running.empty() ? "no rank" : list(running))
        << " still inside the probe";
  }
  rec.reason = why.str();
  hooks_.on_hang(rec);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

}  // namespace ga
