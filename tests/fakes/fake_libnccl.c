/* A stand-in for libnccl.so.2, built only for tests.
 * One rank: every collective is a copy (what NCCL computes for one rank) and send/recv to self
 * pair up at ncclGroupEnd. FAKE_NCCL_WRONG: all_reduce changes element 0 (a float gains 1), so
 * the data check must see it.
 * Several ranks (n > 1): the processes of one communicator meet in a POSIX shared memory
 * segment named by the unique id (processes in several network namespaces of one machine share
 * /dev/shm too), and ncclAllReduce of ncclUint64 or ncclFloat32 with ncclSum really reduces
 * across them: each rank copies its data into its slot, and after a barrier each adds all
 * slots up in rank order, so every rank ends with the same bits. The other collectives stay
 * one-rank only (ncclInvalidArgument with n > 1). As a real NCCL does without its peers,
 * ncclCommInitRank fails (ncclSystemError) when they have not all arrived within 20 s; a
 * collective fails so after 60 s, or at once when a peer died (its lock on the segment went)
 * or aborted its communicator. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { kSuccess = 0, kSystemError = 2, kInvalidArgument = 4 };
enum { kMaxRanks = 64, kSlotBytes = 1 << 20, kHeaderBytes = 4096 };

typedef struct { char internal[128]; } ncclUniqueId;

/* The segment's header; the n slots of kSlotBytes follow at kHeaderBytes. */
struct shared {
  int n;              /* set by the first rank to arrive; the others must agree */
  int aborted;        /* a rank called ncclCommAbort */
  uint64_t arrived;   /* bit r: rank r has arrived */
  unsigned count;     /* barrier: ranks waiting in this generation */
  unsigned generation;
};
struct comm {
  int rank, n, fd;
  struct shared* h;   /* NULL for the one-rank communicator */
  char* slots;
};
static struct comm g_one = {0, 1, -1, NULL, NULL};

static const void* g_send;
static size_t g_send_n;
static void* g_recv;
static size_t g_recv_n;
static int g_group;

static size_t type_size(int t) { /* ncclInt8 .. ncclBfloat16 */
  static const size_t kSize[10] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
  return t >= 0 && t < 10 ? kSize[t] : 0;
}
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
/* Whether a process holds rank r's lock (byte r of the segment, taken at init). */
static int alive(const struct comm* c, int r) {
  struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = r, .l_len = 1};
  return fcntl(c->fd, F_OFD_GETLK, &l) != 0 || l.l_type != F_UNLCK;
}
/* Whether a rank of mask (other than this one) is gone: died or aborted. */
static int peer_gone(const struct comm* c, uint64_t mask) {
  if (__atomic_load_n(&c->h->aborted, __ATOMIC_SEQ_CST)) return 1;
  for (int r = 0; r < c->n; ++r)
    if (r != c->rank && (mask >> r & 1) && !alive(c, r)) return 1;
  return 0;
}
/* Waits until done(c) holds; ncclSystemError after timeout seconds or when a peer is gone. */
static int wait_for(const struct comm* c, int (*done)(const struct comm*, unsigned), unsigned arg, double timeout) {
  const double start = now();
  for (unsigned spins = 0; !done(c, arg); ++spins) {
    if (spins < 1000) { sched_yield(); continue; }
    struct timespec pause = {0, 200000};
    nanosleep(&pause, NULL);
    if (spins % 64) continue;
    /* A peer that finished leaves only after done() became true: look again before failing. */
    int gone = peer_gone(c, __atomic_load_n(&c->h->arrived, __ATOMIC_SEQ_CST));
    if ((gone || now() - start > timeout) && !done(c, arg)) return kSystemError;
  }
  return kSuccess;
}
static int all_arrived(const struct comm* c, unsigned unused) {
  (void)unused;
  uint64_t all = c->n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << c->n) - 1;
  return __atomic_load_n(&c->h->arrived, __ATOMIC_SEQ_CST) == all;
}
static int generation_moved(const struct comm* c, unsigned generation) {
  return __atomic_load_n(&c->h->generation, __ATOMIC_SEQ_CST) != generation;
}
/* A generation-counting barrier: the last rank to arrive starts the next generation. */
static int barrier(const struct comm* c) {
  struct shared* h = c->h;
  unsigned generation = __atomic_load_n(&h->generation, __ATOMIC_SEQ_CST);
  if (__atomic_add_fetch(&h->count, 1, __ATOMIC_SEQ_CST) == (unsigned)c->n) {
    __atomic_store_n(&h->count, 0, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&h->generation, 1, __ATOMIC_SEQ_CST);
    return kSuccess;
  }
  return wait_for(c, generation_moved, generation, 60);
}

