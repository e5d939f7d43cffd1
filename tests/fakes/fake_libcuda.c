/* A stand-in for libcuda.so.1, built only for tests (tests/integration/gpu.cmake), one
 * library per behaviour (FAKE_CUDA_<MODE> defined at compile time):
 *   OK          two devices, 0000:1b:00.0 and 0000:43:00.0; memory is host memory, copies are
 *               memcpy, events read CLOCK_MONOTONIC: the whole data path of the probes runs
 *   INIT_FAIL   cuInit returns CUDA_ERROR_NO_DEVICE (100)
 *   OLD         cuDriverGetVersion says 11000 (CUDA 11.0, a pre-525 driver)
 *   INCOMPLETE  exports only cuInit and cuDriverGetVersion
 *   DEV_FAIL    like OK, but device 1 fails cuDeviceGetName with CUDA_ERROR_INVALID_DEVICE (101)
 * All but INCOMPLETE also load PTX and launch kernels: fake_ptx.cpp interprets the PTX that
 * gpuaccept ships (probes/resume/resume_kernels.ptx), on the host, thread after thread.
 * Each device declares 512 MiB (a small GPU, so that the probes' buffers, sized from the free
 * memory, stay small in the host memory that stands in for it); allocations count against the
 * device whose context is current and fail with CUDA_ERROR_OUT_OF_MEMORY past it.
 * Faults (slow_hbm, mem_creep) are opt-in through GA_FAKE_GPU_FAULTS (fake_gpu_faults.h).
 * It measures nothing real: tests never assert a speed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_gpu_faults.h"

typedef int CUresult;
typedef uint64_t CUdeviceptr;

#ifdef FAKE_CUDA_OLD
#define FAKE_VERSION 11000
#else
#define FAKE_VERSION 12040
#endif

CUresult cuInit(unsigned flags) {
  (void)flags;
#ifdef FAKE_CUDA_INIT_FAIL
  return 100;
#else
  return 0;
#endif
}

CUresult cuDriverGetVersion(int* v) {
  *v = FAKE_VERSION;
  return 0;
}

#ifndef FAKE_CUDA_INCOMPLETE

static const int kBus[2] = {0x1b, 0x43};

CUresult cuGetErrorName(CUresult e, const char** s) {
  switch (e) {
    case 100: *s = "CUDA_ERROR_NO_DEVICE"; return 0;
    case 101: *s = "CUDA_ERROR_INVALID_DEVICE"; return 0;
    case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case 218: *s = "CUDA_ERROR_INVALID_PTX"; return 0;
    case 500: *s = "CUDA_ERROR_NOT_FOUND"; return 0;
    case 700: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return 0;
    default: *s = "CUDA_ERROR_UNKNOWN"; return 0;
  }
}
CUresult cuDeviceGetCount(int* n) { *n = 2; return 0; }
CUresult cuDeviceGet(int* d, int ordinal) {
  if (ordinal < 0 || ordinal > 1) return 101;
  *d = ordinal;
  return 0;
}
CUresult cuDeviceGetName(char* name, int len, int dev) {
#ifdef FAKE_CUDA_DEV_FAIL
  if (dev == 1) return 101;
#endif
  strncpy(name, "NVIDIA H100 80GB HBM3", (size_t)len);
  (void)dev;
  return 0;
}
CUresult cuDeviceGetAttribute(int* v, int attr, int dev) {
  switch (attr) {
    case 16: *v = 132; return 0;
    case 33: *v = kBus[dev]; return 0;
    case 34: case 50: *v = 0; return 0;
    case 41: *v = 1; return 0;
    case 75: *v = 9; return 0;
    case 76: *v = 0; return 0;
    case 132: *v = 1; return 0;
    default: return 1;
  }
}
static const size_t kMemory = (size_t)512 << 20;
CUresult cuDeviceTotalMem_v2(size_t* b, int dev) { (void)dev; *b = kMemory; return 0; }
CUresult cuDeviceCanAccessPeer(int* v, int a, int b) { *v = a != b; return 0; }
static int g_ctx[2];
static int g_current;            /* the device of the current context */
static size_t g_allocated[2];    /* this process's allocations per device */
CUresult cuDevicePrimaryCtxRetain(void** c, int dev) { *c = &g_ctx[dev]; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int dev) { (void)dev; return 0; }
CUresult cuCtxSetCurrent(void* c) {
  if (c) g_current = (int)((int*)c - g_ctx);
  return 0;
}
void fake_cuda_drain(void);
CUresult cuCtxSynchronize(void) { fake_cuda_drain(); return 0; }
CUresult cuCtxEnablePeerAccess(void* c, unsigned f) { (void)c; (void)f; return 0; }
static double seconds(void);
/* mem_creep: from the process's first cuMemGetInfo on that device, 16 MiB a second more in use
 * (reported only: free memory shrinks, no allocation fails for it). */
