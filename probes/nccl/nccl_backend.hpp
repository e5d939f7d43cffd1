// The NCCL backend of the collective sweep harness (probes/harness/sweep.hpp): device buffers
// on this rank's GPU, float32 sum collectives on one stream, alltoall as grouped
// ncclSend/ncclRecv (as nccl-tests does), sendrecv as a ring. Fill and check go through host
// memory with the shared data pattern (sweep_pattern.hpp), so "wrong" means the same thing as
// in mpi-coll.
#pragma once
#include <memory>
#include <optional>

#include "probes/vendor/cuda_driver.hpp"
#include "probes/vendor/nccl_api.hpp"
#include "probes/harness/sweep.hpp"

namespace ga::gpu {

// The device context must be current on the calling thread for the backend's whole life.
std::unique_ptr<sweep::Backend> make_nccl_backend(const CudaDriver& d, const Nccl::Comm& comm,
                                                  std::optional<sweep::Corruption> corrupt);

}  // namespace ga::gpu
