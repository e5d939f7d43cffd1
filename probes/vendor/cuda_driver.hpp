// Thin adapter over the CUDA driver API (libcuda.so.1), loaded with dlopen so that one binary
// runs on drivers 525 and newer and says why on hosts without one. Only entry points that the
// 525 driver exports are used. No vendor header leaks out of this file pair: handles are
// opaque, errors are CudaError exceptions carrying the driver's own error name.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "probes/vendor/dynlib.hpp"

namespace ga::gpu {

struct CudaError : std::runtime_error {
  CudaError(const std::string& call, int code, const std::string& name)
      : std::runtime_error(call + " failed: " + name + " (" + std::to_string(code) + ")"), code(code) {}
  int code;
};

// Device attributes this project reads (values from cuda.h; checked against it when the
// toolkit headers are present).
enum class DevAttr : int {
  multiprocessor_count = 16,
  pci_bus_id = 33,
  pci_device_id = 34,
  unified_addressing = 41,
  pci_domain_id = 50,
  cc_major = 75,
  cc_minor = 76,
  multicast_supported = 132,            // CUDA 12.1+ drivers; older ones answer "invalid value"
};

struct CudaDeviceInfo {
  int ordinal = 0;                      // CUDA ordinal: NOT the logical index of the topology
  std::string name;
  std::string pci_bus_id;               // "0000:4e:00.0", lower case, as the topology spells it
  std::uint64_t total_memory = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
};

class CudaDriver {
 public:
  // Loads the first of `candidates` that loads; does not call cuInit (init() does), so a
  // missing library and a failing driver are told apart.
  explicit CudaDriver(const std::vector<std::string>& candidates);
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

  bool loaded() const { return lib_.loaded(); }
  const std::string& load_error() const { return lib_.error(); }
  std::string path() const { return lib_.real_path(); }
  // Entry points the library lacks (an old or wrong libcuda); empty when complete.
  const std::vector<std::string>& missing_symbols() const { return missing_; }

  void init() const;
  int driver_version() const;           // 12040 = CUDA 12.4
  int device_count() const;
  CudaDeviceInfo device_info(int ordinal) const;
  int attribute(int ordinal, DevAttr a) const;
  // The attribute, or `fallback` when this driver does not know it.
  int attribute_or(int ordinal, DevAttr a, int fallback) const;
  bool can_access_peer(int ordinal, int peer) const;
  std::string error_name(int code) const;

  // Raw entry points for the RAII types below and the probes; all throw CudaError.
  using Ptr = std::uint64_t;            // CUdeviceptr
  void* primary_ctx_retain(int ordinal) const;
  void primary_ctx_release(int ordinal) const;
  void ctx_set_current(void* ctx) const;
  void ctx_synchronize() const;
  void ctx_enable_peer_access(void* peer_ctx) const;  // "already enabled" is not an error
  void mem_get_info(std::size_t* free_b, std::size_t* total_b) const;
  Ptr mem_alloc(std::size_t bytes) const;
  void mem_free(Ptr p) const noexcept;
  void* mem_host_alloc(std::size_t bytes) const;  // pinned, portable
  void mem_free_host(void* p) const noexcept;
  void mem_host_register(void* p, std::size_t bytes) const;  // pin existing (NUMA-bound) memory
  void mem_host_unregister(void* p) const noexcept;
  void memset_d8(Ptr p, unsigned char v, std::size_t n, void* stream) const;
  void memcpy_htod(Ptr dst, const void* src, std::size_t n, void* stream) const;
  void memcpy_dtoh(void* dst, Ptr src, std::size_t n, void* stream) const;
  void memcpy_dtod(Ptr dst, Ptr src, std::size_t n, void* stream) const;
  void memcpy_peer(Ptr dst, void* dst_ctx, Ptr src, void* src_ctx, std::size_t n, void* stream) const;
  void* stream_create() const;
  void stream_destroy(void* s) const noexcept;
  void stream_synchronize(void* s) const;
  void* event_create() const;
  void event_destroy(void* e) const noexcept;
  void event_record(void* e, void* stream) const;
  void event_synchronize(void* e) const;
  float event_elapsed_ms(void* start, void* end) const;
  // PTX text, compiled by the driver for this GPU (cuModuleLoadData); one-dimensional launches.
  void* module_load_data(const std::string& image) const;
  void module_unload(void* m) const noexcept;
  void* module_function(void* m, const char* name) const;
  void launch(void* fn, unsigned grid_x, unsigned block_x, void* stream, void** params) const;

