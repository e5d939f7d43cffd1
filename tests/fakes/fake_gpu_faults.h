/* GPU faults of the fake CUDA and NVML (tests only), opt-in through one variable that names
 * each faulty place:
 *
 *   GA_FAKE_GPU_FAULTS="HOST/gpu:K=FAULT[+FAULT...][,HOST/gpu:K=FAULT...]"
 *
 * HOST is the name `hostname` gives where the rank runs (a fake host's ga-hN; "*" matches every
 * host), K the GPU's logical index: 0 is 0000:1b:00.0, 1 is 0000:43:00.0, the two devices of
 * the fake libraries and of tests/data/gpu/sysfs-two-nvidia. FAULT is one of
 *   slow_hbm           device-to-device copies and kernels on that GPU take 20x their time
 *                      (and a copy at least its bytes at 200 MB/s): CUDA
 *   pcie_gen_low       the link runs at Gen3 of its Gen4 under load: NVML
 *   pcie_width_low     the link runs at x8 of its x16 under load: NVML
 *   xid[:CODE]         an XID (default 79, "GPU has fallen off the bus") for that GPU in the
 *                      kernel log: see fake_libnvml.c for where that log is
 *   row_remap_pending  a row remapping waits for a GPU reset (one uncorrectable row): NVML
 *   nvlink_down        NVLink 0 of its 18 is down: NVML
 *   ecc_uncorrected    2 uncorrected volatile ECC errors: NVML
 *   hw_slowdown        the hardware-slowdown clock throttle reason is active: NVML
 *   nvlink_crc         NVLink 0's CRC flit and data error counters rise (1000 and 250 a
 *                      second) between any two reads: NVML
 *   slow               its bf16/fp16 GEMMs take 3x their modelled time: cuBLAS (the soak's
 *                      straggler)
 *   mem_creep          its memory in use creeps up 16 MiB a second from the process's first
 *                      cuMemGetInfo (free memory reported shrinks; nothing is allocated): CUDA
 *   throttle           the hardware thermal slowdown reason (0x40) is active: NVML
 *   sdc                the second launch of the sdc probe's kernel (ga_sdc_mix) on that GPU
 *                      in the process ends with one bit of one element of its output flipped
 *                      (bit 17 of element n/3): CUDA's PTX interpreter (fake_ptx.cpp)
 * Unset (or empty), every GPU is healthy. A name it does not know stops the process with a
 * message, so that a typo never passes for a healthy run. */
#pragma once
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
  FAKE_SLOW_HBM = 1 << 0,
  FAKE_PCIE_GEN_LOW = 1 << 1,
  FAKE_PCIE_WIDTH_LOW = 1 << 2,
  FAKE_XID = 1 << 3,
  FAKE_ROW_REMAP_PENDING = 1 << 4,
  FAKE_NVLINK_DOWN = 1 << 5,
  FAKE_ECC_UNCORRECTED = 1 << 6,
  FAKE_HW_SLOWDOWN = 1 << 7,
  FAKE_NVLINK_CRC = 1 << 8,
  FAKE_SLOW = 1 << 9,
  FAKE_MEM_CREEP = 1 << 10,
  FAKE_THROTTLE = 1 << 11,
  FAKE_SDC = 1 << 12,
};
enum { FAKE_GPUS = 2 };

struct fake_faults {
  unsigned bits[FAKE_GPUS];
  int xid[FAKE_GPUS];
};

static inline int fake_host_is(const char* want) {
  if (!strcmp(want, "*")) return 1;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  if (!strcmp(want, host)) return 1;
  const size_t n = strcspn(host, ".");  /* the short name matches too */
  return strlen(want) == n && !strncmp(want, host, n);
}

/* This host's faults, parsed again whenever the variable changed (tests set it in-process). */
static inline const struct fake_faults* fake_gpu_faults(void) {
  static struct fake_faults f;
  static char seen[4096] = "\x01";  /* never a real value: parse on first use */
  const char* v = getenv("GA_FAKE_GPU_FAULTS");
  if (!v) v = "";
  if (!strcmp(v, seen)) return &f;
  snprintf(seen, sizeof seen, "%s", v);
  memset(&f, 0, sizeof f);
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", v);
  for (char *s1 = NULL, *entry = strtok_r(buf, ",", &s1); entry; entry = strtok_r(NULL, ",", &s1)) {
    char* eq = strchr(entry, '=');
    char* slash = strstr(entry, "/gpu:");
    char* end = NULL;
    long k = slash ? strtol(slash + 5, &end, 10) : -1;
    if (!eq || !slash || slash > eq || end != eq || k < 0 || k >= FAKE_GPUS) {
      fprintf(stderr, "GA_FAKE_GPU_FAULTS: \"%s\" is not HOST/gpu:K=FAULT with K 0 or 1\n", entry);
      abort();
    }
    *slash = 0;
    const int mine = fake_host_is(entry);
    for (char *s2 = NULL, *name = strtok_r(eq + 1, "+", &s2); name; name = strtok_r(NULL, "+", &s2)) {
      unsigned bit = 0;
      int code = 0;
      if (!strcmp(name, "slow_hbm")) bit = FAKE_SLOW_HBM;
      else if (!strcmp(name, "pcie_gen_low")) bit = FAKE_PCIE_GEN_LOW;
      else if (!strcmp(name, "pcie_width_low")) bit = FAKE_PCIE_WIDTH_LOW;
      else if (!strcmp(name, "xid")) bit = FAKE_XID, code = 79;
      else if (!strncmp(name, "xid:", 4) && (code = atoi(name + 4)) > 0) bit = FAKE_XID;
      else if (!strcmp(name, "row_remap_pending")) bit = FAKE_ROW_REMAP_PENDING;
      else if (!strcmp(name, "nvlink_down")) bit = FAKE_NVLINK_DOWN;
      else if (!strcmp(name, "ecc_uncorrected")) bit = FAKE_ECC_UNCORRECTED;
      else if (!strcmp(name, "hw_slowdown")) bit = FAKE_HW_SLOWDOWN;
      else if (!strcmp(name, "nvlink_crc")) bit = FAKE_NVLINK_CRC;
      else if (!strcmp(name, "slow")) bit = FAKE_SLOW;
      else if (!strcmp(name, "mem_creep")) bit = FAKE_MEM_CREEP;
      else if (!strcmp(name, "throttle")) bit = FAKE_THROTTLE;
      else if (!strcmp(name, "sdc")) bit = FAKE_SDC;
      if (!bit) {
        fprintf(stderr, "GA_FAKE_GPU_FAULTS: unknown fault \"%s\" (slow_hbm, pcie_gen_low, pcie_width_low, xid[:CODE], "
                        "row_remap_pending, nvlink_down, ecc_uncorrected, hw_slowdown, nvlink_crc, slow, mem_creep, throttle, sdc)\n", name);
        abort();
      }
      if (!mine) continue;
      f.bits[k] |= bit;
      if (code) f.xid[k] = code;
    }
  }
  return &f;
}
static inline int fake_gpu_has(int dev, unsigned bit) {
  return dev >= 0 && dev < FAKE_GPUS && (fake_gpu_faults()->bits[dev] & bit) != 0;
}
