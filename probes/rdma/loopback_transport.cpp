// The fake transport: the same calls as verbs, carried by the communicator. It exercises
// everything around the data path (address exchange, schedule, roles, data check, timing,
// samples) where no RDMA device exists. Its numbers measure the communicator, and its
// samples say transport=loopback so that no criterion mistakes them for a port's speed.
#include <chrono>
#include <cstring>
#include <string>

#include "probes/comm.hpp"
#include "probes/rdma/transport.hpp"

namespace ga::rdma {
namespace {

constexpr int kTagWrite = 7301;
constexpr int kTagPing = 7302;

class LoopbackEndpoint final : public Endpoint {
 public:
  LoopbackEndpoint(Comm& comm, std::size_t bytes) : comm_(comm), send_(bytes), recv_(bytes) {}

  std::string address() const override { return "loopback rank=" + std::to_string(comm_.rank()); }

  void connect(const std::string& remote) override {
    const std::string key = "loopback rank=";
    if (remote.rfind(key, 0) != 0) throw TransportError("loopback: not a loopback address: \"" + remote + "\"");
    try {
      peer_ = std::stoi(remote.substr(key.size()));
    } catch (const std::exception&) {
      throw TransportError("loopback: bad rank in address \"" + remote + "\"");
    }
    if (peer_ < 0 || peer_ >= comm_.size() || peer_ == comm_.rank())
      throw TransportError("loopback: address names rank " + std::to_string(peer_) + ", not a peer");
  }

  void write(std::size_t bytes, int count, double) override {
    check(bytes);
    for (int i = 0; i < count; ++i) comm_.send(send_.data(), bytes, peer_, kTagWrite);
  }
  void await_writes(std::size_t bytes, int count, double) override {
    check(bytes);
    for (int i = 0; i < count; ++i) comm_.recv(recv_.data(), bytes, peer_, kTagWrite);
  }
  std::vector<double> ping(std::size_t bytes, int count, double) override {
    check(bytes);
    std::vector<double> rtt;
    rtt.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      const double t0 = comm_.wtime();
      comm_.send(send_.data(), bytes, peer_, kTagPing);
      comm_.recv(recv_.data(), bytes, peer_, kTagPing);
      rtt.push_back(comm_.wtime() - t0);
    }
    return rtt;
  }
  void pong(std::size_t bytes, int count, double) override {
    check(bytes);
    for (int i = 0; i < count; ++i) {
      comm_.recv(recv_.data(), bytes, peer_, kTagPing);
      comm_.send(send_.data(), bytes, peer_, kTagPing);
    }
  }
  std::span<std::byte> send_buffer() override { return send_; }
  std::span<const std::byte> recv_buffer() override { return recv_; }

 private:
  void check(std::size_t bytes) const {
    if (peer_ < 0) throw TransportError("loopback: endpoint used before connect");
    if (bytes > send_.size())
      throw TransportError("loopback: " + std::to_string(bytes) + " B do not fit the " + std::to_string(send_.size()) +
                           " B buffer");
  }
  Comm& comm_;
  std::vector<std::byte> send_, recv_;
  int peer_ = -1;
};

class LoopbackTransport final : public Transport {
 public:
  explicit LoopbackTransport(Comm& c) : comm_(c) {}
  std::string name() const override { return "loopback"; }
  std::unique_ptr<Endpoint> open(const EndpointSpec& spec) override {
    if (spec.gpu_memory) throw TransportError("loopback: GPU memory is not supported by the fake transport");
    return std::make_unique<LoopbackEndpoint>(comm_, spec.buffer_bytes);
  }

 private:
  Comm& comm_;
};

}  // namespace

std::unique_ptr<Transport> make_loopback_transport(Comm& comm) { return std::make_unique<LoopbackTransport>(comm); }

}  // namespace ga::rdma
