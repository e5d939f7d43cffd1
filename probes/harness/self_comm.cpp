// One process, no MPI: unit tests, `gpuaccept` built without MPI, quick single-host checks.
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "probes/comm.hpp"

namespace ga {
namespace {

class SelfComm final : public Comm {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void barrier() override {}
  std::vector<std::string> gather(const std::string& mine, int) override { return {mine}; }
  std::vector<std::string> allgather(const std::string& mine) override { return {mine}; }
  std::string broadcast(const std::string& s, int) override { return s; }
  double allreduce_max(double v) override { return v; }
  double allreduce_min(double v) override { return v; }
  double allreduce_sum(double v) override { return v; }
  void send(const void*, std::size_t, int, int) override { no_peer(); }
  void recv(void*, std::size_t, int, int) override { no_peer(); }
  void sendrecv(const void* s, std::size_t sn, int dest, void* r, std::size_t rn, int src, int) override {
    if (dest != 0 || src != 0 || sn != rn) no_peer();
    std::memmove(r, s, sn);
  }
  double wtime() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  void* native() override { return nullptr; }

 private:
  [[noreturn]] static void no_peer() { throw std::logic_error("point-to-point with a peer in a one-process run"); }
};

}  // namespace

std::unique_ptr<Comm> make_self_comm() { return std::make_unique<SelfComm>(); }

}  // namespace ga
