#include "probes/harness/comm_split.hpp"

#include <stdexcept>

#ifdef GA_WITH_MPI
#include <mpi.h>

#include "probes/harness/mpi_comm.hpp"
#endif

namespace ga {

std::unique_ptr<Comm> split_comm(Comm& parent, int color, int key) {
  if (!parent.native()) {
    if (parent.size() != 1) throw std::logic_error("split_comm: a multi-rank communicator without MPI");
    return color < 0 ? nullptr : make_self_comm();
  }
#ifdef GA_WITH_MPI
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Comm_split(*static_cast<MPI_Comm*>(parent.native()), color < 0 ? MPI_UNDEFINED : color, key, &c);
  if (c == MPI_COMM_NULL) return nullptr;
  auto out = std::make_unique<MpiComm>(c);  // keeps its own duplicate
  MPI_Comm_free(&c);
  return out;
#else
  throw std::logic_error("split_comm: an MPI communicator in a build without MPI");
#endif
}

}  // namespace ga
