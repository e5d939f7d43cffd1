// Thin adapter over NCCL (the cluster's libnccl.so.2, or one named by `nccl_library` /
// GPUACCEPT_NCCL_LIBRARY), loaded with dlopen. Only calls NCCL 2.12 already had are needed
// (grouped ncclSend/ncclRecv for alltoall, as nccl-tests does); ncclCommInitRankScalable
// (2.23+) is used where it is exported.
#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "probes/vendor/dynlib.hpp"

namespace ga::gpu {

struct NcclError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using NcclUniqueId = std::array<char, 128>;  // ncclUniqueId: NCCL_UNIQUE_ID_BYTES = 128

class Nccl {
 public:
  explicit Nccl(const std::vector<std::string>& candidates);
  bool loaded() const { return lib_.loaded() && complete_; }
  std::string error() const;
  std::string path() const { return lib_.real_path(); }
  int version_code() const;             // 22803 = 2.28.3
  std::string version() const;          // "2.28.3"
  NcclUniqueId unique_id() const;
  // ncclCommInitRankScalable (NCCL 2.23+): a communicator bootstrapped from several unique ids.
  bool has_scalable_init() const;

  // RAII communicator. Construction is ncclCommInitRank (collective over the nranks).
  class Comm {
   public:
    Comm(const Nccl& n, int nranks, const NcclUniqueId& id, int rank);
    // Several ids (the same on every rank, in the same order): ncclCommInitRankScalable, or
    // with one id, or where NCCL lacks it, ncclCommInitRank with the first; init_call() says which.
    Comm(const Nccl& n, int nranks, const std::vector<NcclUniqueId>& ids, int rank);
    const char* init_call() const { return init_call_; }
    ~Comm();
    Comm(const Comm&) = delete;
    Comm& operator=(const Comm&) = delete;
    // float sum collectives on `stream`, as nccl.h declares them; counts in elements.
    void all_reduce(const void* s, void* r, std::size_t count, void* stream) const;
    // uint64 sum: wrapping, so exact and independent of NCCL's reduction order.
    void all_reduce_sum_u64(const void* s, void* r, std::size_t count, void* stream) const;
    void all_gather(const void* s, void* r, std::size_t send_count, void* stream) const;
    void reduce_scatter(const void* s, void* r, std::size_t recv_count, void* stream) const;
    void broadcast(const void* s, void* r, std::size_t count, int root, void* stream) const;
    void reduce(const void* s, void* r, std::size_t count, int root, void* stream) const;
    void send(const void* s, std::size_t count, int peer, void* stream) const;
    void recv(void* r, std::size_t count, int peer, void* stream) const;
    void group_start() const;
    void group_end() const;
    // Whether the communicator hit an asynchronous error (a peer died, a network error).
    std::string async_error() const;
    // Frees without waiting for peers (after an error), instead of ncclCommDestroy.
    void abort() noexcept;

   private:
    void check(int rc, const char* call) const;
    void* comm() const { return c_.load(std::memory_order_acquire); }
    const Nccl& n_;
    // Atomic: the nccl probe's guard thread aborts a hung communicator (abort()) while the
    // probe's thread may be inside a call on it; exchange() makes one of two aborts the one.
    std::atomic<void*> c_{nullptr};
    const char* init_call_ = "ncclCommInitRank";
  };

 private:
  friend class Comm;
  std::string error_string(int rc) const;
  DynLib lib_;
  bool complete_ = false;
  struct Table;
  std::shared_ptr<Table> t_;
};

std::string nccl_version_text(int code);

}  // namespace ga::gpu
