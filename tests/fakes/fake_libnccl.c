/* A stand-in for libnccl.so.2, built only for tests: a communicator of one rank, where every
 * collective is a copy (what NCCL computes for one rank) and send/recv to self pair up at
 * ncclGroupEnd. ncclCommInitRank with more than one rank fails as a real NCCL does without
 * its peers. FAKE_NCCL_WRONG: all_reduce adds 1 to element 0, so the data check must see it. */
#include <stdint.h>
#include <string.h>

typedef struct { char internal[128]; } ncclUniqueId;
static int g_comm;
static const void* g_send;
static size_t g_send_n;
static void* g_recv;
static size_t g_recv_n;
static int g_group;

int ncclGetVersion(int* v) { *v = 21903; return 0; }
int ncclGetUniqueId(ncclUniqueId* id) { memset(id, 7, sizeof *id); return 0; }
int ncclCommInitRank(void** c, int n, ncclUniqueId id, int r) {
  (void)id;
  if (n != 1 || r != 0) return 2; /* ncclSystemError */
  *c = &g_comm;
  return 0;
}
int ncclCommDestroy(void* c) { (void)c; return 0; }
int ncclCommAbort(void* c) { (void)c; return 0; }
int ncclCommGetAsyncError(void* c, int* e) { (void)c; *e = 0; return 0; }
const char* ncclGetErrorString(int r) { return r == 2 ? "unhandled system error" : "fake error"; }
static void copy(const void* s, void* r, size_t n) {
  if (s != r) memmove(r, s, n * 4);
}
int ncclAllReduce(const void* s, void* r, size_t n, int t, int op, void* c, void* st) {
  (void)t; (void)op; (void)c; (void)st;
  copy(s, r, n);
#ifdef FAKE_NCCL_WRONG
  if (n) ((float*)r)[0] += 1.0f;
#endif
  return 0;
}
int ncclAllGather(const void* s, void* r, size_t n, int t, void* c, void* st) { (void)t; (void)c; (void)st; copy(s, r, n); return 0; }
int ncclReduceScatter(const void* s, void* r, size_t n, int t, int op, void* c, void* st) {
  (void)t; (void)op; (void)c; (void)st;
  copy(s, r, n);
  return 0;
}
int ncclBroadcast(const void* s, void* r, size_t n, int t, int root, void* c, void* st) {
  (void)t; (void)root; (void)c; (void)st;
  copy(s, r, n);
  return 0;
}
int ncclReduce(const void* s, void* r, size_t n, int t, int op, int root, void* c, void* st) {
  (void)t; (void)op; (void)root; (void)c; (void)st;
  copy(s, r, n);
  return 0;
}
static void pair_up(void) {
  if (g_send && g_recv) copy(g_send, g_recv, g_send_n < g_recv_n ? g_send_n : g_recv_n);
  g_send = 0;
  g_recv = 0;
}
int ncclSend(const void* s, size_t n, int t, int peer, void* c, void* st) {
  (void)t; (void)peer; (void)c; (void)st;
  g_send = s; g_send_n = n;
  if (!g_group) pair_up();
  return 0;
}
int ncclRecv(void* r, size_t n, int t, int peer, void* c, void* st) {
  (void)t; (void)peer; (void)c; (void)st;
  g_recv = r; g_recv_n = n;
  if (!g_group) pair_up();
  return 0;
}
int ncclGroupStart(void) { ++g_group; return 0; }
int ncclGroupEnd(void) {
  if (--g_group == 0) pair_up();
  return 0;
}
