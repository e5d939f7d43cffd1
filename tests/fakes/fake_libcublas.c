/* A stand-in for libcublas.so, built only for tests: a GEMM that computes nothing (the probes
 * time cuBLAS, they never check its arithmetic) and takes the time a GPU at 900 TFLOP/s would
 * (91% of an H100 SXM's dense bf16 peak, 989), at least 200 us. That rate is an assumption of
 * the fake, stated so that a soak on the fakes clears the 70%-of-theory gate and a GPU made
 * `slow` (GA_FAKE_GPU_FAULTS, fake_gpu_faults.h: 3x the time) does not; it says nothing about
 * a real GPU.
 *
 * Calls in quick succession form a queue, as a GPU's stream does: each ends at the previous
 * one's end plus its own time, so one late wake-up of this sleeping process is made up by the
 * next calls instead of being counted once per GEMM. The device is the fake CUDA's current one
 * (found through GPUACCEPT_CUDA_LIBRARY, already loaded by the probe); without it, device 0. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

#include "fake_gpu_faults.h"

static const double kRate = 9e14, kFloor = 2e-4, kQueueGap = 2e-4;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
static int current_device(void) {
  static int (*fn)(void);
  static int looked;
  if (!looked) {
    looked = 1;
    const char* p = getenv("GPUACCEPT_CUDA_LIBRARY");
    void* h = p ? dlopen(p, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (h) fn = (int (*)(void))dlsym(h, "fake_cuda_current_device");
  }
  return fn ? fn() : 0;
}

static int g_handle;
static double g_queue_end, g_last_return;
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
  if (fake_gpu_has(current_device(), FAKE_SLOW)) t *= 3;
  const double now = now_s();
  const double begin = (now - g_last_return < kQueueGap && g_queue_end > 0) ? g_queue_end : now;
  g_queue_end = begin + t;
  const double wait = g_queue_end - now;
  if (wait > 0) {
    struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
    nanosleep(&ts, NULL);
  }
  g_last_return = now_s();
  return 0;
}