static double g_first_info[2];
CUresult cuMemGetInfo_v2(size_t* f, size_t* t) {
  *t = kMemory;
  *f = kMemory - g_allocated[g_current];
  if (fake_gpu_has(g_current, FAKE_MEM_CREEP)) {
    const double now = seconds();
    if (g_first_info[g_current] == 0) g_first_info[g_current] = now;
    const size_t creep = (size_t)((now - g_first_info[g_current]) * 16.0 * 1048576.0);
    *f = creep < *f ? *f - creep : 0;
  }
  return 0;
}
/* This process's device allocations, so that a pointer (also one inside a buffer) names its
 * device and a free its size. */
struct alloc { uintptr_t base; size_t bytes; int dev; };
static struct alloc* g_allocs;
static size_t g_nallocs, g_cap;
static struct alloc* find_alloc(uintptr_t p) {
  for (size_t i = 0; i < g_nallocs; ++i)
    if (p >= g_allocs[i].base && p < g_allocs[i].base + g_allocs[i].bytes) return &g_allocs[i];
  return NULL;
}
static int device_of(CUdeviceptr p) {
  const struct alloc* a = find_alloc((uintptr_t)p);
  return a ? a->dev : g_current;
}
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
  if (n == 0) return 1;
  if (n > kMemory - g_allocated[g_current]) return 2;  /* CUDA_ERROR_OUT_OF_MEMORY */
  if (g_nallocs == g_cap) {
    size_t cap = g_cap ? 2 * g_cap : 64;
    struct alloc* a = realloc(g_allocs, cap * sizeof *a);
    if (!a) return 2;
    g_allocs = a;
    g_cap = cap;
  }
  void* m = malloc(n);
  if (!m) return 2;
  g_allocs[g_nallocs++] = (struct alloc){(uintptr_t)m, n, g_current};
  g_allocated[g_current] += n;
  *p = (CUdeviceptr)(uintptr_t)m;
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  struct alloc* a = find_alloc((uintptr_t)p);
  if (!a || a->base != (uintptr_t)p) return p ? 1 : 0;
  g_allocated[a->dev] -= a->bytes;
  free((void*)a->base);
  *a = g_allocs[--g_nallocs];
  return 0;
}
static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
/* slow_hbm: work on that device that began at `start` takes 20x its time, and at least
 * `bytes` at 200 MB/s (sleeping: a slow GPU does not load the host's CPUs). */
void fake_cuda_hbm_work_done(int dev, double start, size_t bytes) {
  if (!fake_gpu_has(dev, FAKE_SLOW_HBM)) return;
  const double took = seconds() - start, floor = (double)bytes / 2e8;
  double wait = 19 * took;
  if (took + wait < floor) wait = floor - took;
  struct timespec t = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
  nanosleep(&t, NULL);
}
double fake_cuda_now(void) { return seconds(); }
int fake_cuda_current_device(void) { return g_current; }
int fake_cuda_gpu_has_sdc(int dev) { return fake_gpu_has(dev, FAKE_SDC); }
/* Work a fake library queues on the current device without doing it on the host (the fake
 * cuBLAS's GEMMs): the device is busy until g_busy_until, on the device's own clock, so a GEMM
 * takes its modelled time however late this process is scheduled. Events record when the
 * queue ahead of them ends; synchronous work (copies, memsets, the fake NCCL's collectives,
 * through fake_cuda_drain) first waits for the queue, as work behind it on a stream would. */
