// MPI side of pair_exchange.hpp (built only with MPI: the mpi_ prefix keeps it out otherwise).
#include <mpi.h>

#include <sched.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <thread>

#include "probes/p2p/pair_exchange.hpp"
#include "base/sysfs_read.hpp"

namespace ga::p2p {

namespace {

constexpr std::size_t kWindowBytes = std::size_t(64) << 20;  // data in flight per window, at most
constexpr int kMaxWindow = 64;                                 // messages in flight per window, at most
// A latency batch lasts about this long, so its two clock reads (25-60 ns here) cost < 0.5%.
constexpr double kBatchSpan_s = 20e-6;
constexpr int kMaxBatch = 256;
enum Kind { kPing = 0, kPong = 1, kCtrl = 2, kAck = 3, kData = 4, kHello = 5, kKinds = 6 };

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw std::runtime_error(std::string("p2p: ") + what + ": " + std::string(msg, len));
  }
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
Clock::time_point after(Clock::time_point t, double s) {
  return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// A fixed set of outstanding requests that either all complete or are abandoned.
struct Pending {
  MPI_Request req[kKinds + 64];
  bool recv[kKinds + 64];
  int n = 0;
  void add(MPI_Request r, bool is_recv) { req[n] = r, recv[n] = is_recv, ++n; }
};

// Which kernel this rank runs on: ranks with the same boot_id share its CPUs, whatever their
// hostnames say (fake hosts are network namespaces of one kernel). The processor name stands
// in where /proc does not tell.
std::uint64_t kernel_id() {
  std::string id = sysfs::boot_id().value_or("");
  if (id.empty()) {
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    id.assign(name, static_cast<std::size_t>(len));
  }
  return std::hash<std::string>{}(id);
}

// Whether the ranks of `comm` on this kernel are more than the CPUs they may run on together
// (the union of their affinity masks: bound to distinct cores or all unbound, 2 ranks on 2 CPUs
// each have one), and how many CPUs that is. Collective. An id collision between two kernels
// only makes both nap.
struct CoreShare {
  bool shared = true;
  int cpus = 1;
};
CoreShare ranks_share_cores(MPI_Comm comm) {
  constexpr int kWords = CPU_SETSIZE / 64;
  std::uint64_t mask[kWords] = {}, all[kWords] = {};
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) mask[c / 64] |= std::uint64_t(1) << (c % 64);
  } else {
    mask[0] = 1;  // unknown: count one CPU, so sharing ranks nap
  }
  MPI_Comm local = MPI_COMM_NULL;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  check(MPI_Comm_split(comm, static_cast<int>(kernel_id() & 0x7fffffff), rank, &local), "MPI_Comm_split");
  int ranks = 0;
  MPI_Comm_size(local, &ranks);
  const int rc = MPI_Allreduce(mask, all, kWords, MPI_UINT64_T, MPI_BOR, local);
  MPI_Comm_free(&local);
  check(rc, "MPI_Allreduce");
  int cpus = 0;
  for (auto w : all) cpus += std::popcount(w);
  return {ranks > cpus, std::max(cpus, 1)};
}

}  // namespace

