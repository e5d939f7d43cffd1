#include "probes/mpicoll/mpi_coll_backend.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

#include "probes/harness/sweep_pattern.hpp"

namespace ga::mpicoll {
namespace {

using sweep::Collective;
using sweep::Line;

void check_rc(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw std::runtime_error(std::string(call) + ": " + std::string(msg, static_cast<std::size_t>(len)));
}

int as_int(std::size_t n, const Line& l) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw std::length_error("MPI count " + std::to_string(n) + " of " + std::to_string(l.bytes) +
                            " B line exceeds INT_MAX");
  return static_cast<int>(n);
}

class MpiBackend final : public sweep::Backend {
 public:
  MpiBackend(MPI_Comm c, std::optional<sweep::Corruption> corrupt) : comm_(c), corrupt_(corrupt) {}

  std::string dtype() const override { return "float"; }
  std::size_t type_size() const override { return sizeof(float); }

  void prepare(const Line& l) override {
    as_int(l.counts.send, l);
    as_int(l.counts.recv, l);
    if (send_.size() < l.counts.send) send_.resize(l.counts.send);
    // In place, reduce_scatter's input (n blocks) lives in the output buffer too.
    const std::size_t out = std::max(l.counts.send, l.counts.recv);
    if (recv_.size() < out) recv_.resize(out);
  }

  // In place, MPI takes the input from the receive buffer, at the place each call defines:
  // all_gather its own block, the others the whole buffer.
  void fill(const Line& l) override {
    std::fill(recv_.begin(), recv_.begin() + static_cast<std::ptrdiff_t>(l.counts.recv), sweep::poison_value);
    if (!l.in_place) {
      for (std::size_t i = 0; i < l.counts.send; ++i) send_[i] = sweep::input_value(l.rank, i);
      return;
    }
    if (l.coll == Collective::all_gather) {
      const std::size_t off = static_cast<std::size_t>(l.rank) * l.counts.send;
      for (std::size_t i = 0; i < l.counts.send; ++i) recv_[off + i] = sweep::input_value(l.rank, i);
      return;
    }
    // A broadcast's input is the root's alone; everyone else must receive it.
    if (l.coll == Collective::broadcast && l.rank != l.root) return;
    for (std::size_t i = 0; i < l.counts.send; ++i) recv_[i] = sweep::input_value(l.rank, i);
  }

  void launch(const Line& l) override {
    const int cnt = as_int(l.counts.count, l);
    float* s = send_.data();
    float* r = recv_.data();
    const bool ip = l.in_place;
    switch (l.coll) {
      case Collective::all_reduce:
        check_rc(MPI_Allreduce(ip ? MPI_IN_PLACE : s, r, cnt, MPI_FLOAT, MPI_SUM, comm_), "MPI_Allreduce");
        break;
      case Collective::all_gather:
        check_rc(ip ? MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, cnt, MPI_FLOAT, comm_)
                    : MPI_Allgather(s, cnt, MPI_FLOAT, r, cnt, MPI_FLOAT, comm_),
                 "MPI_Allgather");
        break;
      case Collective::reduce_scatter:
        check_rc(MPI_Reduce_scatter_block(ip ? MPI_IN_PLACE : s, r, cnt, MPI_FLOAT, MPI_SUM, comm_),
                 "MPI_Reduce_scatter_block");
        break;
      case Collective::broadcast:
        // Out of place the root sends from its input buffer and the others receive into
        // their output buffer; in place every rank uses the output buffer.
        check_rc(MPI_Bcast(!ip && l.rank == l.root ? s : r, cnt, MPI_FLOAT, l.root, comm_), "MPI_Bcast");
        break;
      case Collective::reduce:
        if (ip)
          check_rc(MPI_Reduce(l.rank == l.root ? MPI_IN_PLACE : r, r, cnt, MPI_FLOAT, MPI_SUM, l.root, comm_),
                   "MPI_Reduce");
        else
          check_rc(MPI_Reduce(s, r, cnt, MPI_FLOAT, MPI_SUM, l.root, comm_), "MPI_Reduce");
        break;
      case Collective::alltoall:
        check_rc(ip ? MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, cnt, MPI_FLOAT, comm_)
                    : MPI_Alltoall(s, cnt, MPI_FLOAT, r, cnt, MPI_FLOAT, comm_),
                 "MPI_Alltoall");
        break;
      case Collective::sendrecv: {
        // A ring: everyone sends right and receives from the left, so every link carries
        // one message and the line's time is the slowest neighbour exchange.
        const int right = (l.rank + 1) % l.nranks, left = (l.rank - 1 + l.nranks) % l.nranks;
        if (ip)
          check_rc(MPI_Sendrecv_replace(r, cnt, MPI_FLOAT, right, 7, left, 7, comm_, MPI_STATUS_IGNORE),
                   "MPI_Sendrecv_replace");
        else
          check_rc(MPI_Sendrecv(s, cnt, MPI_FLOAT, right, 7, r, cnt, MPI_FLOAT, left, 7, comm_, MPI_STATUS_IGNORE),
                   "MPI_Sendrecv");
        break;
      }
    }
  }

  void synchronize() override {}  // MPI collectives on host memory are blocking

  std::uint64_t check(const Line& l) override {
    if (!sweep::has_output(l)) return 0;
    // The root's out-of-place broadcast output is its own input buffer.
    float* out = (l.coll == Collective::broadcast && !l.in_place && l.rank == l.root) ? send_.data() : recv_.data();
    if (corrupt_ && corrupt_->applies(l) && l.counts.recv > 0) out[0] += 1.0f;  // test hook
    std::uint64_t wrong = 0;
    for (std::size_t i = 0; i < l.counts.recv; ++i)
      if (out[i] != sweep::expected_value(l, i)) ++wrong;
    return wrong;
  }

 private:
  MPI_Comm comm_;
  std::optional<sweep::Corruption> corrupt_;
  std::vector<float> send_, recv_;
};

}  // namespace

std::unique_ptr<sweep::Backend> make_mpi_backend(void* native_comm, std::optional<sweep::Corruption> corrupt) {
  if (!native_comm) throw std::invalid_argument("mpi-coll: no MPI communicator");
  return std::make_unique<MpiBackend>(*static_cast<MPI_Comm*>(native_comm), corrupt);
}

}  // namespace ga::mpicoll
