// The NCCL backend of the collective sweep harness (probes/harness/sweep.hpp): device buffers
// on this rank's GPU, float32 sum collectives on one stream, alltoall as grouped
// ncclSend/ncclRecv (as nccl-tests does), sendrecv as a ring. Fill and check go through host
// memory with the shared data pattern (sweep_pattern.hpp), so "wrong" means the same thing as
// in mpi-coll.
//
// A hang inside NCCL (a rank that never enters the collective, a peer that is stuck) would
// hold this rank inside launch or synchronize past the probe's deadline, and the watchdog
// could then not tell the stuck rank from the ones waiting for it. So every operation runs
// under a guard: one still in flight at `abort_at` has its communicator aborted
// (ncclCommAbort, from the guard's thread, as NCCL allows and PyTorch's NCCL watchdog does),
// which makes the waiting call return; the backend then throws NcclHang and never touches the
// communicator again. A rank stuck outside NCCL stays in the probe, and the watchdog names it.
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>

#include "probes/vendor/cuda_driver.hpp"
#include "probes/vendor/nccl_api.hpp"
#include "probes/harness/sweep.hpp"

namespace ga::gpu {

// Thrown by launch/synchronize when the guard aborted the communicator.
struct NcclHang : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The device context must be current on the calling thread for the backend's whole life.
// `comm` is aborted by the guard when an operation is still running at `abort_at`.
std::unique_ptr<sweep::Backend> make_nccl_backend(const CudaDriver& d, Nccl::Comm& comm,
                                                  std::optional<sweep::Corruption> corrupt,
                                                  std::chrono::steady_clock::time_point abort_at =
                                                      std::chrono::steady_clock::time_point::max());
// Whether this backend aborted its communicator (then it must not be used again).
bool nccl_backend_aborted(const sweep::Backend& b);

}  // namespace ga::gpu
