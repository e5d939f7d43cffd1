/* A stand-in for libcublas.so, built only for tests: a GEMM that computes nothing (the probes
 * time cuBLAS, they never check its arithmetic) and takes the time a GPU at 900 TFLOP/s would
 * (91% of an H100 SXM's dense bf16 peak, 989), at least 200 us. That rate is an assumption of
 * the fake, stated so that a soak on the fakes clears the 70%-of-theory gate and a GPU made
 * `slow` (GA_FAKE_GPU_FAULTS, fake_gpu_faults.h: 3x the time) does not; it says nothing about
 * a real GPU.
 *
 * The GEMM is queued on the fake CUDA's current device (fake_cuda_enqueue: the device is busy
 * for that long, on its own clock, and events after it record its end), so its time does not
 * depend on how late this process is scheduled on a loaded machine. The fake CUDA is found
 * through GPUACCEPT_CUDA_LIBRARY, already loaded by the probe; without it the call sleeps for
 * the time instead, on device 0. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

#include "fake_gpu_faults.h"

static const double kRate = 9e14, kFloor = 2e-4;
static int (*g_device)(void);
static void (*g_enqueue)(double);
static void find_cuda(void) {
  static int looked;
  if (looked) return;
  looked = 1;
  const char* p = getenv("GPUACCEPT_CUDA_LIBRARY");
  void* h = p ? dlopen(p, RTLD_NOW | RTLD_NOLOAD) : NULL;
  if (!h) return;
  g_device = (int (*)(void))dlsym(h, "fake_cuda_current_device");
  g_enqueue = (void (*)(double))dlsym(h, "fake_cuda_enqueue");
}

static int g_handle;
int cublasCreate_v2(void** h) { *h = &g_handle; return 0; }
int cublasDestroy_v2(void* h) { (void)h; return 0; }
int cublasSetStream_v2(void* h, void* s) { (void)h; (void)s; return 0; }
int cublasGetVersion_v2(void* h, int* v) { (void)h; *v = 120304; return 0; }
int cublasGemmEx(void* h, int ta, int tb, int m, int n, int k, const void* alpha, const void* a, int at, int lda,
                 const void* b, int bt, int ldb, const void* beta, void* c, int ct, int ldc, int comp, int algo) {
  (void)h; (void)ta; (void)tb; (void)alpha; (void)a; (void)at; (void)lda;
  (void)b; (void)bt; (void)ldb; (void)beta; (void)c; (void)ct; (void)ldc; (void)comp; (void)algo;
  double t = 2.0 * (double)m * (double)n * (double)k / kRate;
  if (t < kFloor) t = kFloor;
  find_cuda();
  if (fake_gpu_has(g_device ? g_device() : 0, FAKE_SLOW)) t *= 3;
  if (g_enqueue && g_device) {
    g_enqueue(t);
    return 0;
  }
  struct timespec ts = {(time_t)t, (long)((t - (double)(time_t)t) * 1e9)};
  nanosleep(&ts, NULL);
  return 0;
}