struct PairExchange::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int tag_slots = 1;
  std::unique_ptr<char[]> sbuf, rbuf;
  std::size_t sbuf_size = 0, rbuf_size = 0;
  std::vector<std::unique_ptr<char[]>> retired;  // buffers replaced while ops might still use them
  std::int64_t ctrl = 0, ack = 0;                // bandwidth control words: here, not on a stack
  std::int64_t hello_out = 0, hello_in = 0;      // the meeting's words, likewise (MPI may write late)
  int* abandoned = nullptr;

  int tag(int slot, Kind k) const { return (slot % tag_slots) * kKinds + k; }

  char* recv_buffer(std::size_t bytes) {
    if (bytes > rbuf_size) {
      if (rbuf) retired.push_back(std::move(rbuf));
      rbuf.reset(new char[bytes]);
      std::memset(rbuf.get(), 0, bytes);  // touch every page before timing
      rbuf_size = bytes;
    }
    return rbuf.get();
  }

  // Spin until all complete or `hard`: a round trip is the measurement, the pair owns the
  // moment. A bandwidth window lasts milliseconds; where ranks share cores (`nap`) its waits
  // nap 20 us between polls after a short spin, far less than a socket buffer takes to drain,
  // so the transfer does not stall, and the cores go to the other pairs of the round (on fake
  // hosts a spinning sender otherwise slows every other pair 5-10x). Where each rank has a core
  // of its own they spin: the naps cost 14% of the bandwidth at 4 MiB here.
  bool wait_all(Pending& p, Clock::time_point hard, bool nap = false) {
    int done = 0;
    for (unsigned spins = 0;; ++spins) {
      check(MPI_Testall(p.n, p.req, &done, MPI_STATUSES_IGNORE), "MPI_Testall");
      if (done) {
        p.n = 0;
        return true;
      }
      if ((spins & 63) == 63 && Clock::now() >= hard) return false;  // a clock read costs 5% of a round trip
      if (nap && spins > 256) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  // A round trip's wait: the same, one request at a time in the order posted (the ping's send,
  // done at once for a small message, then the pong's receive). MPI_Test on one request is
  // cheaper per poll than MPI_Testall on two, which is the round trip's own cost here (3-5% of
  // an 8 B shared-memory round trip). A completed request is null, so abandon() skips it.
  bool wait_in_order(Pending& p, Clock::time_point hard) {
    unsigned spins = 0;
    for (int i = 0; i < p.n; ++i) {
      for (int done = 0;; ++spins) {
        check(MPI_Test(&p.req[i], &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (done) break;
        if ((spins & 63) == 63 && Clock::now() >= hard) return false;
      }
    }
    p.n = 0;
    return true;
  }

  // A bandwidth window that timed out: its data still in flight would cross the fabric during
  // the next phases (on a rate-limited port a ping then queues behind up to 64 MiB: fake
  // hosts saw healthy pairs 3-8x slow, and 0.19 s pings, in the turns after one), so it is
  // let finish, napping, up to `until`. The sender first cancels the acknowledgement the
  // peer will not send (a receive already matched completes anyway). Whatever is still
  // pending at `until` is abandoned. The measurement stays "did not complete" either way.
  void drain(Pending& p, Clock::time_point until, bool cancel_receives) {
    if (cancel_receives)
      for (int i = 0; i < p.n; ++i)
        if (p.recv[i] && p.req[i] != MPI_REQUEST_NULL) {
          MPI_Cancel(&p.req[i]);
          p.recv[i] = false;  // cancelled once: Open MPI's ob1 crashes on a second MPI_Cancel
        }
    if (!wait_all(p, until, true)) abandon(p);
  }

  // The two ends of a measurement meet before its clock starts: the initiator sends a hello and
  // waits for the answer, the other end waits for the hello and answers. Returns when the
  // clock may start, or nullopt at `until` (whatever is pending abandoned). Why: the phase's
  // barrier releases ranks at different moments, and where a host that loses packets took
  // part, some learn of its end a retransmission later (200 ms and more over TCP). A window
  // whose clock started on arrival then timed the lag, and on fake hosts a lossy host failed
  // the latency of pairs it was not in (16 ranks: two CI runs of two, the pair's first pass
  // and its re-test both starved, 0 round trips). Only the meeting waits for the lag; the
  // measurement's limit is the pair's own.
  std::optional<Clock::time_point> meet(int peer, bool initiator, int slot, Clock::time_point until) {
    Pending p;
    MPI_Request r;
    hello_out = slot;
    auto waited = [&] {
      if (wait_in_order(p, until)) return true;
      abandon(p);
      return false;
    };
    check(MPI_Irecv(&hello_in, 8, MPI_BYTE, peer, tag(slot, kHello), comm, &r), "MPI_Irecv");
    p.add(r, true);
    if (!initiator && !waited()) return std::nullopt;  // the answer goes after the hello
    check(MPI_Isend(&hello_out, 8, MPI_BYTE, peer, tag(slot, kHello), comm, &r), "MPI_Isend");
    p.add(r, false);
    if (!waited()) return std::nullopt;
    return Clock::now();
  }

  void abandon(Pending& p) {
    for (int i = 0; i < p.n; ++i) {
      if (p.req[i] == MPI_REQUEST_NULL) continue;
      if (p.recv[i]) MPI_Cancel(&p.req[i]);
      MPI_Request_free(&p.req[i]);
    }
    p.n = 0;
    ++*abandoned;
  }
};

PairExchange::PairExchange(void* native_comm, std::size_t max_size) : impl_(std::make_unique<Impl>()) {
  if (!native_comm) throw std::invalid_argument("p2p: no MPI communicator");
  check(MPI_Comm_dup(*static_cast<MPI_Comm*>(native_comm), &impl_->comm), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(impl_->comm, MPI_ERRORS_RETURN);
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(impl_->comm, MPI_TAG_UB, &ub, &flag);
  impl_->tag_slots = std::max(1, (flag && ub ? *ub : 32767) / kKinds - 1);
  impl_->abandoned = &abandoned_;
  const CoreShare cs = ranks_share_cores(impl_->comm);
  shares_cores_ = cs.shared;
  // A round trip needs both ranks on a core at once: where ranks share cores, as many pairs
  // may spin together as the kernel has pairs of CPUs; everyone uses the tightest kernel's.
  int lanes = cs.shared ? std::max(1, cs.cpus / 2) : std::numeric_limits<int>::max();
  check(MPI_Allreduce(MPI_IN_PLACE, &lanes, 1, MPI_INT, MPI_MIN, impl_->comm), "MPI_Allreduce");
  spin_lanes_ = lanes;
  impl_->sbuf_size = std::max<std::size_t>(max_size, 8);
  impl_->sbuf.reset(new char[impl_->sbuf_size]);
  for (std::size_t i = 0; i < impl_->sbuf_size; ++i) impl_->sbuf[i] = static_cast<char>(i * 131 + 7);
  // The largest window any size up to max_size receives, allocated and touched now, before any
  // clock: made on first use, a receiver spent its peer's whole limit clearing pages (fake
  // hosts: 8 ranks each touching 64 MiB at once on two cores, over a second; the first
  // bandwidth of every pair inside a host then "did not complete").
  const std::size_t largest = std::max<std::size_t>(max_size, 8);
  impl_->recv_buffer(std::min(largest * kMaxWindow, std::max(kWindowBytes, largest)));
}

PairExchange::~PairExchange() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  // Freeing is deferred by MPI until pending operations finish, which is what we want.
  if (!finalized && impl_->comm != MPI_COMM_NULL) MPI_Comm_free(&impl_->comm);
  // MPI may still write into (or read from) the buffers of abandoned operations: leak them.
  if (abandoned_ > 0) (void)impl_.release();
}

int PairExchange::window_for(std::size_t size) {
  if (size == 0) return kMaxWindow;
  return static_cast<int>(std::clamp<std::size_t>(kWindowBytes / size, 1, kMaxWindow));
}

LatencyResult PairExchange::latency(int peer, bool initiator, std::size_t size, int slot, const ExchangeLimits& lim) {
  LatencyResult res;
  auto& m = *impl_;
  size = std::max<std::size_t>(size, 8);  // the sequence number travels in the message
  const int n = static_cast<int>(size);
  char* rbuf = m.recv_buffer(size);
  char* sbuf = m.sbuf.get();
  const auto met = m.meet(peer, initiator, slot, after(Clock::now(), lim.arrive_s));
  if (!met) {
    res.why = "peer did not arrive within " + std::to_string(lim.arrive_s) + " s (no round trip started)";
    return res;
  }
  const auto hard = after(*met, lim.limit_s);
  Pending p;
  if (initiator) {
    // One round trip: the ping carries its sequence number, the pong echoes it. The ping goes
    // first and the pong's receive is posted while it travels: posted before, its cost sat
    // between the clock and the ping's departure, and the probe's 8 B median read 5% above a
    // blocking MPI_Send/MPI_Recv loop's in the same process (40 runs each, paired: 0.949 after).
    // A pong that arrives before its receive is posted waits in MPI's unexpected queue.
    std::int64_t i = 0;
    auto round_trip = [&]() -> bool {
      std::memcpy(sbuf, &i, 8);
      MPI_Request r;
      check(MPI_Isend(sbuf, n, MPI_BYTE, peer, m.tag(slot, kPing), m.comm, &r), "MPI_Isend");
      p.add(r, false);
      check(MPI_Irecv(rbuf, n, MPI_BYTE, peer, m.tag(slot, kPong), m.comm, &r), "MPI_Irecv");
      p.add(r, true);
      if (!m.wait_in_order(p, hard)) {
        m.abandon(p);
        res.why = "no reply within " + std::to_string(lim.limit_s) + " s after " + std::to_string(i) + " round trips";
        return false;
      }
      std::int64_t echo;
      std::memcpy(&echo, rbuf, 8);
      if (echo != i) {
        res.why = "data check: round trip " + std::to_string(i) + " came back as " + std::to_string(echo);
        return false;  // nothing outstanding; the peer waits for a stop that does not come and times out
      }
      ++i;
      return true;
    };
    // Warm-up, each round trip timed: the fastest sizes the batches.
    double fastest = 0;
    auto last = Clock::now();
    for (int k = 0; k < lim.warmup; ++k) {
      if (!round_trip()) return res;
      const auto t = Clock::now();
      fastest = k == 0 ? seconds(t - last) : std::min(fastest, seconds(t - last));
      last = t;
    }
    // Cycles of one batch (B round trips between two clock reads: the median) and B singles
    // (each between two: the tail), until target_s or max_iters. Without a warm-up, or where a
    // round trip is slower than kBatchSpan_s, B is 1 and every round trip is a single.
    auto& out = res.one_way_s;
    int batch = 1;
    while (batch < kMaxBatch && fastest > 0 && batch * fastest < kBatchSpan_s) batch *= 2;
    out.batch = batch;
    out.reserve(static_cast<std::size_t>(std::min(lim.max_iters, 1 << 16)));
    const auto measuring = last;
    std::int64_t measured = 0;
    auto more = [&] {
      const double t = seconds(last - measuring);
      if (t < lim.target_s) return measured < lim.max_iters;
      return measured < lim.min_round_trips && measured < lim.max_iters && t < lim.stretch_s;
    };
    while (more()) {
      if (batch > 1) {
        for (int k = 0; k < batch; ++k)
          if (!round_trip()) return res;
        const auto t = Clock::now();
        out.batch_means.push_back(seconds(t - last) / batch / 2);
        last = t;
      }
      for (int k = 0; k < batch; ++k) {
        if (!round_trip()) return res;
        const auto t = Clock::now();
        out.push_back(seconds(t - last) / 2);
        last = t;
      }
      measured += batch > 1 ? 2 * batch : 1;
    }
    const std::int64_t stop = -1;
    std::memcpy(sbuf, &stop, 8);
    MPI_Request r;
    check(MPI_Isend(sbuf, n, MPI_BYTE, peer, m.tag(slot, kPing), m.comm, &r), "MPI_Isend");
    p.add(r, false);
    if (!m.wait_all(p, hard)) m.abandon(p);  // measured fine; the stop is late: the peer times out
    res.completed = true;
    return res;
  }
  for (;;) {
    MPI_Request r;
    check(MPI_Irecv(rbuf, n, MPI_BYTE, peer, m.tag(slot, kPing), m.comm, &r), "MPI_Irecv");
    p.add(r, true);
    if (!m.wait_in_order(p, hard)) {
      m.abandon(p);
      res.why = "no ping or stop within " + std::to_string(lim.limit_s) + " s";
      return res;
    }
    std::int64_t seq;
    std::memcpy(&seq, rbuf, 8);
    if (seq < 0) break;
    std::memcpy(sbuf, &seq, 8);
    check(MPI_Isend(sbuf, n, MPI_BYTE, peer, m.tag(slot, kPong), m.comm, &r), "MPI_Isend");
    p.add(r, false);
    if (!m.wait_in_order(p, hard)) {
      m.abandon(p);
      res.why = "reply not delivered within " + std::to_string(lim.limit_s) + " s";
      return res;
    }
  }
  res.completed = true;
  return res;
}

BandwidthResult PairExchange::bandwidth(int peer, bool sender, std::size_t size, int slot, const ExchangeLimits& lim) {
  BandwidthResult res;
  auto& m = *impl_;
  size = std::max<std::size_t>(size, 8);
  const int n = static_cast<int>(size), w = window_for(size);
  char* rbuf = m.recv_buffer(size * static_cast<std::size_t>(w));
  char* sbuf = m.sbuf.get();
  const int warm = std::max(1, lim.warmup / 10), max_windows = std::max(3, lim.max_iters / 100);
  const auto met = m.meet(peer, sender, slot, after(Clock::now(), lim.arrive_s));
  if (!met) {
    res.why = "peer did not arrive within " + std::to_string(lim.arrive_s) + " s (no window sent)";
    return res;
  }
  const auto hard = after(*met, lim.limit_s);
  Pending p;
  std::int64_t& ctrl = m.ctrl;
  std::int64_t& ack = m.ack;
  const bool nap = lim.polling == Polling::nap || (lim.polling == Polling::automatic && shares_cores_);
  if (sender) {
    for (std::int64_t i = 0;; ++i) {
      if (i >= warm && (res.seconds >= lim.target_s || res.windows >= max_windows)) break;
      ctrl = i;
      std::memcpy(sbuf, &i, 8);  // the receiver checks the last message of the window
      const auto t0 = Clock::now();
      MPI_Request r;
      check(MPI_Irecv(&ack, 8, MPI_BYTE, peer, m.tag(slot, kAck), m.comm, &r), "MPI_Irecv");
      p.add(r, true);
      check(MPI_Isend(&ctrl, 8, MPI_BYTE, peer, m.tag(slot, kCtrl), m.comm, &r), "MPI_Isend");
      p.add(r, false);
      for (int k = 0; k < w; ++k) {
        check(MPI_Isend(sbuf, n, MPI_BYTE, peer, m.tag(slot, kData), m.comm, &r), "MPI_Isend");
        p.add(r, false);
      }
      if (!m.wait_all(p, hard, nap)) {
        m.drain(p, after(hard, lim.limit_s), true);
        res.why = "window " + std::to_string(i) + " of " + std::to_string(w) + " x " + std::to_string(size) +
                  " B not acknowledged within " + std::to_string(lim.limit_s) + " s";
        return res;
      }
      const auto t1 = Clock::now();
      if (ack != i) {
        res.why = "data check: window " + std::to_string(i) + " acknowledged as " + std::to_string(ack);
        return res;
      }
      if (i >= warm) res.bytes += double(size) * w, res.seconds += seconds(t1 - t0), ++res.windows;
    }
    ctrl = -1;
    MPI_Request r;
    check(MPI_Isend(&ctrl, 8, MPI_BYTE, peer, m.tag(slot, kCtrl), m.comm, &r), "MPI_Isend");
    p.add(r, false);
    if (!m.wait_all(p, hard)) m.abandon(p);
    res.completed = res.windows > 0;
    if (!res.completed) res.why = "no window measured";
    return res;
  }
  for (;;) {
    // Post the data receives with the control one, so large messages find them waiting.
    MPI_Request r;
    check(MPI_Irecv(&ctrl, 8, MPI_BYTE, peer, m.tag(slot, kCtrl), m.comm, &r), "MPI_Irecv");
    Pending c;
    c.add(r, true);
    for (int k = 0; k < w; ++k) {
      check(MPI_Irecv(rbuf + size * k, n, MPI_BYTE, peer, m.tag(slot, kData), m.comm, &r), "MPI_Irecv");
      p.add(r, true);
    }
    if (!m.wait_all(c, hard)) {
      m.abandon(c);
      m.abandon(p), --abandoned_;
      res.why = "no window or stop within " + std::to_string(lim.limit_s) + " s";
      return res;
    }
    if (ctrl < 0) {
      // Unmatched receives cancel cleanly; wait for the cancellation so the buffers are free.
      for (int i = 0; i < p.n; ++i) MPI_Cancel(&p.req[i]);
      MPI_Waitall(p.n, p.req, MPI_STATUSES_IGNORE);
      p.n = 0;
      break;
    }
    if (!m.wait_all(p, hard, nap)) {
      m.drain(p, after(hard, lim.limit_s), false);
      res.why = "window " + std::to_string(ctrl) + " not received within " + std::to_string(lim.limit_s) + " s";
      return res;
    }
    std::int64_t seq;
    std::memcpy(&seq, rbuf + size * (w - 1), 8);
    if (seq != ctrl) {
      res.why = "data check: window " + std::to_string(ctrl) + " carried " + std::to_string(seq);
      return res;
    }
    ack = ctrl;
    check(MPI_Isend(&ack, 8, MPI_BYTE, peer, m.tag(slot, kAck), m.comm, &r), "MPI_Isend");
    p.add(r, false);
    if (!m.wait_all(p, hard)) {
      m.abandon(p);
      res.why = "acknowledgement not delivered within " + std::to_string(lim.limit_s) + " s";
      return res;
    }
  }
  res.completed = true;
  return res;
}

bool PairExchange::barrier_politely(Clock::time_point deadline, double* stalled_s) {
  MPI_Request r;
  check(MPI_Ibarrier(impl_->comm, &r), "MPI_Ibarrier");
  auto nap = std::chrono::microseconds(20);
  if (stalled_s) *stalled_s = 0;
  for (;;) {
    int done = 0;
    const auto before = Clock::now();
    check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return true;
    // The barrier cannot be cancelled: leave it pending (the probe fails and the harness's
    // watchdog takes over if a rank never comes).
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(nap);
    if (stalled_s)
      *stalled_s = std::max(*stalled_s, std::chrono::duration<double>(Clock::now() - before - nap).count());
    nap = std::min(nap * 2, std::chrono::microseconds(2000));
  }
}

}  // namespace ga::p2p
