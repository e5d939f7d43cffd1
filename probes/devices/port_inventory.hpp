// RDMA port inventory from sysfs (/sys/class/infiniband/DEV/...). sysfs rather than verbs
// because it is readable without opening the device (a port whose driver is wedged still
// shows its state) and because tests can feed recorded trees through the sysfs root.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ga::rdma {

struct PortInfo {
  std::string device;                 // mlx5_0
  int port = 1;
  std::string state;                  // ACTIVE, DOWN, INIT, ARMED ... ("4: ACTIVE" -> ACTIVE)
  std::string phys_state;             // LinkUp, Disabled, Polling ...
  std::optional<double> rate_gbps;    // "200 Gb/sec (4X HDR)" -> 200
  std::optional<int> width;           // "4X" -> 4
  std::string speed_name;             // HDR, NDR, QDR ... ("" when the rate string has none)
  std::string link_layer;             // InfiniBand | Ethernet
  std::optional<int> active_mtu;      // bytes, where sysfs has ports/N/active_mtu
  std::optional<int> roce_v2_gid_index;  // first GID of type "RoCE v2" that is not all zeros
  bool is_vf = false;                 // device/physfn exists: an SR-IOV virtual function
  std::string fw_ver;
  std::string node_guid;              // the device's node GUID (sysfs node_guid), "" when not there
  std::optional<int> numa_node;       // device/numa_node; -1 in sysfs means unknown -> nullopt
  std::string pci_bus_id;             // device link target, when it is a PCI address

  bool active() const { return state == "ACTIVE"; }
  bool ethernet() const { return link_layer == "Ethernet"; }
  // The name in places: "mlx5_0" for port 1, "mlx5_0:2" for the others (HOST/nic:mlx5_0:2).
  std::string place_name() const { return port == 1 ? device : device + ":" + std::to_string(port); }
};

// Every port of every device under <root>/sys/class/infiniband, devices in natural order
// (mlx5_2 before mlx5_10), ports by number. root "" means "/". Unreadable files leave their
// fields empty: a half-populated tree must not stop the inventory.
std::vector<PortInfo> read_ports(const std::string& root);

// The error counters read at the run's start and end (rates over the run are judged): the
// IB PortCounters under ports/N/counters/ and, where the driver has them (mlx5, for RoCE and
// InfiniBand alike), the transport counters under ports/N/hw_counters/ that count drops,
// sequence errors, retransmission timeouts and corrupt RoCE packets. Only counters whose file
// exists and parses are returned; the names do not overlap between the two folders.
std::map<std::string, std::uint64_t> read_error_counters(const std::string& root, const PortInfo& p);
const std::vector<std::string>& error_counter_names();     // counters/
const std::vector<std::string>& hw_error_counter_names();  // hw_counters/

// Parsers for sysfs values, exposed for tests.
std::string parse_state(const std::string& s);       // "4: ACTIVE" -> "ACTIVE"
struct Rate { std::optional<double> gbps; std::optional<int> width; std::string speed; };
Rate parse_rate(const std::string& s);                // "200 Gb/sec (4X HDR)"
std::optional<int> parse_mtu(const std::string& s);   // "4096" or "4096 (5)" or "5" (enum)

}  // namespace ga::rdma
