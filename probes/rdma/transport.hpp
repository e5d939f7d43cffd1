// The RDMA data path behind an interface, so that scheduling, timing, data checks and
// judging can be tested where there is no RDMA hardware (every machine we build on).
//   - verbs_transport.cpp: RC queue pairs through libibverbs (dlopen); the only file that
//     includes <infiniband/verbs.h>. NOT VALIDATED ON HARDWARE.
//   - loopback_transport.cpp: a fake that moves the same bytes through the communicator
//     (MPI in a run, anything in tests); its numbers are the communicator's, never a port's.
// An endpoint is one queue pair on one port plus one registered buffer. Its address is an
// opaque string exchanged over MPI; the roles (initiator/target) are set by the caller.
#pragma once
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "probes/devices/port_inventory.hpp"

namespace ga {
class Comm;
}

namespace ga::rdma {

// A data-path failure: the message names the step (create QP, modify to RTR, a completion
// with an error status, a timeout) so the pair's finding says what broke.
struct TransportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct EndpointSpec {
  PortInfo port;
  std::size_t buffer_bytes = 0;
  bool gpu_memory = false;             // GPUDirect: register GPU memory (verbs only)
  std::string gpu_pci_bus_id;          // for gpu_memory: the GPU nearest the port
};

class Endpoint {
 public:
  virtual ~Endpoint() = default;
  virtual std::string address() const = 0;
  virtual void connect(const std::string& remote_address) = 0;
  // Initiator: `count` writes of `bytes` from the local buffer into the peer's buffer (offset
  // 0); returns once all completed. The target calls await_writes with the same arguments.
  virtual void write(std::size_t bytes, int count, double timeout_s) = 0;
  virtual void await_writes(std::size_t bytes, int count, double timeout_s) = 0;
  // Ping-pong of `bytes`-sized writes: the initiator's round trips in seconds, one per
  // iteration; the peer calls pong with the same arguments.
  virtual std::vector<double> ping(std::size_t bytes, int count, double timeout_s) = 0;
  virtual void pong(std::size_t bytes, int count, double timeout_s) = 0;
  // The registered halves as host memory, for the data check (the caller fills the send
  // half, the peer checks its receive half); both empty for GPU memory.
  virtual std::span<std::byte> send_buffer() = 0;
  virtual std::span<const std::byte> recv_buffer() = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::string name() const = 0;       // "verbs" | "loopback"
  virtual std::unique_ptr<Endpoint> open(const EndpointSpec& spec) = 0;  // throws TransportError
};

// Fake: moves the bytes through `comm` point to point; needs the peer to run the matching
// call. Used by tests and by suites that set `transport: loopback` to exercise the schedule.
std::unique_ptr<Transport> make_loopback_transport(Comm& comm);

// libibverbs, loaded at run time. Never throws: a library that cannot be loaded leaves
// error() set and open() throwing.
struct VerbsDevices {
  bool library_loaded = false;
  std::string error;                   // why the library or the device list failed
  std::vector<std::string> devices;    // names from ibv_get_device_list
};
// NULL with ENOSYS (no kernel support) and an empty list both mean "no devices".
VerbsDevices list_verbs_devices();
std::unique_ptr<Transport> make_verbs_transport();  // throws TransportError when unloadable

}  // namespace ga::rdma