static void release(struct comm* c) {
  if (c == &g_one || !c) return;
  if (c->h) munmap(c->h, kHeaderBytes + (size_t)c->n * kSlotBytes);
  if (c->fd >= 0) close(c->fd);
  free(c);
}

int ncclGetVersion(int* v) { *v = 21903; return 0; }
int ncclGetUniqueId(ncclUniqueId* id) {
  static unsigned counter;
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  memset(id, 0, sizeof *id);
  snprintf(id->internal, sizeof id->internal, "/ga-fake-nccl-%ld-%u-%lld%09ld", (long)getpid(),
           __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST), (long long)t.tv_sec, t.tv_nsec);
  return 0;
}
int ncclCommInitRank(void** out, int n, ncclUniqueId id, int r) {
  if (n == 1 && r == 0) { *out = &g_one; return kSuccess; }
  if (n < 1 || n > kMaxRanks || r < 0 || r >= n || id.internal[0] != '/' || !memchr(id.internal, 0, sizeof id.internal))
    return kInvalidArgument;
  struct comm* c = calloc(1, sizeof *c);
  if (!c) return kSystemError;
  c->rank = r;
  c->n = n;
  const size_t size = kHeaderBytes + (size_t)n * kSlotBytes;
  struct stat st;
  c->fd = shm_open(id.internal, O_RDWR | O_CREAT, 0600);
  /* Grow, never shrink: a rank that disagrees on n must not cut the segment under the others. */
  if (c->fd < 0 || fstat(c->fd, &st) != 0 || ((size_t)st.st_size < size && ftruncate(c->fd, (off_t)size) != 0)) {
    release(c);
    return kSystemError;
  }
  void* m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
  struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = r, .l_len = 1};
  if (m == MAP_FAILED || fcntl(c->fd, F_OFD_SETLK, &lock) != 0) { /* the lock held: rank r is taken */
    if (m != MAP_FAILED) munmap(m, size);
    release(c);
    return m == MAP_FAILED ? kSystemError : kInvalidArgument;
  }
  c->h = m;
  c->slots = (char*)m + kHeaderBytes;
  int expected = 0;
  if (!__atomic_compare_exchange_n(&c->h->n, &expected, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) && expected != n) {
    release(c);
    return kInvalidArgument;
  }
  __atomic_or_fetch(&c->h->arrived, (uint64_t)1 << r, __ATOMIC_SEQ_CST);
  int e = wait_for(c, all_arrived, 0, 20);
  /* Everyone has it mapped now (or init failed): the name is no longer needed. */
  if (e != kSuccess || r == 0) shm_unlink(id.internal);
  if (e != kSuccess) { release(c); return e; }
  *out = c;
  return kSuccess;
}
int ncclCommDestroy(void* c) { release(c); return 0; }
int ncclCommAbort(void* c) {
  struct comm* k = c;
  if (k && k->h) __atomic_store_n(&k->h->aborted, 1, __ATOMIC_SEQ_CST);
  release(k);
  return 0;
}
int ncclCommGetAsyncError(void* c, int* e) { (void)c; *e = 0; return 0; }
const char* ncclGetErrorString(int r) {
  return r == kSystemError ? "unhandled system error" : r == kInvalidArgument ? "invalid argument" : "fake error";
}
static int many(const void* c) { return c && ((const struct comm*)c)->n > 1; }
static void copy(const void* s, void* r, size_t bytes) {
  if (s != r) memmove(r, s, bytes);
}
/* Sums the n slots' first count elements of type t into r, in rank order. */
static void sum_slots(const struct comm* c, char* r, size_t count, int t) {
  for (size_t i = 0; i < count; ++i) {
    if (t == 5) {
      uint64_t a = 0, x;
      for (int k = 0; k < c->n; ++k) memcpy(&x, c->slots + (size_t)k * kSlotBytes + i * 8, 8), a += x;
      memcpy(r + i * 8, &a, 8);
    } else {
      float a = 0, x;
      for (int k = 0; k < c->n; ++k) memcpy(&x, c->slots + (size_t)k * kSlotBytes + i * 4, 4), a += x;
      memcpy(r + i * 4, &a, 4);
    }
  }
}
static int all_reduce_many(const char* s, char* r, size_t n, int t, int op, const struct comm* c) {
  if ((t != 5 && t != 7) || op != 0) return kInvalidArgument;
  const size_t size = type_size(t), per_round = kSlotBytes / size;
  for (size_t done = 0; done < n; done += per_round) {  /* slot-sized rounds */
    size_t count = n - done < per_round ? n - done : per_round;
    memcpy(c->slots + (size_t)c->rank * kSlotBytes, s + done * size, count * size);
    int e = barrier(c);
    if (e == kSuccess) sum_slots(c, r + done * size, count, t);
    if (e == kSuccess) e = barrier(c);  /* nobody refills a slot that a peer still reads */
    if (e != kSuccess) return e;
  }
  return kSuccess;
}
int ncclAllReduce(const void* s, void* r, size_t n, int t, int op, void* c, void* st) {
  (void)st;
  int e = kSuccess;
  if (many(c)) {
    e = all_reduce_many(s, r, n, t, op, c);
  } else {
    if (!type_size(t)) return kInvalidArgument;
    copy(s, r, n * type_size(t));
  }
#ifdef FAKE_NCCL_WRONG
  if (e == kSuccess && n && t == 7) ((float*)r)[0] += 1.0f;
  else if (e == kSuccess && n) ((unsigned char*)r)[0] ^= 1;
#endif
  (void)op;
  return e;
}
int ncclAllGather(const void* s, void* r, size_t n, int t, void* c, void* st) {
  (void)st;
  if (many(c) || !type_size(t)) return kInvalidArgument;
  copy(s, r, n * type_size(t));
  return 0;
}
int ncclReduceScatter(const void* s, void* r, size_t n, int t, int op, void* c, void* st) {
  (void)op; (void)st;
  if (many(c) || !type_size(t)) return kInvalidArgument;
  copy(s, r, n * type_size(t));
  return 0;
}
int ncclBroadcast(const void* s, void* r, size_t n, int t, int root, void* c, void* st) {
  (void)root; (void)st;
  if (many(c) || !type_size(t)) return kInvalidArgument;
  copy(s, r, n * type_size(t));
  return 0;
}
int ncclReduce(const void* s, void* r, size_t n, int t, int op, int root, void* c, void* st) {
  (void)op; (void)root; (void)st;
  if (many(c) || !type_size(t)) return kInvalidArgument;
  copy(s, r, n * type_size(t));
  return 0;
}
static void pair_up(void) {
  if (g_send && g_recv) copy(g_send, g_recv, g_send_n < g_recv_n ? g_send_n : g_recv_n);
  g_send = 0;
  g_recv = 0;
}
int ncclSend(const void* s, size_t n, int t, int peer, void* c, void* st) {
  (void)peer; (void)st;
  if (many(c) || !type_size(t)) return kInvalidArgument;
  g_send = s; g_send_n = n * type_size(t);
  if (!g_group) pair_up();
  return 0;
}
int ncclRecv(void* r, size_t n, int t, int peer, void* c, void* st) {
  (void)peer; (void)st;
  if (many(c) || !type_size(t)) return kInvalidArgument;
  g_recv = r; g_recv_n = n * type_size(t);
  if (!g_group) pair_up();
  return 0;
}
int ncclGroupStart(void) { ++g_group; return 0; }
int ncclGroupEnd(void) {
  if (--g_group == 0) pair_up();
  return 0;
}
