#include "probes/nccl/nccl_backend.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <string_view>
#include <thread>
#include <vector>

#include "probes/harness/sweep_pattern.hpp"

namespace ga::gpu {
namespace {

using sweep::Collective;
using sweep::Line;
using Clock = std::chrono::steady_clock;

// Aborts the communicator when an operation is still in flight at `abort_at`. The thread only
// waits on a condition variable; it touches NCCL once, to abort.
class AbortGuard {
 public:
  AbortGuard(Nccl::Comm& c, Clock::time_point abort_at) : c_(c), abort_at_(abort_at) {
    if (abort_at_ != Clock::time_point::max()) thread_ = std::thread([this] { loop(); });
  }
  ~AbortGuard() {
    {
      std::lock_guard lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  AbortGuard(const AbortGuard&) = delete;
  AbortGuard& operator=(const AbortGuard&) = delete;

  // Before each NCCL call: throws once aborted (the communicator is gone).
  void begin(std::string_view what) {
    std::lock_guard lk(mu_);
    if (aborted_) throw NcclHang(hang_text_);
    if (!in_flight_) since_ = Clock::now();
    in_flight_ = true;
    what_ = what;
    cv_.notify_all();
  }
  void end() {
    std::lock_guard lk(mu_);
    in_flight_ = false;
  }
  // After a failed or returned call: the guard's abort explains a failure better than NCCL's code.
  void rethrow_if_aborted() {
    std::lock_guard lk(mu_);
    if (aborted_) throw NcclHang(hang_text_);
  }
  bool aborted() const {
    std::lock_guard lk(mu_);
    return aborted_;
  }

 private:
  void loop() {
    std::unique_lock lk(mu_);
    while (!stop_) {
      if (!in_flight_) {
        cv_.wait(lk);
        continue;
      }
      if (Clock::now() < abort_at_) {
        cv_.wait_until(lk, abort_at_);
        continue;
      }
      std::ostringstream why;
      why.precision(1);
      why << std::fixed << what_ << " still running " << std::chrono::duration<double>(Clock::now() - since_).count()
          << " s after it began, at the probe's abort point: a rank never entered it or a peer is stuck; "
             "communicator aborted (ncclCommAbort)";
      hang_text_ = why.str();
      aborted_ = true;
      c_.abort();  // under mu_: begin() sees aborted_ before any later call could read the comm
      return;
    }
  }

  Nccl::Comm& c_;
  const Clock::time_point abort_at_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false, in_flight_ = false, aborted_ = false;
  std::string what_;
  std::string hang_text_;
  Clock::time_point since_;
  std::thread thread_;
};

class NcclBackend final : public sweep::Backend {
 public:
  NcclBackend(const CudaDriver& d, Nccl::Comm& c, std::optional<sweep::Corruption> corrupt, Clock::time_point abort_at)
      : d_(d), c_(c), stream_(d), corrupt_(corrupt), guard_(c, abort_at) {}

  bool aborted() const { return guard_.aborted(); }

  std::string dtype() const override { return "float"; }
  std::size_t type_size() const override { return sizeof(float); }

  // Grouped send/recv on one buffer would read what a peer is writing: NCCL has no in-place
  // alltoall or sendrecv (nccl-tests runs them, on its own risk); they are left out.
  bool supports(Collective c, bool in_place) const override {
    return !(in_place && (c == Collective::alltoall || c == Collective::sendrecv));
  }

  void prepare(const Line& l) override {
    grow(send_, send_bytes_, l.counts.send * sizeof(float));
    grow(recv_, recv_bytes_, std::max(l.counts.send, l.counts.recv) * sizeof(float));
    host_.resize(std::max({host_.size(), l.counts.send, l.counts.recv}));
  }

  // In place the input sits where NCCL reads it: all_gather its own block of the output,
  // reduce_scatter the whole buffer, broadcast the root's buffer, the rest the whole buffer.
  void fill(const Line& l) override {
    const std::size_t out_n = std::max(l.counts.send, l.counts.recv);
    std::fill(host_.begin(), host_.begin() + static_cast<std::ptrdiff_t>(out_n), sweep::poison_value);
    if (l.in_place) {
      if (l.coll == Collective::all_gather) {
        const std::size_t off = static_cast<std::size_t>(l.rank) * l.counts.send;
        for (std::size_t i = 0; i < l.counts.send; ++i) host_[off + i] = sweep::input_value(l.rank, i);
      } else if (l.coll != Collective::broadcast || l.rank == l.root) {
        for (std::size_t i = 0; i < l.counts.send; ++i) host_[i] = sweep::input_value(l.rank, i);
      }
      upload(recv_->ptr(), out_n);
      return;
    }
    upload(recv_->ptr(), out_n);  // poisoned output
    for (std::size_t i = 0; i < l.counts.send; ++i) host_[i] = sweep::input_value(l.rank, i);
    upload(send_->ptr(), l.counts.send);
  }

  // The operation is in flight from its launch until synchronize returns.
  void launch(const Line& l) override {
    guard_.begin(sweep::to_string(l.coll));
    try {
      launch_unguarded(l);
    } catch (const std::exception&) {
      guard_.rethrow_if_aborted();
      throw;
    }
    guard_.rethrow_if_aborted();
  }

  void launch_unguarded(const Line& l) {
    const std::size_t n = l.counts.count;
    float* s = as_float(send_->ptr());
    float* r = as_float(recv_->ptr());
    const bool ip = l.in_place;
    void* st = stream_.handle();
    const std::size_t me = static_cast<std::size_t>(l.rank);
    switch (l.coll) {
      case Collective::all_reduce: c_.all_reduce(ip ? r : s, r, n, st); break;
      case Collective::all_gather: c_.all_gather(ip ? r + me * n : s, r, n, st); break;
      case Collective::reduce_scatter: c_.reduce_scatter(ip ? r : s, ip ? r + me * n : r, n, st); break;
      case Collective::broadcast: c_.broadcast(ip ? r : s, r, n, l.root, st); break;
      case Collective::reduce: c_.reduce(ip ? r : s, r, n, l.root, st); break;
      case Collective::alltoall:
        c_.group_start();
        for (int p = 0; p < l.nranks; ++p) {
          c_.send(s + static_cast<std::size_t>(p) * n, n, p, st);
          c_.recv(r + static_cast<std::size_t>(p) * n, n, p, st);
        }
        c_.group_end();
        break;
      case Collective::sendrecv: {
        const int right = (l.rank + 1) % l.nranks, left = (l.rank - 1 + l.nranks) % l.nranks;
        c_.group_start();
        c_.send(s, n, right, st);
        c_.recv(r, n, left, st);
        c_.group_end();
        break;
      }
    }
  }

  void synchronize() override {
    guard_.rethrow_if_aborted();
    stream_.synchronize();
    guard_.rethrow_if_aborted();
    std::string e = c_.async_error();
    guard_.end();
    if (!e.empty()) throw NcclError("NCCL asynchronous error: " + e);
  }

  std::uint64_t check(const Line& l) override {
    if (!sweep::has_output(l)) return 0;
    // In-place reduce_scatter leaves the rank's block where it was in the input.
    const std::size_t off = (l.in_place && l.coll == Collective::reduce_scatter) ? static_cast<std::size_t>(l.rank) * l.counts.recv : 0;
    d_.memcpy_dtoh(host_.data(), recv_->ptr() + off * sizeof(float), l.counts.recv * sizeof(float), stream_.handle());
    stream_.synchronize();
    if (corrupt_ && corrupt_->applies(l) && l.counts.recv > 0) host_[0] += 1.0f;  // test hook
    std::uint64_t wrong = 0;
    for (std::size_t i = 0; i < l.counts.recv; ++i)
      if (host_[i] != sweep::expected_value(l, i)) ++wrong;
    return wrong;
  }

 private:
  static float* as_float(CudaDriver::Ptr p) { return reinterpret_cast<float*>(static_cast<std::uintptr_t>(p)); }

  void grow(std::unique_ptr<DeviceBuffer>& b, std::size_t& have, std::size_t need) {
    need = std::max<std::size_t>(need, 256);
    if (b && have >= need) return;
    b.reset();  // free first: the largest lines need most of the GPU
    b = std::make_unique<DeviceBuffer>(d_, need);
    have = need;
  }

  void upload(CudaDriver::Ptr dst, std::size_t n) {
    d_.memcpy_htod(dst, host_.data(), n * sizeof(float), stream_.handle());
    stream_.synchronize();
  }

  const CudaDriver& d_;
  const Nccl::Comm& c_;
  Stream stream_;
  std::optional<sweep::Corruption> corrupt_;
  AbortGuard guard_;
  std::unique_ptr<DeviceBuffer> send_, recv_;
  std::size_t send_bytes_ = 0, recv_bytes_ = 0;
  std::vector<float> host_;
};

}  // namespace

std::unique_ptr<sweep::Backend> make_nccl_backend(const CudaDriver& d, Nccl::Comm& comm,
                                                  std::optional<sweep::Corruption> corrupt,
                                                  Clock::time_point abort_at) {
  return std::make_unique<NcclBackend>(d, comm, corrupt, abort_at);
}

bool nccl_backend_aborted(const sweep::Backend& b) {
  const auto* nb = dynamic_cast<const NcclBackend*>(&b);
  return nb && nb->aborted();
}

}  // namespace ga::gpu