 private:
  void check(int rc, const char* call) const;
  DynLib lib_;
  std::vector<std::string> missing_;
  struct Table;
  std::shared_ptr<Table> t_;
};

// RAII: the device's primary context, retained and made current. The primary context is the
// one cuBLAS and NCCL (through the runtime) attach to, so all three share allocations.
class DeviceContext {
 public:
  DeviceContext(const CudaDriver& d, int ordinal);
  ~DeviceContext();
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;
  void make_current() const { drv_.ctx_set_current(ctx_); }
  void* handle() const { return ctx_; }
  int ordinal() const { return ordinal_; }
  const CudaDriver& driver() const { return drv_; }

 private:
  const CudaDriver& drv_;
  int ordinal_;
  void* ctx_ = nullptr;
};

class Stream {
 public:
  explicit Stream(const CudaDriver& d) : drv_(d), s_(d.stream_create()) {}
  ~Stream() { drv_.stream_destroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  void* handle() const { return s_; }
  void synchronize() const { drv_.stream_synchronize(s_); }

 private:
  const CudaDriver& drv_;
  void* s_;
};

class Event {
 public:
  explicit Event(const CudaDriver& d) : drv_(d), e_(d.event_create()) {}
  ~Event() { drv_.event_destroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(const Stream& s) const { drv_.event_record(e_, s.handle()); }
  void synchronize() const { drv_.event_synchronize(e_); }
  // Seconds from `start` to this event (both recorded and complete).
  double seconds_since(const Event& start) const { return drv_.event_elapsed_ms(start.e_, e_) / 1e3; }

 private:
  const CudaDriver& drv_;
  void* e_;
};

class DeviceBuffer {
 public:
  DeviceBuffer(const CudaDriver& d, std::size_t bytes) : drv_(d), p_(d.mem_alloc(bytes)), bytes_(bytes) {}
  ~DeviceBuffer() { drv_.mem_free(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  CudaDriver::Ptr ptr() const { return p_; }
  void* as_void() const { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p_)); }
  std::size_t bytes() const { return bytes_; }

 private:
  const CudaDriver& drv_;
  CudaDriver::Ptr p_;
  std::size_t bytes_;
};

class PinnedBuffer {
 public:
  PinnedBuffer(const CudaDriver& d, std::size_t bytes) : drv_(d), p_(d.mem_host_alloc(bytes)), bytes_(bytes) {}
  ~PinnedBuffer() { drv_.mem_free_host(p_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* data() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  const CudaDriver& drv_;
  void* p_;
  std::size_t bytes_;
};

// Pins memory someone else allocated (bound to a chosen NUMA node) for the span of a scope.
class HostRegistration {
 public:
  HostRegistration(const CudaDriver& d, void* p, std::size_t bytes) : drv_(d), p_(p) { d.mem_host_register(p, bytes); }
  ~HostRegistration() { drv_.mem_host_unregister(p_); }
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;

 private:
  const CudaDriver& drv_;
  void* p_;
};

// A module loaded from PTX for the context current at construction; unloaded at the end.
class Module {
 public:
  Module(const CudaDriver& d, const std::string& ptx);
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  void* function(const char* name) const { return drv_.module_function(m_, name); }

 private:
  const CudaDriver& drv_;
  void* m_;
};

// "0000:4E:00.0" or "00000000:4e:00.0" (NVML's 8-digit domain) -> "0000:4e:00.0".
std::string normalize_pci_bus_id(const std::string& id);

}  // namespace ga::gpu
