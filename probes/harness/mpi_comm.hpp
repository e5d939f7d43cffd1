// MPI behind the Comm interface. The harness owns MPI_Init/Finalize (see MpiSession);
// probes only see Comm, or native() when they need MPI itself (p2p, mpi-coll).
#pragma once
#include <mpi.h>

#include <memory>

#include "probes/comm.hpp"

namespace ga {

// Owns a duplicate of a communicator (RAII: freed on destruction).
class MpiComm final : public Comm {
 public:
  explicit MpiComm(MPI_Comm parent);
  ~MpiComm() override;
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // Waits politely (test + 1 ms sleep): ranks waiting for others must not steal the cores
  // a measuring rank on the same host is using.
  void barrier() override;
  std::vector<std::string> gather(const std::string& mine, int root) override;
  std::vector<std::string> allgather(const std::string& mine) override;
  std::string broadcast(const std::string& s, int root) override;
  double allreduce_max(double v) override;
  double allreduce_min(double v) override;
  double allreduce_sum(double v) override;
  void send(const void* buf, std::size_t n, int dest, int tag) override;
  void recv(void* buf, std::size_t n, int src, int tag) override;
  void sendrecv(const void* sbuf, std::size_t sn, int dest, void* rbuf, std::size_t rn, int src, int tag) override;
  double wtime() const override { return MPI_Wtime(); }
  void* native() override { return &comm_; }
  MPI_Comm handle() const { return comm_; }

 private:
  void wait_politely(MPI_Request& req);
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
};

}  // namespace ga
