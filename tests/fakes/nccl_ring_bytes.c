/* Test helper (tests/integration/gpu_nccl_bytes.sh): one rank of a fake-NCCL communicator
 * without MPI, to count what a ring all_reduce puts on the wire.
 *   nccl_ring_bytes LIBNCCL RANK NRANKS IDFILE BYTES
 * Rank 0 writes the ncclUniqueId to IDFILE, the others wait for it. After a small all_reduce
 * (everyone connected) and a pause, it reads the tx_bytes of every interface of its network
 * namespace (/proc/net/dev follows the process's namespace; /sys/class/net does not), runs one
 * all_reduce of BYTES (float sum, checked element by element), pauses again so that the last
 * segments and delayed ACKs have left, reads them again and prints one line:
 *   rank R bytes B wrong W sent IF:DELTA [IF:DELTA...]
 * Exit 0 when the collective succeeded and the data were right. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { char internal[128]; } ncclUniqueId;
typedef int (*get_id_fn)(ncclUniqueId*);
typedef int (*init_fn)(void**, int, ncclUniqueId, int);
typedef int (*all_reduce_fn)(const void*, void*, size_t, int, int, void*, void*);
typedef int (*destroy_fn)(void*);

enum { kMaxIf = 16 };
struct counters { int n; char name[kMaxIf][32]; unsigned long long tx[kMaxIf]; };

static void read_tx(struct counters* c) {
  FILE* f = fopen("/proc/net/dev", "r");
  char line[512];
  c->n = 0;
  if (!f) return;
  while (fgets(line, sizeof line, f) && c->n < kMaxIf) {
    char* colon = strchr(line, ':');
    if (!colon) continue;  /* the two header lines */
    *colon = 0;
    char* name = line;
    while (*name == ' ') ++name;
    unsigned long long v[16] = {0};
    if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
               &v[6], &v[7], &v[8]) != 9)
      continue;
    snprintf(c->name[c->n], sizeof c->name[0], "%.31s", name);
    c->tx[c->n++] = v[8];  /* the ninth number: transmitted bytes */
  }
  fclose(f);
}
static float input(int rank, size_t i) { return (float)((int)(((unsigned long long)rank * 7 + i * 13) % 61) - 30); }

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s LIBNCCL RANK NRANKS IDFILE BYTES\n", argv[0]);
    return 2;
  }
  const int rank = atoi(argv[2]), n = atoi(argv[3]);
  const char* idfile = argv[4];
  const size_t count = (size_t)strtoull(argv[5], NULL, 10) / sizeof(float);
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 2; }
  get_id_fn get_id = (get_id_fn)dlsym(lib, "ncclGetUniqueId");
  init_fn init = (init_fn)dlsym(lib, "ncclCommInitRank");
  all_reduce_fn all_reduce = (all_reduce_fn)dlsym(lib, "ncclAllReduce");
  destroy_fn destroy = (destroy_fn)dlsym(lib, "ncclCommDestroy");
  ncclUniqueId id;
  if (rank == 0) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", idfile);
    FILE* f = fopen(tmp, "wb");
    if (get_id(&id) || !f || fwrite(&id, sizeof id, 1, f) != 1 || fclose(f) || rename(tmp, idfile)) {
      fprintf(stderr, "rank 0: cannot publish the unique id in %s\n", idfile);
      return 1;
    }
  } else {
    FILE* f = NULL;
    for (int i = 0; i < 200 && !(f = fopen(idfile, "rb")); ++i) usleep(100000);
    if (!f || fread(&id, sizeof id, 1, f) != 1) { fprintf(stderr, "rank %d: no unique id in %s\n", rank, idfile); return 1; }
    fclose(f);
  }
  void* comm = NULL;
  if (init(&comm, n, id, rank)) { fprintf(stderr, "rank %d: ncclCommInitRank failed\n", rank); return 1; }
  float* send = malloc(count * sizeof(float) + 64);
  float* recv = malloc(count * sizeof(float) + 64);
  if (!send || !recv) return 1;
  for (size_t i = 0; i < count; ++i) send[i] = input(rank, i);
  if (all_reduce(send, recv, 8 < count ? 8 : count, 7, 0, comm, NULL)) return 1;  /* everyone is here */
  usleep(300000);
  struct counters before, after;
  read_tx(&before);
  if (all_reduce(send, recv, count, 7, 0, comm, NULL)) { fprintf(stderr, "rank %d: ncclAllReduce failed\n", rank); return 1; }
  usleep(300000);
  read_tx(&after);
  size_t wrong = 0;
  for (size_t i = 0; i < count; ++i) {
    float want = 0;
    for (int r = 0; r < n; ++r) want += input(r, i);
    wrong += recv[i] != want;
  }
  printf("rank %d bytes %zu wrong %zu sent", rank, count * sizeof(float), wrong);
  for (int i = 0; i < after.n; ++i)
    for (int j = 0; j < before.n; ++j)
      if (!strcmp(after.name[i], before.name[j])) printf(" %s:%llu", after.name[i], after.tx[i] - before.tx[j]);
  printf("\n");
  fflush(stdout);
  /* Nobody closes its sockets while a peer still reads its counters. */
  if (all_reduce(send, recv, 8 < count ? 8 : count, 7, 0, comm, NULL)) return 1;
  destroy(comm);
  return wrong ? 1 : 0;
}
