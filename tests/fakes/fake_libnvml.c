/* A stand-in for libnvidia-ml.so.1, built only for tests. Knows the two devices of
 * fake_libcuda.c (OK mode), H100 SXM boards: 512 MiB (as the fake CUDA declares), PCIe Gen4
 * x16, 18 NVLinks, all healthy unless GA_FAKE_GPU_FAULTS (fake_gpu_faults.h) names a fault at
 * HOST/gpu:K: pcie_gen_low (Gen3 under load), pcie_width_low (x8), row_remap_pending,
 * nvlink_down (link 0 inactive), ecc_uncorrected (2 volatile), hw_slowdown (throttle 0x8),
 * nvlink_crc (link 0's CRC flit and data error counters rise, 1000 and 250 a second),
 * throttle (hardware thermal slowdown, 0x40).
 *
 * Identities: each GPU's UUID and serial number are derived from the hostname and its index
 * (FNV-1a), so that every GPU of every fake host has its own, stable across processes (tests
 * read them back from the run's gpu.uuid / gpu.serial samples).
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
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
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
  *m = (has(h, FAKE_HW_SLOWDOWN) ? 0x8 : 0x0) | (has(h, FAKE_THROTTLE) ? 0x40 : 0x0);
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

/* nvmlPciInfo_t, as the _v2 and _v3 calls fill it. */
typedef struct {
  char busIdLegacy[16];
  unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

static uint64_t fnv1a(const char* s, uint64_t h) {
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}
/* This host's short name and GPU index, hashed: the root of the GPU's UUID and serial. */
static uint64_t identity_hash(int dev, uint64_t salt) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  host[strcspn(host, ".")] = 0;
  char key[300];
  snprintf(key, sizeof key, "%s/gpu:%d", host, dev);
  return fnv1a(key, 1469598103934665603ull ^ salt);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(void* h, nvmlPciInfo_t* p) {
  const int d = dev_of(h);
  memset(p, 0, sizeof *p);
  p->bus = d == 0 ? 0x1b : 0x43;
  p->pciDeviceId = 0x233010de;  /* H100 SXM5, as the fake CUDA names it */
  snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "0000:%02X:00.0", p->bus);
  snprintf(p->busId, sizeof p->busId, "00000000:%02X:00.0", p->bus);
  return 0;
}
nvmlReturn_t nvmlDeviceGetUUID(void* h, char* out, unsigned n) {
  const uint64_t a = identity_hash(dev_of(h), 1), b = identity_hash(dev_of(h), 2);
  char u[64];
  snprintf(u, sizeof u, "GPU-%08x-%04x-%04x-%04x-%012llx", (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff,
           (unsigned)a & 0xffff, (unsigned)(b >> 48), (unsigned long long)(b & 0xffffffffffffull));
  if (n < strlen(u) + 1) return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
  strcpy(out, u);
  return 0;
}
nvmlReturn_t nvmlDeviceGetSerial(void* h, char* out, unsigned n) {
  char s[32];
  snprintf(s, sizeof s, "%013llu", (unsigned long long)(identity_hash(dev_of(h), 3) % 10000000000000ull));
  if (n < strlen(s) + 1) return 7;
  strcpy(out, s);
  return 0;
}
/* nvlink_crc: the counters follow the process's monotonic clock, so any two reads some time
 * apart see them rise (by 1000 CRC flit and 250 CRC data errors a second), without state. */
nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(void* h, unsigned link, int counter, unsigned long long* v) {
  if (link >= 18) return 3;
  if (counter < 0 || counter > 4) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  *v = 0;
  if (link == 0 && has(h, FAKE_NVLINK_CRC) && (counter == 2 || counter == 3)) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    const unsigned long long ms = (unsigned long long)t.tv_sec * 1000ull + (unsigned long long)t.tv_nsec / 1000000ull;
    *v = counter == 2 ? ms : ms / 4;
  }
  return 0;
}
