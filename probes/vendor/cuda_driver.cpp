#include "probes/vendor/cuda_driver.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#ifdef GA_HAVE_CUDA_HEADERS
#include <cuda.h>
#endif

namespace ga::gpu {

#ifdef GA_HAVE_CUDA_HEADERS
// Our own constants must agree with the toolkit's where it is there to ask.
static_assert(int(DevAttr::multiprocessor_count) == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(int(DevAttr::pci_bus_id) == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
static_assert(int(DevAttr::pci_device_id) == CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
static_assert(int(DevAttr::unified_addressing) == CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
static_assert(int(DevAttr::pci_domain_id) == CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
static_assert(int(DevAttr::cc_major) == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(int(DevAttr::cc_minor) == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(int(DevAttr::multicast_supported) == CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED);
static_assert(sizeof(CudaDriver::Ptr) == sizeof(CUdeviceptr));
static_assert(CUDA_SUCCESS == 0 && CU_MEMHOSTALLOC_PORTABLE == 1 && CU_MEMHOSTREGISTER_PORTABLE == 1);
static_assert(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED == 704);
#endif

namespace {
constexpr int kSuccess = 0;
constexpr int kPeerAccessAlreadyEnabled = 704;
constexpr unsigned kPortable = 1;
}  // namespace

// Signatures as in cuda.h, with opaque handles as void* and CUdevice as int.
struct CudaDriver::Table {
  int (*cuInit)(unsigned) = nullptr;
  int (*cuDriverGetVersion)(int*) = nullptr;
  int (*cuDeviceGetCount)(int*) = nullptr;
  int (*cuDeviceGet)(int*, int) = nullptr;
  int (*cuDeviceGetName)(char*, int, int) = nullptr;
  int (*cuDeviceGetAttribute)(int*, int, int) = nullptr;
  int (*cuDeviceTotalMem_v2)(std::size_t*, int) = nullptr;
  int (*cuDeviceCanAccessPeer)(int*, int, int) = nullptr;
  int (*cuGetErrorName)(int, const char**) = nullptr;
  int (*cuDevicePrimaryCtxRetain)(void**, int) = nullptr;
  int (*cuDevicePrimaryCtxRelease)(int) = nullptr;
  int (*cuCtxSetCurrent)(void*) = nullptr;
  int (*cuCtxSynchronize)() = nullptr;
  int (*cuCtxEnablePeerAccess)(void*, unsigned) = nullptr;
  int (*cuMemGetInfo_v2)(std::size_t*, std::size_t*) = nullptr;
  int (*cuMemAlloc_v2)(Ptr*, std::size_t) = nullptr;
  int (*cuMemFree_v2)(Ptr) = nullptr;
  int (*cuMemHostAlloc)(void**, std::size_t, unsigned) = nullptr;
  int (*cuMemFreeHost)(void*) = nullptr;
  int (*cuMemHostRegister_v2)(void*, std::size_t, unsigned) = nullptr;
  int (*cuMemHostUnregister)(void*) = nullptr;
  int (*cuMemsetD8Async)(Ptr, unsigned char, std::size_t, void*) = nullptr;
  int (*cuMemcpyHtoDAsync_v2)(Ptr, const void*, std::size_t, void*) = nullptr;
  int (*cuMemcpyDtoHAsync_v2)(void*, Ptr, std::size_t, void*) = nullptr;
  int (*cuMemcpyDtoDAsync_v2)(Ptr, Ptr, std::size_t, void*) = nullptr;
  int (*cuMemcpyPeerAsync)(Ptr, void*, Ptr, void*, std::size_t, void*) = nullptr;
  int (*cuStreamCreate)(void**, unsigned) = nullptr;
  int (*cuStreamDestroy_v2)(void*) = nullptr;
  int (*cuStreamSynchronize)(void*) = nullptr;
  int (*cuEventCreate)(void**, unsigned) = nullptr;
  int (*cuEventDestroy_v2)(void*) = nullptr;
  int (*cuEventRecord)(void*, void*) = nullptr;
  int (*cuEventSynchronize)(void*) = nullptr;
  int (*cuEventElapsedTime)(float*, void*, void*) = nullptr;
  // Kernels from PTX (the resume job's); optional: only the probes that launch kernels need them.
  int (*cuModuleLoadData)(void**, const void*) = nullptr;
  int (*cuModuleUnload)(void*) = nullptr;
  int (*cuModuleGetFunction)(void**, void*, const char*) = nullptr;
  int (*cuLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**) = nullptr;
};

CudaDriver::CudaDriver(const std::vector<std::string>& candidates) : lib_(candidates), t_(std::make_shared<Table>()) {
  if (!lib_.loaded()) return;
  auto load = [&](auto& fn, std::initializer_list<const char*> names) {
    for (const char* n : names) {
      fn = lib_.symbol<std::remove_reference_t<decltype(fn)>>(n);
      if (fn) return;
    }
    missing_.push_back(*names.begin());
  };
  Table& t = *t_;
  load(t.cuInit, {"cuInit"});
  load(t.cuDriverGetVersion, {"cuDriverGetVersion"});
  load(t.cuDeviceGetCount, {"cuDeviceGetCount"});
  load(t.cuDeviceGet, {"cuDeviceGet"});
  load(t.cuDeviceGetName, {"cuDeviceGetName"});
  load(t.cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
  load(t.cuDeviceTotalMem_v2, {"cuDeviceTotalMem_v2"});
  load(t.cuDeviceCanAccessPeer, {"cuDeviceCanAccessPeer"});
  load(t.cuGetErrorName, {"cuGetErrorName"});
  load(t.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  load(t.cuDevicePrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  load(t.cuCtxSetCurrent, {"cuCtxSetCurrent"});
  load(t.cuCtxSynchronize, {"cuCtxSynchronize"});
  load(t.cuCtxEnablePeerAccess, {"cuCtxEnablePeerAccess"});
  load(t.cuMemGetInfo_v2, {"cuMemGetInfo_v2"});
  load(t.cuMemAlloc_v2, {"cuMemAlloc_v2"});
  load(t.cuMemFree_v2, {"cuMemFree_v2"});
  load(t.cuMemHostAlloc, {"cuMemHostAlloc"});
  load(t.cuMemFreeHost, {"cuMemFreeHost"});
  load(t.cuMemHostRegister_v2, {"cuMemHostRegister_v2"});
  load(t.cuMemHostUnregister, {"cuMemHostUnregister"});
  load(t.cuMemsetD8Async, {"cuMemsetD8Async"});
  load(t.cuMemcpyHtoDAsync_v2, {"cuMemcpyHtoDAsync_v2"});
  load(t.cuMemcpyDtoHAsync_v2, {"cuMemcpyDtoHAsync_v2"});
  load(t.cuMemcpyDtoDAsync_v2, {"cuMemcpyDtoDAsync_v2"});
  load(t.cuMemcpyPeerAsync, {"cuMemcpyPeerAsync"});
  load(t.cuStreamCreate, {"cuStreamCreate"});
  load(t.cuStreamDestroy_v2, {"cuStreamDestroy_v2"});
  load(t.cuStreamSynchronize, {"cuStreamSynchronize"});
  load(t.cuEventCreate, {"cuEventCreate"});
  load(t.cuEventDestroy_v2, {"cuEventDestroy_v2"});
  load(t.cuEventRecord, {"cuEventRecord"});
  load(t.cuEventSynchronize, {"cuEventSynchronize"});
  // 525-570 export only the first; newer drivers keep it beside the _v2 the 13.x headers name.
  load(t.cuEventElapsedTime, {"cuEventElapsedTime", "cuEventElapsedTime_v2"});
  // Not in missing_: a library without them still serves every probe but the GPU resume job,
  // whose call then fails naming the entry point.
  auto optional = [&](auto& fn, const char* name) { fn = lib_.symbol<std::remove_reference_t<decltype(fn)>>(name); };
  optional(t.cuModuleLoadData, "cuModuleLoadData");
  optional(t.cuModuleUnload, "cuModuleUnload");
  optional(t.cuModuleGetFunction, "cuModuleGetFunction");
  optional(t.cuLaunchKernel, "cuLaunchKernel");
}

std::string CudaDriver::error_name(int code) const {
  const char* n = nullptr;
  if (t_->cuGetErrorName && t_->cuGetErrorName(code, &n) == kSuccess && n) return n;
  return "CUDA error";
}

void CudaDriver::check(int rc, const char* call) const {
  if (rc != kSuccess) throw CudaError(call, rc, error_name(rc));
}

#define GA_CALL(fn, ...)                                                              \
  do {                                                                                \
    if (!t_->fn) throw CudaError(#fn, -1, "not exported by " + lib_.name());          \
    check(t_->fn(__VA_ARGS__), #fn);                                                  \
  } while (0)

void CudaDriver::init() const { GA_CALL(cuInit, 0u); }

void* CudaDriver::module_load_data(const std::string& image) const {
  void* m = nullptr;
  GA_CALL(cuModuleLoadData, &m, image.c_str());
  return m;
}
void CudaDriver::module_unload(void* m) const noexcept {
  if (m && t_->cuModuleUnload) t_->cuModuleUnload(m);
}
void* CudaDriver::module_function(void* m, const char* name) const {
  void* f = nullptr;
  if (!t_->cuModuleGetFunction) throw CudaError("cuModuleGetFunction", -1, "not exported by " + lib_.name());
  const int rc = t_->cuModuleGetFunction(&f, m, name);
  if (rc != kSuccess) throw CudaError(std::string("cuModuleGetFunction(") + name + ")", rc, error_name(rc));
  return f;
}
void CudaDriver::launch(void* fn, unsigned grid_x, unsigned block_x, void* stream, void** params) const {
  GA_CALL(cuLaunchKernel, fn, grid_x, 1u, 1u, block_x, 1u, 1u, 0u, stream, params, nullptr);
}

Module::Module(const CudaDriver& d, const std::string& ptx) : drv_(d), m_(d.module_load_data(ptx)) {}
Module::~Module() { drv_.module_unload(m_); }

int CudaDriver::driver_version() const {
  int v = 0;
  GA_CALL(cuDriverGetVersion, &v);
  return v;
}

int CudaDriver::device_count() const {
  int n = 0;
  GA_CALL(cuDeviceGetCount, &n);
  return n;
}

int CudaDriver::attribute(int ordinal, DevAttr a) const {
  int dev = 0, v = 0;
  GA_CALL(cuDeviceGet, &dev, ordinal);
  GA_CALL(cuDeviceGetAttribute, &v, static_cast<int>(a), dev);
  return v;
}

int CudaDriver::attribute_or(int ordinal, DevAttr a, int fallback) const {
  try {
    return attribute(ordinal, a);
  } catch (const CudaError&) {
    return fallback;
  }
}

CudaDeviceInfo CudaDriver::device_info(int ordinal) const {
  CudaDeviceInfo d;
  d.ordinal = ordinal;
  int dev = 0;
  GA_CALL(cuDeviceGet, &dev, ordinal);
  char name[256] = {};
  GA_CALL(cuDeviceGetName, name, static_cast<int>(sizeof name - 1), dev);
  d.name = name;
  std::size_t mem = 0;
  GA_CALL(cuDeviceTotalMem_v2, &mem, dev);
  d.total_memory = mem;
  char bus[32];
  std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", attribute(ordinal, DevAttr::pci_domain_id),
                attribute(ordinal, DevAttr::pci_bus_id), attribute(ordinal, DevAttr::pci_device_id));
  d.pci_bus_id = bus;
  d.cc_major = attribute(ordinal, DevAttr::cc_major);
  d.cc_minor = attribute(ordinal, DevAttr::cc_minor);
  d.sm_count = attribute(ordinal, DevAttr::multiprocessor_count);
  return d;
}

bool CudaDriver::can_access_peer(int ordinal, int peer) const {
  int a = 0, b = 0, v = 0;
  GA_CALL(cuDeviceGet, &a, ordinal);
  GA_CALL(cuDeviceGet, &b, peer);
  GA_CALL(cuDeviceCanAccessPeer, &v, a, b);
  return v != 0;
}

void* CudaDriver::primary_ctx_retain(int ordinal) const {
  int dev = 0;
  void* ctx = nullptr;
  GA_CALL(cuDeviceGet, &dev, ordinal);
  GA_CALL(cuDevicePrimaryCtxRetain, &ctx, dev);
  return ctx;
}

void CudaDriver::primary_ctx_release(int ordinal) const {
  int dev = 0;
  if (t_->cuDeviceGet && t_->cuDeviceGet(&dev, ordinal) == kSuccess && t_->cuDevicePrimaryCtxRelease)
    t_->cuDevicePrimaryCtxRelease(dev);
}

void CudaDriver::ctx_set_current(void* ctx) const { GA_CALL(cuCtxSetCurrent, ctx); }
void CudaDriver::ctx_synchronize() const { GA_CALL(cuCtxSynchronize); }

void CudaDriver::ctx_enable_peer_access(void* peer_ctx) const {
  if (!t_->cuCtxEnablePeerAccess) throw CudaError("cuCtxEnablePeerAccess", -1, "not exported");
  const int rc = t_->cuCtxEnablePeerAccess(peer_ctx, 0);
  if (rc != kPeerAccessAlreadyEnabled) check(rc, "cuCtxEnablePeerAccess");
}

void CudaDriver::mem_get_info(std::size_t* f, std::size_t* total) const { GA_CALL(cuMemGetInfo_v2, f, total); }

CudaDriver::Ptr CudaDriver::mem_alloc(std::size_t bytes) const {
  Ptr p = 0;
  GA_CALL(cuMemAlloc_v2, &p, bytes);
  return p;
}
void CudaDriver::mem_free(Ptr p) const noexcept {
  if (p && t_->cuMemFree_v2) t_->cuMemFree_v2(p);
}
void* CudaDriver::mem_host_alloc(std::size_t bytes) const {
  void* p = nullptr;
  GA_CALL(cuMemHostAlloc, &p, bytes, kPortable);
  return p;
}
void CudaDriver::mem_free_host(void* p) const noexcept {
  if (p && t_->cuMemFreeHost) t_->cuMemFreeHost(p);
}
void CudaDriver::mem_host_register(void* p, std::size_t bytes) const { GA_CALL(cuMemHostRegister_v2, p, bytes, kPortable); }
void CudaDriver::mem_host_unregister(void* p) const noexcept {
  if (p && t_->cuMemHostUnregister) t_->cuMemHostUnregister(p);
}
void CudaDriver::memset_d8(Ptr p, unsigned char v, std::size_t n, void* s) const { GA_CALL(cuMemsetD8Async, p, v, n, s); }
void CudaDriver::memcpy_htod(Ptr d, const void* s, std::size_t n, void* st) const { GA_CALL(cuMemcpyHtoDAsync_v2, d, s, n, st); }
void CudaDriver::memcpy_dtoh(void* d, Ptr s, std::size_t n, void* st) const { GA_CALL(cuMemcpyDtoHAsync_v2, d, s, n, st); }
void CudaDriver::memcpy_dtod(Ptr d, Ptr s, std::size_t n, void* st) const { GA_CALL(cuMemcpyDtoDAsync_v2, d, s, n, st); }
void CudaDriver::memcpy_peer(Ptr d, void* dc, Ptr s, void* sc, std::size_t n, void* st) const {
  GA_CALL(cuMemcpyPeerAsync, d, dc, s, sc, n, st);
}

void* CudaDriver::stream_create() const {
  void* s = nullptr;
  GA_CALL(cuStreamCreate, &s, 1u);  // non-blocking: no implicit sync with the legacy stream
  return s;
}
void CudaDriver::stream_destroy(void* s) const noexcept {
  if (s && t_->cuStreamDestroy_v2) t_->cuStreamDestroy_v2(s);
}
void CudaDriver::stream_synchronize(void* s) const { GA_CALL(cuStreamSynchronize, s); }
void* CudaDriver::event_create() const {
  void* e = nullptr;
  GA_CALL(cuEventCreate, &e, 0u);
  return e;
}
void CudaDriver::event_destroy(void* e) const noexcept {
  if (e && t_->cuEventDestroy_v2) t_->cuEventDestroy_v2(e);
}
void CudaDriver::event_record(void* e, void* s) const { GA_CALL(cuEventRecord, e, s); }
void CudaDriver::event_synchronize(void* e) const { GA_CALL(cuEventSynchronize, e); }
float CudaDriver::event_elapsed_ms(void* a, void* b) const {
  float ms = 0;
  GA_CALL(cuEventElapsedTime, &ms, a, b);
  return ms;
}

#undef GA_CALL

DeviceContext::DeviceContext(const CudaDriver& d, int ordinal) : drv_(d), ordinal_(ordinal) {
  ctx_ = d.primary_ctx_retain(ordinal);
  try {
    d.ctx_set_current(ctx_);
  } catch (...) {
    d.primary_ctx_release(ordinal);
    throw;
  }
}

DeviceContext::~DeviceContext() { drv_.primary_ctx_release(ordinal_); }

std::string normalize_pci_bus_id(const std::string& id) {
  std::string s = id;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // NVML spells the domain with 8 digits; the topology and sysfs with 4.
  const auto colon = s.find(':');
  if (colon != std::string::npos && colon > 4 && s.find(':', colon + 1) != std::string::npos)
    s = s.substr(colon - 4);
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

}  // namespace ga::gpu
