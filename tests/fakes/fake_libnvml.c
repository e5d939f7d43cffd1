/* A stand-in for libnvidia-ml.so.1, built only for tests. Knows the two devices of
 * fake_libcuda.c (OK mode), H100 SXM boards: 512 MiB (as the fake CUDA declares), PCIe Gen4
 * x16, 18 NVLinks, all healthy unless GA_FAKE_GPU_FAULTS (fake_gpu_faults.h) names a fault at
 * HOST/gpu:K: pcie_gen_low (Gen3 under load), pcie_width_low (x8), row_remap_pending,
 * nvlink_down (link 0 inactive), ecc_uncorrected (2 volatile), hw_slowdown (throttle 0x8).
 *
 * xid: NVML keeps no XID history, the gpu probe reads them from the kernel log. So that each
 * fake host has a log of its own (they share the real machine's /dev/kmsg and file system),
 * nvmlInit, when GA_FAKE_GPU_FAULTS is set, writes this host's fake kernel log, an
 * "NVRM: Xid (PCI:0000:43:00): 79, ..." line per xid fault of its GPUs (none for a healthy
 * host), into an anonymous file that it puts at descriptor 1000 of the process: a test points
 * the gpu probe's kernel_log at /proc/self/fd/1000. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_gpu_faults.h"

typedef int nvmlReturn_t;
typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;

enum { kKernelLogFd = 1000 };
static int g_dev[2];
static const char* const kBusId[2] = {"0000:1b:00", "0000:43:00"};

static int dev_of(void* h) { return (int*)h - g_dev; }
static int has(void* h, unsigned bit) { return fake_gpu_has(dev_of(h), bit); }

/* This host's fake kernel log at kKernelLogFd (see the top of the file). */
static void write_kernel_log(void) {
  const char* v = getenv("GA_FAKE_GPU_FAULTS");
  if (!v || !*v) return;
  const int in_use = fcntl(kKernelLogFd, F_GETFD) != -1;
  static int mine;  /* the descriptor is ours from an earlier nvmlInit */
  if (in_use && !mine) {
    fprintf(stderr, "fake NVML: descriptor %d is taken, no fake kernel log\n", kKernelLogFd);
    return;
  }
  int fd = memfd_create("fake-kmsg", MFD_CLOEXEC);
  if (fd < 0) return;
  const struct fake_faults* f = fake_gpu_faults();
  char line[256];
  for (int d = 0; d < FAKE_GPUS; ++d) {
    if (!(f->bits[d] & FAKE_XID)) continue;
    int n = snprintf(line, sizeof line, "6,%d,1000000,-;NVRM: Xid (PCI:%s): %d, pid=1234, name=fake, fake fault (GA_FAKE_GPU_FAULTS)\n",
                     700 + d, kBusId[d], f->xid[d]);
    if (write(fd, line, (size_t)n) != n) break;
  }
  if (dup3(fd, kKernelLogFd, O_CLOEXEC) == kKernelLogFd) mine = 1;
  close(fd);
}

nvmlReturn_t nvmlInit_v2(void) { write_kernel_log(); return 0; }
nvmlReturn_t nvmlShutdown(void) { return 0; }
const char* nvmlErrorString(nvmlReturn_t r) { return r == 3 ? "Not Supported" : r == 6 ? "Not Found" : "Unknown Error"; }
nvmlReturn_t nvmlSystemGetDriverVersion(char* v, unsigned n) { strncpy(v, "550.54.15", n); return 0; }
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* id, void** h) {
  if (strstr(id, ":1b:00")) { *h = &g_dev[0]; return 0; }
  if (strstr(id, ":43:00")) { *h = &g_dev[1]; return 0; }
  return 6;
}
nvmlReturn_t nvmlDeviceGetTemperature(void* h, int s, unsigned* t) { (void)h; (void)s; *t = 45; return 0; }
nvmlReturn_t nvmlDeviceGetPowerUsage(void* h, unsigned* mw) { (void)h; *mw = 312000; return 0; }
nvmlReturn_t nvmlDeviceGetClockInfo(void* h, int type, unsigned* c) { (void)h; *c = type == 2 ? 2619 : 1980; return 0; }
nvmlReturn_t nvmlDeviceGetMaxClockInfo(void* h, int type, unsigned* c) { (void)h; *c = type == 2 ? 2619 : 1980; return 0; }
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(void* h, unsigned long long* m) {
  *m = has(h, FAKE_HW_SLOWDOWN) ? 0x8 : 0x0;
  return 0;
}
nvmlReturn_t nvmlDeviceGetEccMode(void* h, int* cur, int* pend) { (void)h; *cur = 1; *pend = 1; return 0; }
nvmlReturn_t nvmlDeviceGetTotalEccErrors(void* h, int type, int counter, unsigned long long* n) {
  *n = (has(h, FAKE_ECC_UNCORRECTED) && type == 1 && counter == 0) ? 2 : 0;
  return 0;
}
nvmlReturn_t nvmlDeviceGetRemappedRows(void* h, unsigned* c, unsigned* u, unsigned* p, unsigned* f) {
  const int pending = has(h, FAKE_ROW_REMAP_PENDING);
  *c = 0; *u = pending ? 1 : 0; *p = pending ? 1 : 0; *f = 0;
  return 0;
}
nvmlReturn_t nvmlDeviceGetNvLinkState(void* h, unsigned link, int* on) {
  if (link >= 18) return 3;
  *on = !(link == 0 && has(h, FAKE_NVLINK_DOWN));
  return 0;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(void* h, unsigned* g) { *g = has(h, FAKE_PCIE_GEN_LOW) ? 3 : 4; return 0; }
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(void* h, unsigned* w) { *w = has(h, FAKE_PCIE_WIDTH_LOW) ? 8 : 16; return 0; }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(void* h, unsigned* g) { (void)h; *g = 4; return 0; }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(void* h, unsigned* w) { (void)h; *w = 16; return 0; }
nvmlReturn_t nvmlDeviceGetMemoryInfo(void* h, nvmlMemory_t* m) {
  (void)h;
  m->total = 512ull << 20; m->used = 0; m->free = m->total;
  return 0;
}
