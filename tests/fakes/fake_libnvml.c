/* A stand-in for libnvidia-ml.so.1, built only for tests. Knows the two devices of
 * fake_libcuda.c (OK mode). gpu 0000:43:00.0 carries faults the criteria must catch:
 * 2 uncorrected volatile ECC errors, a PCIe link trained at Gen3 instead of Gen4 while under
 * load, and a hardware-slowdown throttle reason. NVLink answers NOT_SUPPORTED (a PCIe board). */
#include <string.h>

typedef int nvmlReturn_t;
typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;

static int g_dev[2];

nvmlReturn_t nvmlInit_v2(void) { return 0; }
nvmlReturn_t nvmlShutdown(void) { return 0; }
const char* nvmlErrorString(nvmlReturn_t r) { return r == 3 ? "Not Supported" : r == 6 ? "Not Found" : "Unknown Error"; }
nvmlReturn_t nvmlSystemGetDriverVersion(char* v, unsigned n) { strncpy(v, "550.54.15", n); return 0; }
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* id, void** h) {
  if (strstr(id, ":1b:00")) { *h = &g_dev[0]; return 0; }
  if (strstr(id, ":43:00")) { *h = &g_dev[1]; return 0; }
  return 6;
}
static int bad(void* h) { return h == &g_dev[1]; }
nvmlReturn_t nvmlDeviceGetTemperature(void* h, int s, unsigned* t) { (void)s; *t = bad(h) ? 71 : 45; return 0; }
nvmlReturn_t nvmlDeviceGetPowerUsage(void* h, unsigned* mw) { (void)h; *mw = 312000; return 0; }
nvmlReturn_t nvmlDeviceGetClockInfo(void* h, int type, unsigned* c) { (void)h; *c = type == 2 ? 2619 : 1980; return 0; }
nvmlReturn_t nvmlDeviceGetMaxClockInfo(void* h, int type, unsigned* c) { (void)h; *c = type == 2 ? 2619 : 1980; return 0; }
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(void* h, unsigned long long* m) { *m = bad(h) ? 0x8 : 0x0; return 0; }
nvmlReturn_t nvmlDeviceGetEccMode(void* h, int* cur, int* pend) { (void)h; *cur = 1; *pend = 1; return 0; }
nvmlReturn_t nvmlDeviceGetTotalEccErrors(void* h, int type, int counter, unsigned long long* n) {
  *n = (bad(h) && type == 1 && counter == 0) ? 2 : 0;
  return 0;
}
nvmlReturn_t nvmlDeviceGetRemappedRows(void* h, unsigned* c, unsigned* u, unsigned* p, unsigned* f) {
  (void)h;
  *c = 0; *u = 0; *p = 0; *f = 0;
  return 0;
}
nvmlReturn_t nvmlDeviceGetNvLinkState(void* h, unsigned link, int* on) { (void)h; (void)link; (void)on; return 3; }
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(void* h, unsigned* g) { *g = bad(h) ? 3 : 4; return 0; }
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(void* h, unsigned* w) { (void)h; *w = 16; return 0; }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(void* h, unsigned* g) { (void)h; *g = 4; return 0; }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(void* h, unsigned* w) { (void)h; *w = 16; return 0; }
nvmlReturn_t nvmlDeviceGetMemoryInfo(void* h, nvmlMemory_t* m) {
  (void)h;
  m->total = 80ull << 30; m->used = 1ull << 30; m->free = m->total - m->used;
  return 0;
}
