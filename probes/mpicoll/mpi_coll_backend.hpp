// The MPI backend of the sweep harness: MPI collectives on host memory, float32, sum.
// Declared without mpi.h so the probe builds without MPI; the definition
// (mpi_coll_backend.cpp) is only built with MPI (probes/CMakeLists.txt drops mpi_*.cpp).
#pragma once
#include <memory>
#include <optional>

#include "probes/harness/sweep.hpp"

namespace ga::mpicoll {

// `native_comm` is Comm::native(): a pointer to the MPI_Comm the collectives run on.
std::unique_ptr<sweep::Backend> make_mpi_backend(void* native_comm, std::optional<sweep::Corruption> corrupt);

}  // namespace ga::mpicoll
