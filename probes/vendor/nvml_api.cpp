#include "probes/vendor/nvml_api.hpp"

#include <cstring>

namespace ga::gpu {

namespace {
constexpr int kSuccess = 0;
// nvmlDeviceGetTotalEccErrors: errorType 0 corrected, 1 uncorrected; counterType 0 volatile, 1 aggregate.
constexpr int kCorrected = 0, kUncorrected = 1, kVolatile = 0, kAggregate = 1;
constexpr int kTemperatureGpu = 0;
constexpr int kFeatureEnabled = 1;

// The first failure of two calls made in turn.
int both(int a, int b) { return a != kSuccess ? a : b; }

struct MemoryInfo {                     // nvmlMemory_t
  unsigned long long total, free, used;
};

struct PciInfo {                        // nvmlPciInfo_t (the layout of the _v2 and _v3 calls)
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
// nvml.h: NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_DEVICE_SERIAL_BUFFER_SIZE.
constexpr unsigned kUuidBytes = 96, kSerialBytes = 30;
// nvmlNvLinkErrorCounter_t
constexpr int kDlReplay = 0, kDlRecovery = 1, kDlCrcFlit = 2, kDlCrcData = 3;
constexpr int kNotSupported = 3;
}  // namespace

struct Nvml::Table {
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*by_pci)(const char*, void**) = nullptr;
  int (*temperature)(void*, int, unsigned*) = nullptr;
  int (*power)(void*, unsigned*) = nullptr;
  int (*clock)(void*, int, unsigned*) = nullptr;
  int (*max_clock)(void*, int, unsigned*) = nullptr;
  int (*throttle)(void*, unsigned long long*) = nullptr;
  int (*ecc_mode)(void*, int*, int*) = nullptr;
  int (*ecc_total)(void*, int, int, unsigned long long*) = nullptr;
  int (*remapped)(void*, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  int (*nvlink_state)(void*, unsigned, int*) = nullptr;
  int (*pcie_gen)(void*, unsigned*) = nullptr;
  int (*pcie_width)(void*, unsigned*) = nullptr;
  int (*pcie_gen_max)(void*, unsigned*) = nullptr;
  int (*pcie_width_max)(void*, unsigned*) = nullptr;
  int (*memory)(void*, MemoryInfo*) = nullptr;
  int (*pci_info)(void*, PciInfo*) = nullptr;
  int (*uuid)(void*, char*, unsigned) = nullptr;
  int (*serial)(void*, char*, unsigned) = nullptr;
  int (*nvlink_error)(void*, unsigned, int, unsigned long long*) = nullptr;
};

Nvml::Nvml(const std::vector<std::string>& candidates) : lib_(candidates), t_(std::make_shared<Table>()) {
  if (!lib_.loaded()) {
    error_ = lib_.error();
    return;
  }
  Table& t = *t_;
  auto sym = [&](auto& fn, const char* name) { fn = lib_.symbol<std::remove_reference_t<decltype(fn)>>(name); };
  sym(t.init, "nvmlInit_v2");
  sym(t.shutdown, "nvmlShutdown");
  sym(t.error_string, "nvmlErrorString");
  sym(t.driver_version, "nvmlSystemGetDriverVersion");
  sym(t.by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  sym(t.temperature, "nvmlDeviceGetTemperature");
  sym(t.power, "nvmlDeviceGetPowerUsage");
  sym(t.clock, "nvmlDeviceGetClockInfo");
  sym(t.max_clock, "nvmlDeviceGetMaxClockInfo");
  // Renamed "clocks event reasons" in 535+, where the old name stays exported.
  sym(t.throttle, "nvmlDeviceGetCurrentClocksThrottleReasons");
  if (!t.throttle) sym(t.throttle, "nvmlDeviceGetCurrentClocksEventReasons");
  sym(t.ecc_mode, "nvmlDeviceGetEccMode");
  sym(t.ecc_total, "nvmlDeviceGetTotalEccErrors");
  sym(t.remapped, "nvmlDeviceGetRemappedRows");
  sym(t.nvlink_state, "nvmlDeviceGetNvLinkState");
  sym(t.pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration");
  sym(t.pcie_width, "nvmlDeviceGetCurrPcieLinkWidth");
  sym(t.pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration");
  sym(t.pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth");
  sym(t.memory, "nvmlDeviceGetMemoryInfo");
  sym(t.pci_info, "nvmlDeviceGetPciInfo_v3");
  if (!t.pci_info) sym(t.pci_info, "nvmlDeviceGetPciInfo_v2");
  sym(t.uuid, "nvmlDeviceGetUUID");
  sym(t.serial, "nvmlDeviceGetSerial");
  sym(t.nvlink_error, "nvmlDeviceGetNvLinkErrorCounter");
  if (!t.init || !t.by_pci) {
    error_ = lib_.name() + " lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2 (not a usable NVML)";
    return;
  }
  const int rc = t.init();
  if (rc != kSuccess) {
    error_ = "nvmlInit_v2 failed: " + error_string(rc);
    return;
  }
  ok_ = true;
}

Nvml::~Nvml() {
  if (ok_ && t_->shutdown) t_->shutdown();
}

std::string Nvml::error_string(int rc) const {
  const char* s = t_->error_string ? t_->error_string(rc) : nullptr;
  return (s ? std::string(s) : std::string("NVML error")) + " (" + std::to_string(rc) + ")";
}

std::string Nvml::driver_version() const {
  char buf[96] = {};
  if (ok_ && t_->driver_version && t_->driver_version(buf, sizeof buf) == kSuccess) return buf;
  return {};
}

std::optional<Nvml::Device> Nvml::device_by_pci(const std::string& bus_id, std::string* why) const {
  if (!ok_) {
    if (why) *why = error_;
    return std::nullopt;
  }
  void* h = nullptr;
  const int rc = t_->by_pci(bus_id.c_str(), &h);
  if (rc != kSuccess) {
    if (why) *why = "nvmlDeviceGetHandleByPciBusId_v2(" + bus_id + "): " + error_string(rc);
    return std::nullopt;
  }
  return Device(*this, h);
}

#define GA_NVML_READ(T, member, name, CALL, VALUE)                                                   \
  [&]() -> Reading<T> {                                                                             \
    Reading<T> r;                                                                                   \
    auto* fn = nvml_->t_->member;                                                                   \
    if (!fn) { r.why = std::string(name) + " not exported by this NVML"; return r; }                \
    const int rc = CALL;                                                                            \
    if (rc != kSuccess) r.why = std::string(name) + ": " + nvml_->error_string(rc);                 \
    else r.value = VALUE;                                                                           \
    return r;                                                                                       \
  }()

Reading<unsigned> Nvml::Device::temperature_c() const {
  unsigned v = 0;
  return GA_NVML_READ(unsigned, temperature, "nvmlDeviceGetTemperature", fn(h_, kTemperatureGpu, &v), v);
}
Reading<double> Nvml::Device::power_w() const {
  unsigned mw = 0;
  return GA_NVML_READ(double, power, "nvmlDeviceGetPowerUsage", fn(h_, &mw), mw / 1000.0);
}
Reading<unsigned> Nvml::Device::clock_mhz(int type) const {
  unsigned v = 0;
  return GA_NVML_READ(unsigned, clock, "nvmlDeviceGetClockInfo", fn(h_, type, &v), v);
}
Reading<unsigned> Nvml::Device::max_clock_mhz(int type) const {
  unsigned v = 0;
  return GA_NVML_READ(unsigned, max_clock, "nvmlDeviceGetMaxClockInfo", fn(h_, type, &v), v);
}
Reading<std::uint64_t> Nvml::Device::throttle_reasons() const {
  unsigned long long v = 0;
  return GA_NVML_READ(std::uint64_t, throttle, "nvmlDeviceGetCurrentClocksThrottleReasons", fn(h_, &v),
                      static_cast<std::uint64_t>(v));
}
Reading<bool> Nvml::Device::ecc_enabled() const {
  int cur = 0, pending = 0;
  return GA_NVML_READ(bool, ecc_mode, "nvmlDeviceGetEccMode", fn(h_, &cur, &pending), cur == kFeatureEnabled);
}
Reading<EccCounts> Nvml::Device::ecc_volatile() const {
  unsigned long long c = 0, u = 0;
  return GA_NVML_READ(EccCounts, ecc_total, "nvmlDeviceGetTotalEccErrors",
                      both(fn(h_, kCorrected, kVolatile, &c), fn(h_, kUncorrected, kVolatile, &u)), (EccCounts{c, u}));
}
Reading<EccCounts> Nvml::Device::ecc_aggregate() const {
  unsigned long long c = 0, u = 0;
  return GA_NVML_READ(EccCounts, ecc_total, "nvmlDeviceGetTotalEccErrors",
                      both(fn(h_, kCorrected, kAggregate, &c), fn(h_, kUncorrected, kAggregate, &u)), (EccCounts{c, u}));
}
Reading<RemappedRows> Nvml::Device::remapped_rows() const {
  unsigned c = 0, u = 0, p = 0, f = 0;
  return GA_NVML_READ(RemappedRows, remapped, "nvmlDeviceGetRemappedRows", fn(h_, &c, &u, &p, &f),
                      (RemappedRows{c, u, p != 0, f != 0}));
}
Reading<int> Nvml::Device::nvlinks_active(int max_links) const {
  Reading<int> r;
  auto* fn = nvml_->t_->nvlink_state;
  if (!fn) {
    r.why = "nvmlDeviceGetNvLinkState not exported by this NVML";
    return r;
  }
  int active = 0;
  std::string first_error;
  for (int l = 0; l < max_links; ++l) {
    int on = 0;
    const int rc = fn(h_, static_cast<unsigned>(l), &on);
    if (rc == kSuccess) {
      if (on == kFeatureEnabled) ++active;
    } else if (l == 0) {
      first_error = nvml_->error_string(rc);  // link 0 unsupported: no NVLink on this board
    }
  }
  if (!first_error.empty() && active == 0) r.why = "nvmlDeviceGetNvLinkState: " + first_error;
  else r.value = active;
  return r;
}
Reading<unsigned> Nvml::Device::pcie_gen() const {
  unsigned v = 0;
  return GA_NVML_READ(unsigned, pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration", fn(h_, &v), v);
}
Reading<unsigned> Nvml::Device::pcie_width() const {
  unsigned v = 0;
  return GA_NVML_READ(unsigned, pcie_width, "nvmlDeviceGetCurrPcieLinkWidth", fn(h_, &v), v);
}
Reading<unsigned> Nvml::Device::pcie_gen_max() const {
  unsigned v = 0;
  return GA_NVML_READ(unsigned, pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration", fn(h_, &v), v);
}
Reading<unsigned> Nvml::Device::pcie_width_max() const {
  unsigned v = 0;
  return GA_NVML_READ(unsigned, pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth", fn(h_, &v), v);
}
Reading<std::uint64_t> Nvml::Device::memory_used() const {
  MemoryInfo m{};
  return GA_NVML_READ(std::uint64_t, memory, "nvmlDeviceGetMemoryInfo", fn(h_, &m), static_cast<std::uint64_t>(m.used));
}

Reading<std::string> Nvml::Device::pci_bus_id() const {
  PciInfo p{};
  return GA_NVML_READ(std::string, pci_info, "nvmlDeviceGetPciInfo", fn(h_, &p),
                      std::string(p.bus_id, strnlen(p.bus_id, sizeof p.bus_id)));
}
Reading<std::string> Nvml::Device::uuid() const {
  char buf[kUuidBytes] = {};
  return GA_NVML_READ(std::string, uuid, "nvmlDeviceGetUUID", fn(h_, buf, sizeof buf), std::string(buf, strnlen(buf, sizeof buf)));
}
Reading<std::string> Nvml::Device::serial() const {
  char buf[kSerialBytes] = {};
  return GA_NVML_READ(std::string, serial, "nvmlDeviceGetSerial", fn(h_, buf, sizeof buf),
                      std::string(buf, strnlen(buf, sizeof buf)));
}

Reading<NvLinkErrors> Nvml::Device::nvlink_errors(int max_links) const {
  Reading<NvLinkErrors> r;
  auto* fn = nvml_->t_->nvlink_error;
  if (!fn) {
    r.why = "nvmlDeviceGetNvLinkErrorCounter not exported by this NVML";
    return r;
  }
  NvLinkErrors e;
  std::string first_error;
  for (int l = 0; l < max_links; ++l) {
    unsigned long long v[4] = {};
    int rc = 0;
    for (int c : {kDlReplay, kDlRecovery, kDlCrcFlit, kDlCrcData})
      if ((rc = fn(h_, static_cast<unsigned>(l), c, &v[c])) != kSuccess) break;
    if (rc == kSuccess) {
      e.replay += v[kDlReplay];
      e.recovery += v[kDlRecovery];
      e.crc_flit += v[kDlCrcFlit];
      e.crc_data += v[kDlCrcData];
      ++e.links;
    } else if (first_error.empty() && (l == 0 || rc != kNotSupported)) {
      first_error = nvml_->error_string(rc);  // link 0 unsupported: no NVLink on this board
    }
  }
  if (e.links == 0) r.why = "nvmlDeviceGetNvLinkErrorCounter: " + (first_error.empty() ? std::string("no link") : first_error);
  else r.value = e;
  return r;
}

#undef GA_NVML_READ

namespace {
// nvmlClocksThrottleReason* bits (nvml.h of the 525+ drivers).
const std::pair<std::uint64_t, const char*> kReasons[] = {
    {0x1, "gpu_idle"},           {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},        {0x10, "sync_boost"},                 {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"},  {0x100, "display_clock_setting"},
};
}  // namespace

std::string throttle_reason_names(std::uint64_t mask) {
  std::string s;
  std::uint64_t known = 0;
  for (const auto& [bit, name] : kReasons) {
    known |= bit;
    if (mask & bit) s += (s.empty() ? "" : ",") + std::string(name);
  }
  if (mask & ~known) s += (s.empty() ? "" : ",") + std::string("other");
  return s.empty() ? "none" : s;
}

bool throttle_is_hardware(std::uint64_t mask) { return (mask & (0x8 | 0x40 | 0x80)) != 0; }

}  // namespace ga::gpu
