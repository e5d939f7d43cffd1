// The communicator probes and the harness talk through. An MPI implementation
// (mpi_comm.cpp) and a single-process one (for unit tests and non-MPI builds).
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace ga {

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void barrier() = 0;
  // Every rank's string, in rank order, on root (empty vector elsewhere).
  virtual std::vector<std::string> gather(const std::string& mine, int root) = 0;
  virtual std::vector<std::string> allgather(const std::string& mine) = 0;
  virtual std::string broadcast(const std::string& s, int root) = 0;
  virtual double allreduce_max(double v) = 0;
  virtual double allreduce_min(double v) = 0;
  virtual double allreduce_sum(double v) = 0;
  // Point-to-point bytes, for probes that pair ranks.
  virtual void send(const void* buf, std::size_t n, int dest, int tag) = 0;
  virtual void recv(void* buf, std::size_t n, int src, int tag) = 0;
  virtual void sendrecv(const void* sbuf, std::size_t sn, int dest, void* rbuf, std::size_t rn, int src,
                        int tag) = 0;
  virtual double wtime() const = 0;
  // The MPI_Comm behind it (as void*), or nullptr when there is no MPI.
  virtual void* native() = 0;
};

std::unique_ptr<Comm> make_self_comm();  // one process, no MPI

}  // namespace ga