static double g_busy_until[2];
void fake_cuda_enqueue(double secs) {
  const double now = seconds();
  double* b = &g_busy_until[g_current];
  *b = (*b > now ? *b : now) + secs;
}
void fake_cuda_drain(void) {
  const double wait = g_busy_until[g_current] - seconds();
  if (wait <= 0) return;
  struct timespec t = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
  nanosleep(&t, NULL);
}
CUresult cuMemHostAlloc(void** p, size_t n, unsigned f) { (void)f; *p = malloc(n); return *p ? 0 : 2; }
CUresult cuMemFreeHost(void* p) { free(p); return 0; }
CUresult cuMemHostRegister_v2(void* p, size_t n, unsigned f) { (void)p; (void)n; (void)f; return 0; }
CUresult cuMemHostUnregister(void* p) { (void)p; return 0; }
CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, void* s) {
  (void)s;
  fake_cuda_drain();
  memset((void*)(uintptr_t)p, v, n);
  return 0;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* s, size_t n, void* st) { (void)st; fake_cuda_drain(); memcpy((void*)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoHAsync_v2(void* d, CUdeviceptr s, size_t n, void* st) { (void)st; fake_cuda_drain(); memcpy(d, (void*)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void* st) {
  (void)st;
  fake_cuda_drain();
  const double start = seconds();
  memcpy((void*)(uintptr_t)d, (void*)(uintptr_t)s, n);
  fake_cuda_hbm_work_done(device_of(s), start, 2 * n);  /* read and written */
  return 0;
}
CUresult cuMemcpyPeerAsync(CUdeviceptr d, void* dc, CUdeviceptr s, void* sc, size_t n, void* st) {
  (void)dc; (void)sc; (void)st;
  fake_cuda_drain();
  memcpy((void*)(uintptr_t)d, (void*)(uintptr_t)s, n);
  return 0;
}
static int g_stream;
CUresult cuStreamCreate(void** s, unsigned f) { (void)f; *s = &g_stream; return 0; }
CUresult cuStreamDestroy_v2(void* s) { (void)s; return 0; }
CUresult cuStreamSynchronize(void* s) { (void)s; fake_cuda_drain(); return 0; }
/* An event is the time it was recorded; work is synchronous, so that is when it completed. */
CUresult cuEventCreate(void** e, unsigned f) {
  (void)f;
  *e = calloc(1, sizeof(struct timespec));
  return *e ? 0 : 2;
}
CUresult cuEventDestroy_v2(void* e) { free(e); return 0; }
/* An event is when the work queued ahead of it ends (fake_cuda_enqueue), else when it was
 * recorded: other work is synchronous, so that is when it completed. */
CUresult cuEventRecord(void* e, void* s) {
  (void)s;
  struct timespec* t = (struct timespec*)e;
  clock_gettime(CLOCK_MONOTONIC, t);
  const double b = g_busy_until[g_current];
  if (b > (double)t->tv_sec + (double)t->tv_nsec / 1e9) {
    t->tv_sec = (time_t)b;
    t->tv_nsec = (long)((b - (double)(time_t)b) * 1e9);
  }
  return 0;
}
CUresult cuEventSynchronize(void* e) {
  const struct timespec* t = (const struct timespec*)e;
  const double wait = (double)t->tv_sec + (double)t->tv_nsec / 1e9 - seconds();
  if (wait > 0) {
    struct timespec w = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
    nanosleep(&w, NULL);
  }
  return 0;
}
CUresult cuEventElapsedTime(float* ms, void* a, void* b) {
  const struct timespec* x = (const struct timespec*)a;
  const struct timespec* y = (const struct timespec*)b;
  *ms = (float)((double)(y->tv_sec - x->tv_sec) * 1e3 + (double)(y->tv_nsec - x->tv_nsec) / 1e6);
  return 0;
}
#endif
