// Thin adapter over NVML (libnvidia-ml.so.1, shipped with the driver), loaded with dlopen.
// There is no nvml.h in this project: the few functions used are declared here by hand, with
// the signatures of the NVML API reference (all present in the 525 driver). Each reading is
// optional: a GPU that does not support a query (ECC on a consumer board, NVLink on PCIe)
// answers NOT_SUPPORTED, which is a fact to record, not an error.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "probes/vendor/dynlib.hpp"

namespace ga::gpu {

// A reading or why there is none ("Not Supported", "symbol missing").
template <typename T>
struct Reading {
  std::optional<T> value;
  std::string why;                      // empty when value is set
  explicit operator bool() const { return value.has_value(); }
};

struct RemappedRows {
  unsigned corrected = 0, uncorrected = 0;
  bool pending = false, failure = false;
};

struct EccCounts {
  std::uint64_t corrected = 0, uncorrected = 0;
};

// NVLink data-link error counters of one GPU, summed over the links that answered
// (nvmlDeviceGetNvLinkErrorCounter: NVML_NVLINK_ERROR_DL_REPLAY, _DL_RECOVERY, _DL_CRC_FLIT,
// _DL_CRC_DATA). Replays and recoveries are the link retransmitting and retraining; the CRC
// counters count flits and data that failed their CRC (and were replayed).
struct NvLinkErrors {
  std::uint64_t replay = 0, recovery = 0, crc_flit = 0, crc_data = 0;
  int links = 0;                        // links whose counters were read
};

class Nvml {
 public:
  // Loads and calls nvmlInit_v2; ok() is false with error() saying which step failed.
  explicit Nvml(const std::vector<std::string>& candidates);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  std::string driver_version() const;   // "550.54.15", or "" when unknown

  class Device {
   public:
    Reading<unsigned> temperature_c() const;
    Reading<double> power_w() const;
    Reading<unsigned> clock_mhz(int type) const;       // 0 graphics, 1 SM, 2 memory
    Reading<unsigned> max_clock_mhz(int type) const;
    Reading<std::uint64_t> throttle_reasons() const;   // bit mask, see throttle_reason_names
    Reading<bool> ecc_enabled() const;                 // current mode
    Reading<EccCounts> ecc_volatile() const;           // since the driver loaded
    Reading<EccCounts> ecc_aggregate() const;          // over the board's life
    Reading<RemappedRows> remapped_rows() const;
    Reading<int> nvlinks_active(int max_links) const;  // links with state active
    Reading<unsigned> pcie_gen() const;
    Reading<unsigned> pcie_width() const;
    Reading<unsigned> pcie_gen_max() const;
    Reading<unsigned> pcie_width_max() const;
    Reading<std::uint64_t> memory_used() const;
    // The board's identity, so that a verdict names the card to pull: the PCI bus id NVML
    // reports ("00000000:1B:00.0"), the UUID ("GPU-..."), the board serial number.
    Reading<std::string> pci_bus_id() const;
    Reading<std::string> uuid() const;
    Reading<std::string> serial() const;
    // Error counters of links 0..max_links-1, summed; links that answer NOT_SUPPORTED (absent
    // on this board) are skipped. No link read: the why of link 0. Blackwell drivers retire
    // this call for field values (NVML_FI_DEV_NVLINK_*): there it reads as not supported.
    Reading<NvLinkErrors> nvlink_errors(int max_links) const;

   private:
    friend class Nvml;
    Device(const Nvml& n, void* h) : nvml_(&n), h_(h) {}
    const Nvml* nvml_;
    void* h_;
  };
  // By PCI bus id ("0000:4e:00.0"); the why of a failed lookup names the NVML error.
  std::optional<Device> device_by_pci(const std::string& bus_id, std::string* why) const;

 private:
  std::string error_string(int rc) const;
  DynLib lib_;
  bool ok_ = false;
  std::string error_;
  struct Table;
  std::shared_ptr<Table> t_;
};

// Names of the set bits of NVML's clocks-throttle (clocks-event) reason mask, "none" for 0.
std::string throttle_reason_names(std::uint64_t mask);
// Reasons that mean the hardware slowed itself down (thermal, power brake, HW slowdown), as
// opposed to idle or an application clock setting.
bool throttle_is_hardware(std::uint64_t mask);

}  // namespace ga::gpu
