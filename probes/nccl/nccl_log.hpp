// What NCCL actually used, read from its own debug output (NCCL_DEBUG=INFO, subsystems INIT and
// NET): the network (IB/RoCE verbs or TCP sockets, or a plugin), the NICs its channels went
// through, GPUDirect RDMA, NVLS and CollNet channels. NCCL's API reports none of this, and the
// classic silent failure is a cluster whose NCCL fell back from RDMA to sockets. Pure: lines in,
// a summary out (no MPI, no files), so it is tested on real logs (tests/data/recorded/nccl-logs).
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ga::nccl_log {

// One device of a network's "Using" line: "[1]mlx5_1:1/RoCE" -> {1, "mlx5_1", 1, "RoCE"};
// "[0]eth0:10.0.0.1<0>" -> {0, "eth0", 0, ""}.
struct NetDevice {
  int index = 0;
  std::string name;
  int port = 0;
  std::string link;          // IB | RoCE for verbs devices, "" for sockets
  bool operator==(const NetDevice&) const = default;
};

struct Summary {
  std::string version;                       // "2.21.5+cuda12.4"
  std::string network_said;                  // "Using network IBext_v8" -> "IBext_v8"
  std::vector<NetDevice> ib_devices;         // "NET/IB : Using ..." (verbs devices NCCL opened)
  std::vector<NetDevice> socket_devices;     // "NET/Socket : Using ..."
  bool ib_no_device = false;                 // "NET/IB : No device found."
  // From the channel connection lines ("... via NET/IB/0/GDRDMA", "via P2P/IPC", "via SHM/..."):
  std::set<std::string> channel_networks;    // the NET/<name> names: "IB", "IBext_v8", "Socket"
  std::set<std::string> channel_transports;  // the rest's first word: "P2P", "SHM", "NVLS", "CollNet"
  std::set<int> net_devices_used;            // the device index after NET/<name>/
  int gdr_channels = 0, net_channels = 0;    // NET connections with /GDRDMA, and all NET ones
  std::vector<std::string> gdr_enabled, gdr_disabled;  // "GPU Direct RDMA Enabled/Disabled for ... HCA k 'dev'"
  std::optional<int> nvls_channels, collnet_channels;  // "16 coll channels, 8 collnet channels, 16 nvls channels"
  bool nvls_multicast = false;               // "NVLS multicast support is available on dev k"
  int info_lines = 0;                        // "NCCL INFO" lines read

  // The network the inter-host traffic used: "IB" (verbs, InfiniBand or RoCE), "Socket", another
  // plugin's own name, or "" when no line says. The channel lines decide; without them (an older
  // NCCL, other subsystems), "Using network X"; without that, the IB device line (NCCL prefers
  // IB when it opens a device).
  std::string network() const;
  // The names of the devices the channels went through, for the network used ("mlx5_0", "eth0").
  std::vector<std::string> nics_used() const;
};

// "IB", "IBext", "IBext_v8" -> "IB"; "Socket" -> "Socket"; others unchanged.
std::string normalize_network(const std::string& name);

// The NICs of `used` that are not in `nearest` (the GPU's NICs at the shortest PCIe path, from the
// topology), a port suffix ("mlx5_0:1") ignored.
std::vector<std::string> off_switch(const std::vector<std::string>& used, const std::vector<std::string>& nearest);

Summary parse(const std::vector<std::string>& lines);
Summary parse_text(const std::string& text);

}  // namespace ga::nccl_log
