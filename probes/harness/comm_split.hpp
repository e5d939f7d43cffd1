// Sub-communicators for a probe's scopes (a host's ranks, a rail across hosts, every rank
// with a GPU): the nccl and soak probes both split this way. Through MPI when there is MPI;
// a one-process job splits into itself.
#pragma once
#include <memory>

#include "probes/comm.hpp"

namespace ga {

// Collective over `parent`. Ranks with the same color >= 0 form one communicator, ordered by
// key; a rank with color < 0 gets nullptr.
std::unique_ptr<Comm> split_comm(Comm& parent, int color, int key);

}  // namespace ga
