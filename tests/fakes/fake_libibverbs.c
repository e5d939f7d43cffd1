/* A fake libibverbs for the tests: exactly the verbs probes/rdma/verbs_transport.cpp resolves
 * (ibv_get_device_list, ibv_free_device_list, ibv_get_device_name, ibv_open_device,
 * ibv_close_device, ibv_query_port (the compat symbol), ibv_query_gid, ibv_alloc_pd,
 * ibv_dealloc_pd, ibv_reg_mr, ibv_dereg_mr, ibv_create_cq, ibv_destroy_cq, ibv_create_qp,
 * ibv_destroy_qp, ibv_modify_qp) plus the two inline verbs it calls through the context's ops
 * table (ibv_post_send, ibv_poll_cq). Loaded by path through GPUACCEPT_VERBS_LIBRARY, never
 * through LD_LIBRARY_PATH, so Open MPI's own verbs components never see it.
 *
 * How the data moves. Devices and ports are the recorded sysfs tree the test points the probe
 * at (GPUACCEPT_SYSFS_ROOT: /sys/class/infiniband/DEV, port state, MTU, LID, link layer); no
 * root means no devices (NULL with ENOSYS, as on a machine without RDMA). Every QP listens on
 * a TCP port of this host's first non-loopback IPv4 address (a fake host's 10.231.0.N), and
 * reports that port as its QP number and the host's address as GID 0 (an IPv4-mapped GID, as
 * RoCE v2 GIDs are), so the probe's own out-of-band exchange over MPI carries everything a
 * peer needs. Modify to RTR connects to the peer's listener (dgid + dest_qp_num). An
 * RDMA_WRITE sends a header {remote_addr, rkey, length} and the gathered bytes; the peer's
 * receiver thread checks rkey, bounds and REMOTE_WRITE access against its registered MRs,
 * receives the bytes straight into the registered memory (in order: the last byte lands last,
 * as the probe's ping-pong expects), and acknowledges; the initiator's ibv_poll_cq turns the
 * acknowledgements into completions (RC: a completion means the data was placed remotely), or
 * into error completions (remote access error, retry exceeded when the peer is gone).
 *
 * What it proves: the RC queue-pair protocol as the probe drives it (the QP state machine with
 * the attribute masks the probe passes, address exchange, the send window against
 * max_send_wr, signaled completions, ping-pong on the last byte, the target's data check), and
 * the probe's handling of completions and errors. What it cannot: adapter firmware, the
 * kernel driver, GPUDirect (GPU memory is refused), real link behaviour (credits, congestion,
 * PSN retries): its bandwidth and latency are TCP's over the fake hosts' veth, never a port's.
 *
 * Error knobs: FAKE_VERBS_FAIL_RTS=HOST[,HOST]: modify QP to RTS fails with EINVAL on those
 * hosts (gethostname).
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#undef ibv_reg_mr
#undef ibv_query_port

#define FAKE_MAX_DEVS 64

/* ---------------------------------------------------------------- devices (from sysfs) */

static struct ibv_device g_devs[FAKE_MAX_DEVS];
static char g_dev_dirs[FAKE_MAX_DEVS][4096];  /* ibdev_path holds 256 bytes; a test root may be longer */
static int g_ndevs = -1;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static const char* sysfs_root(void) { return getenv("GPUACCEPT_SYSFS_ROOT"); }

static int cmp_names(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

static int load_devices(void) {
  if (g_ndevs >= 0) return g_ndevs;
  const char* root = sysfs_root();
  if (!root) return -1;
  char path[3800];
  snprintf(path, sizeof path, "%.3700s/sys/class/infiniband", root);
  DIR* d = opendir(path);
  g_ndevs = 0;
  if (!d) return 0;
  char* names[FAKE_MAX_DEVS];
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) && n < FAKE_MAX_DEVS)
    if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], cmp_names);
  for (int i = 0; i < n; ++i) {
    struct ibv_device* dev = &g_devs[i];
    memset(dev, 0, sizeof *dev);
    snprintf(dev->name, sizeof dev->name, "%s", names[i]);
    snprintf(dev->dev_name, sizeof dev->dev_name, "uverbs%d", i);
    snprintf(g_dev_dirs[i], sizeof g_dev_dirs[i], "%s/%s", path, names[i]);
    snprintf(dev->ibdev_path, sizeof dev->ibdev_path, "%.200s", g_dev_dirs[i]);
    dev->node_type = IBV_NODE_CA;
    dev->transport_type = IBV_TRANSPORT_IB;
    free(names[i]);
  }
  g_ndevs = n;
  return n;
}

struct ibv_device** ibv_get_device_list(int* num_devices) {
  pthread_mutex_lock(&g_lock);
  int n = load_devices();
  pthread_mutex_unlock(&g_lock);
  if (n < 0) {
    errno = ENOSYS;
    if (num_devices) *num_devices = 0;
    return NULL;
  }
  struct ibv_device** list = calloc((size_t)n + 1, sizeof *list);
  if (!list) {
    errno = ENOMEM;
    return NULL;
  }
  for (int i = 0; i < n; ++i) list[i] = &g_devs[i];
  if (num_devices) *num_devices = n;
  return list;
}

/* The devices stay alive after the list is freed (contexts keep pointing at them). */
void ibv_free_device_list(struct ibv_device** list) { free(list); }

const char* ibv_get_device_name(struct ibv_device* device) { return device ? device->name : NULL; }

/* Reads DEV/ports/N/FILE into buf; 0 on success. */
static int read_port_file(struct ibv_context* ctx, int port, const char* file, char* buf, size_t len) {
  char path[4096];
  const long i = ctx->device - g_devs;
  if (i < 0 || i >= g_ndevs) return -1;
  snprintf(path, sizeof path, "%.3900s/ports/%d/%.64s", g_dev_dirs[i], port, file);
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, len - 1, f);
  fclose(f);
  buf[n] = 0;
  return 0;
}

/* ---------------------------------------------------------------- objects */

struct fake_mr {
  struct ibv_mr mr;
  int access;
  struct fake_mr* next;
};
static struct fake_mr* g_mrs;  /* every registered MR of the process, under g_lock */
static uint32_t g_next_key = 0x1000;

struct fake_qp;
#define FAKE_CQ_QPS 16
#define FAKE_CQ_LOCAL 256
struct fake_cq {
  struct ibv_cq cq;
  struct fake_qp* qps[FAKE_CQ_QPS];  /* QPs whose send queue completes here */
  struct ibv_wc local[FAKE_CQ_LOCAL];  /* completions made at post time (errors) */
  int nlocal;
};

/* Initiator -> target: one RDMA write; target -> initiator: one acknowledgement. */
struct wire_write {
  uint32_t magic, opcode;
  uint64_t remote_addr;
  uint32_t rkey, length, imm, pad;
};
struct wire_ack {
  uint32_t magic, status;
};
#define FAKE_MAGIC 0x66616b65u

struct fake_qp {
  struct ibv_qp qp;
  int listen_fd, in_fd, out_fd;
  pthread_t rx;
  int rx_started, closing; /* closing and in_fd: under qp.mutex (the receiver sets in_fd) */
  uint32_t max_send_wr;
  int sq_sig_all;
  /* the send queue: wr_ids and flags of writes not acknowledged yet (a ring) */
  uint64_t* ring_id;
  int* ring_sig;
  uint32_t head, count;
  unsigned char ackbuf[sizeof(struct wire_ack)];
  size_t ackfill;
};

static int send_all(int fd, const void* p, size_t n) {
  const char* c = p;
  while (n) {
    ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    c += k;
    n -= (size_t)k;
  }
  return 0;
}
static int recv_all(int fd, void* p, size_t n) {
  char* c = p;
  while (n) {
    ssize_t k = recv(fd, c, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    c += k;
    n -= (size_t)k;
  }
  return 0;
}

static struct in_addr local_ipv4(void) {
  struct in_addr a;
  a.s_addr = htonl(INADDR_LOOPBACK);
  struct ifaddrs* ifs = NULL;
  if (getifaddrs(&ifs) != 0) return a;
  for (struct ifaddrs* i = ifs; i; i = i->ifa_next)
    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET) {
      struct in_addr x = ((struct sockaddr_in*)i->ifa_addr)->sin_addr;
      if ((ntohl(x.s_addr) >> 24) != 127) {
        a = x;
        break;
      }
    }
  freeifaddrs(ifs);
  return a;
}

struct ibv_context* ibv_open_device(struct ibv_device* device);
static int fake_poll_cq(struct ibv_cq* cq, int n, struct ibv_wc* wc);
static int fake_post_send(struct ibv_qp* qp, struct ibv_send_wr* wr, struct ibv_send_wr** bad);
static int fake_post_recv(struct ibv_qp* qp, struct ibv_recv_wr* wr, struct ibv_recv_wr** bad) {
  (void)qp;
  *bad = wr;
  return EOPNOTSUPP;  /* the probe posts no receives (RDMA write needs none) */
}

struct ibv_context* ibv_open_device(struct ibv_device* device) {
  if (!device) {
    errno = ENODEV;
    return NULL;
  }
  struct ibv_context* c = calloc(1, sizeof *c);
  if (!c) {
    errno = ENOMEM;
    return NULL;
  }
  c->device = device;
  c->cmd_fd = -1;
  c->async_fd = -1;
  c->num_comp_vectors = 1;
  c->abi_compat = NULL; /* not an extended context: ibv_query_port takes the compat symbol */
  c->ops.poll_cq = fake_poll_cq;
  c->ops.post_send = fake_post_send;
  c->ops.post_recv = fake_post_recv;
  pthread_mutex_init(&c->mutex, NULL);
  return c;
}

int ibv_close_device(struct ibv_context* context) {
  free(context);
  return 0;
}

/* The probe passes a full struct ibv_port_attr (zeroed); the compat layout is its prefix. */
int ibv_query_port(struct ibv_context* context, uint8_t port_num, struct _compat_ibv_port_attr* compat) {
  struct ibv_port_attr* a = (struct ibv_port_attr*)compat;
  char buf[256];
  if (read_port_file(context, port_num, "state", buf, sizeof buf) != 0) return EINVAL;
  a->state = (enum ibv_port_state)atoi(buf); /* "4: ACTIVE" */
  a->max_mtu = IBV_MTU_4096;
  a->active_mtu = IBV_MTU_4096;
  if (read_port_file(context, port_num, "active_mtu", buf, sizeof buf) == 0) {
    int v = atoi(buf);
    a->active_mtu = v == 256 ? IBV_MTU_256 : v == 512 ? IBV_MTU_512 : v == 1024 ? IBV_MTU_1024
                  : v == 2048 ? IBV_MTU_2048 : v >= 1 && v <= 5 ? (enum ibv_mtu)v : IBV_MTU_4096;
  }
  a->lid = 0;
  if (read_port_file(context, port_num, "lid", buf, sizeof buf) == 0) a->lid = (uint16_t)strtoul(buf, NULL, 0);
  a->phys_state = 5;
  if (read_port_file(context, port_num, "phys_state", buf, sizeof buf) == 0) a->phys_state = (uint8_t)atoi(buf);
  a->link_layer = IBV_LINK_LAYER_INFINIBAND;
  if (read_port_file(context, port_num, "link_layer", buf, sizeof buf) == 0 && strncmp(buf, "Ethernet", 8) == 0)
    a->link_layer = IBV_LINK_LAYER_ETHERNET;
  a->gid_tbl_len = 16;
  a->pkey_tbl_len = 1;
  a->max_msg_sz = 1u << 31;
  return 0;
}

/* Every index is this host's IPv4 address as an IPv4-mapped GID (::ffff:a.b.c.d). */
int ibv_query_gid(struct ibv_context* context, uint8_t port_num, int index, union ibv_gid* gid) {
  char buf[64];
  if (read_port_file(context, port_num, "state", buf, sizeof buf) != 0 || index < 0 || index >= 16) return EINVAL;
  memset(gid, 0, sizeof *gid);
  gid->raw[10] = gid->raw[11] = 0xff;
  struct in_addr a = local_ipv4();
  memcpy(gid->raw + 12, &a.s_addr, 4);
  return 0;
}

struct ibv_pd* ibv_alloc_pd(struct ibv_context* context) {
  struct ibv_pd* pd = calloc(1, sizeof *pd);
  if (!pd) {
    errno = ENOMEM;
    return NULL;
  }
  pd->context = context;
  pd->handle = 1;
  return pd;
}

int ibv_dealloc_pd(struct ibv_pd* pd) {
  pthread_mutex_lock(&g_lock);
  for (struct fake_mr* m = g_mrs; m; m = m->next)
    if (m->mr.pd == pd) {
      pthread_mutex_unlock(&g_lock);
      return EBUSY; /* MRs still registered on it */
    }
  pthread_mutex_unlock(&g_lock);
  free(pd);
  return 0;
}

struct ibv_mr* ibv_reg_mr(struct ibv_pd* pd, void* addr, size_t length, int access) {
  if (!pd || !addr || length == 0) {
    errno = EINVAL;
    return NULL;
  }
  struct fake_mr* m = calloc(1, sizeof *m);
  if (!m) {
    errno = ENOMEM;
    return NULL;
  }
  m->mr.context = pd->context;
  m->mr.pd = pd;
  m->mr.addr = addr;
  m->mr.length = length;
  m->access = access;
  pthread_mutex_lock(&g_lock);
  m->mr.lkey = m->mr.rkey = g_next_key++;
  m->next = g_mrs;
  g_mrs = m;
  pthread_mutex_unlock(&g_lock);
  return &m->mr;
}

int ibv_dereg_mr(struct ibv_mr* mr) {
  pthread_mutex_lock(&g_lock);
  for (struct fake_mr** p = &g_mrs; *p; p = &(*p)->next)
    if (&(*p)->mr == mr) {
      struct fake_mr* m = *p;
      *p = m->next;
      pthread_mutex_unlock(&g_lock);
      free(m);
      return 0;
    }
  pthread_mutex_unlock(&g_lock);
  return EINVAL;
}

/* Is [addr, addr+len) inside an MR with this key and these access rights? (under g_lock) */
static int mr_covers(uint32_t key, uint64_t addr, uint64_t len, int need_access) {
  for (struct fake_mr* m = g_mrs; m; m = m->next) {
    if (m->mr.rkey != key) continue;
    const uint64_t lo = (uint64_t)(uintptr_t)m->mr.addr;
    return addr >= lo && addr + len <= lo + m->mr.length && (m->access & need_access) == need_access;
  }
  return 0;
}

struct ibv_cq* ibv_create_cq(struct ibv_context* context, int cqe, void* cq_context, struct ibv_comp_channel* channel,
                             int comp_vector) {
  (void)comp_vector;
  if (cqe <= 0 || channel) {
    errno = EINVAL; /* no completion channels in the fake */
    return NULL;
  }
  struct fake_cq* c = calloc(1, sizeof *c);
  if (!c) {
    errno = ENOMEM;
    return NULL;
  }
  c->cq.context = context;
  c->cq.cq_context = cq_context;
  c->cq.cqe = cqe;
  return &c->cq;
}

int ibv_destroy_cq(struct ibv_cq* cq) {
  struct fake_cq* c = (struct fake_cq*)cq;
  for (int i = 0; i < FAKE_CQ_QPS; ++i)
    if (c->qps[i]) return EBUSY;
  free(c);
  return 0;
}

/* The target side of one QP: accept the peer's connection, place its writes, acknowledge. */
static void* rx_thread(void* arg) {
  struct fake_qp* q = arg;
  /* This thread stands in for the adapter placing data without the CPU. The probe spins on
   * the CPU (polling the CQ, polling the last byte), and on an oversubscribed test machine
   * the receiver would otherwise wait a scheduler tick (4 ms) behind it: ask for real-time
   * priority (it blocks in recv, so it never starves anyone); without the privilege, carry on. */
  struct sched_param sp = {.sched_priority = 1};
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
  int fd = accept(q->listen_fd, NULL, NULL);
  if (fd < 0) return NULL;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  pthread_mutex_lock(&q->qp.mutex);
  q->in_fd = fd;
  const int closing = q->closing;
  pthread_mutex_unlock(&q->qp.mutex);
  if (closing) return NULL;
  char sink[65536];
  for (;;) {
    struct wire_write w;
    if (recv_all(fd, &w, sizeof w) != 0 || w.magic != FAKE_MAGIC) break;
    pthread_mutex_lock(&g_lock);
    const int ok = mr_covers(w.rkey, w.remote_addr, w.length, IBV_ACCESS_REMOTE_WRITE);
    pthread_mutex_unlock(&g_lock);
    int rc;
    if (ok) {
      rc = recv_all(fd, (void*)(uintptr_t)w.remote_addr, w.length);
    } else {
      rc = 0;
      for (uint32_t left = w.length; left && rc == 0;) {
        uint32_t k = left < sizeof sink ? left : (uint32_t)sizeof sink;
        rc = recv_all(fd, sink, k);
        left -= k;
      }
    }
    if (rc != 0) break;
    struct wire_ack a = {FAKE_MAGIC, ok ? IBV_WC_SUCCESS : IBV_WC_REM_ACCESS_ERR};
    if (send_all(fd, &a, sizeof a) != 0) break;
  }
  return NULL;
}

static void cq_attach(struct fake_cq* c, struct fake_qp* q, int on) {
  for (int i = 0; i < FAKE_CQ_QPS; ++i)
    if (on ? c->qps[i] == NULL : c->qps[i] == q) {
      c->qps[i] = on ? q : NULL;
      return;
    }
}

struct ibv_qp* ibv_create_qp(struct ibv_pd* pd, struct ibv_qp_init_attr* init) {
  if (!pd || !init || init->qp_type != IBV_QPT_RC || !init->send_cq || !init->recv_cq || init->srq ||
      init->cap.max_send_wr == 0 || init->cap.max_send_wr > 4096 || init->cap.max_send_sge > 4 ||
      init->cap.max_inline_data > 256) {
    errno = EINVAL;
    return NULL;
  }
  struct fake_cq* c = (struct fake_cq*)init->send_cq;
  int slot = 0;
  for (int i = 0; i < FAKE_CQ_QPS; ++i) slot += c->qps[i] == NULL;
  if (!slot) {
    errno = ENOMEM;
    return NULL;
  }
  struct fake_qp* q = calloc(1, sizeof *q);
  if (!q) {
    errno = ENOMEM;
    return NULL;
  }
  q->in_fd = q->out_fd = -1;
  q->max_send_wr = init->cap.max_send_wr;
  q->sq_sig_all = init->sq_sig_all;
  q->ring_id = calloc(q->max_send_wr, sizeof *q->ring_id);
  q->ring_sig = calloc(q->max_send_wr, sizeof *q->ring_sig);
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_addr = local_ipv4();
  sa.sin_port = 0;
  socklen_t sl = sizeof sa;
  q->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (!q->ring_id || !q->ring_sig || q->listen_fd < 0 || bind(q->listen_fd, (struct sockaddr*)&sa, sizeof sa) != 0 ||
      listen(q->listen_fd, 1) != 0 || getsockname(q->listen_fd, (struct sockaddr*)&sa, &sl) != 0) {
    int e = errno;
    if (q->listen_fd >= 0) close(q->listen_fd);
    free(q->ring_id);
    free(q->ring_sig);
    free(q);
    errno = e ? e : ENOMEM;
    return NULL;
  }
  q->qp.context = pd->context;
  q->qp.pd = pd;
  q->qp.send_cq = init->send_cq;
  q->qp.recv_cq = init->recv_cq;
  q->qp.qp_type = IBV_QPT_RC;
  q->qp.state = IBV_QPS_RESET;
  q->qp.qp_num = ntohs(sa.sin_port); /* the QP number is the TCP port it listens on */
  pthread_mutex_init(&q->qp.mutex, NULL);
  pthread_cond_init(&q->qp.cond, NULL);
  if (pthread_create(&q->rx, NULL, rx_thread, q) != 0) {
    close(q->listen_fd);
    free(q->ring_id);
    free(q->ring_sig);
    free(q);
    errno = EAGAIN;
    return NULL;
  }
  q->rx_started = 1;
  cq_attach(c, q, 1);
  return &q->qp;
}

int ibv_destroy_qp(struct ibv_qp* qp) {
  struct fake_qp* q = (struct fake_qp*)qp;
  cq_attach((struct fake_cq*)qp->send_cq, q, 0);
  if (q->out_fd >= 0) shutdown(q->out_fd, SHUT_RDWR);
  shutdown(q->listen_fd, SHUT_RDWR); /* wakes a thread still in accept() */
  pthread_mutex_lock(&qp->mutex);
  q->closing = 1;
  if (q->in_fd >= 0) shutdown(q->in_fd, SHUT_RDWR); /* wakes it in recv() */
  pthread_mutex_unlock(&qp->mutex);
  if (q->rx_started) pthread_join(q->rx, NULL);
  if (q->in_fd >= 0) close(q->in_fd);
  if (q->out_fd >= 0) close(q->out_fd);
  close(q->listen_fd);
  free(q->ring_id);
  free(q->ring_sig);
  free(q);
  return 0;
}

static int host_listed(const char* list) {
  if (!list || !*list) return 0;
  char me[256] = {0};
  gethostname(me, sizeof me - 1);
  char* dot = strchr(me, '.');
  if (dot) *dot = 0;
  char* copy = strdup(list);
  int hit = 0;
  for (char* save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
    if (strcmp(t, me) == 0) hit = 1;
  free(copy);
  return hit;
}

/* RESET -> INIT -> RTR -> RTS with the attributes ibv_modify_qp(3) requires for RC; any state
 * -> RESET or ERR. A missing attribute or a wrong transition is EINVAL, as the kernel says. */
int ibv_modify_qp(struct ibv_qp* qp, struct ibv_qp_attr* attr, int mask) {
  struct fake_qp* q = (struct fake_qp*)qp;
  if (!(mask & IBV_QP_STATE)) return EINVAL;
  const enum ibv_qp_state to = attr->qp_state;
  const int need_init = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
  const int need_rtr = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                       IBV_QP_MIN_RNR_TIMER;
  const int need_rts = IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
  char buf[64];
  switch (to) {
    case IBV_QPS_RESET:
    case IBV_QPS_ERR:
      qp->state = to;
      return 0;
    case IBV_QPS_INIT:
      if (qp->state != IBV_QPS_RESET || (mask & need_init) != need_init) return EINVAL;
      if (read_port_file(qp->context, attr->port_num, "state", buf, sizeof buf) != 0) return EINVAL;
      qp->state = IBV_QPS_INIT;
      return 0;
    case IBV_QPS_RTR: {
      if (qp->state != IBV_QPS_INIT || (mask & need_rtr) != need_rtr) return EINVAL;
      if (attr->path_mtu < IBV_MTU_256 || attr->path_mtu > IBV_MTU_4096 || attr->dest_qp_num == 0 ||
          attr->dest_qp_num > 0xffff)
        return EINVAL;
      /* The fake routes by the GID only (an IPv4-mapped GID: the peer's address). */
      const uint8_t* g = attr->ah_attr.grh.dgid.raw;
      if (!attr->ah_attr.is_global || g[10] != 0xff || g[11] != 0xff) return EINVAL;
      struct sockaddr_in sa;
      memset(&sa, 0, sizeof sa);
      sa.sin_family = AF_INET;
      memcpy(&sa.sin_addr.s_addr, g + 12, 4);
      sa.sin_port = htons((uint16_t)attr->dest_qp_num);
      int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) return errno;
      if (connect(fd, (struct sockaddr*)&sa, sizeof sa) != 0) {
        int e = errno;
        close(fd);
        return e == ECONNREFUSED ? ETIMEDOUT : e; /* no such QP on the peer */
      }
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      q->out_fd = fd;
      qp->state = IBV_QPS_RTR;
      return 0;
    }
    case IBV_QPS_RTS:
      if (qp->state != IBV_QPS_RTR || (mask & need_rts) != need_rts) return EINVAL;
      if (host_listed(getenv("FAKE_VERBS_FAIL_RTS"))) return EINVAL;
      qp->state = IBV_QPS_RTS;
      return 0;
    default:
      return EINVAL;
  }
}

static void push_local(struct fake_cq* c, uint64_t id, enum ibv_wc_status st, uint32_t qpn) {
  if (c->nlocal >= FAKE_CQ_LOCAL) return;
  struct ibv_wc* w = &c->local[c->nlocal++];
  memset(w, 0, sizeof *w);
  w->wr_id = id;
  w->status = st;
  w->opcode = IBV_WC_RDMA_WRITE;
  w->qp_num = qpn;
}

static int fake_post_send(struct ibv_qp* qp, struct ibv_send_wr* wr, struct ibv_send_wr** bad) {
  struct fake_qp* q = (struct fake_qp*)qp;
  struct fake_cq* c = (struct fake_cq*)qp->send_cq;
  for (; wr; wr = wr->next) {
    *bad = wr;
    if (qp->state == IBV_QPS_ERR) { /* posted to a QP in error: flushed, as verbs does */
      push_local(c, wr->wr_id, IBV_WC_WR_FLUSH_ERR, qp->qp_num);
      continue;
    }
    if (qp->state != IBV_QPS_RTS) return EINVAL;
    if (wr->opcode != IBV_WR_RDMA_WRITE && wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM) return EINVAL;
    if (wr->num_sge < 0 || wr->num_sge > 4) return EINVAL;
    if (q->count >= q->max_send_wr) return ENOMEM; /* the send queue is full */
    const int signaled = q->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
    uint64_t total = 0;
    int local_ok = 1;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < wr->num_sge; ++i) {
      total += wr->sg_list[i].length;
      if (!(wr->send_flags & IBV_SEND_INLINE) &&
          !mr_covers(wr->sg_list[i].lkey, wr->sg_list[i].addr, wr->sg_list[i].length, 0))
        local_ok = 0;
    }
    pthread_mutex_unlock(&g_lock);
    if (!local_ok) {
      push_local(c, wr->wr_id, IBV_WC_LOC_PROT_ERR, qp->qp_num);
      qp->state = IBV_QPS_ERR;
      continue;
    }
    struct wire_write w = {FAKE_MAGIC, (uint32_t)wr->opcode, wr->wr.rdma.remote_addr, wr->wr.rdma.rkey,
                           (uint32_t)total, wr->imm_data, 0};
    int rc = send_all(q->out_fd, &w, sizeof w);
    for (int i = 0; i < wr->num_sge && rc == 0; ++i)
      rc = send_all(q->out_fd, (const void*)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
    if (rc != 0) {
      push_local(c, wr->wr_id, IBV_WC_RETRY_EXC_ERR, qp->qp_num); /* the peer is gone */
      qp->state = IBV_QPS_ERR;
      continue;
    }
    const uint32_t slot = (q->head + q->count) % q->max_send_wr;
    q->ring_id[slot] = wr->wr_id;
    q->ring_sig[slot] = signaled;
    q->count++;
  }
  *bad = NULL;
  return 0;
}

static int fake_poll_cq(struct ibv_cq* cq, int n, struct ibv_wc* wc) {
  struct fake_cq* c = (struct fake_cq*)cq;
  int got = 0;
  while (got < n && c->nlocal > 0) {
    wc[got++] = c->local[0];
    memmove(c->local, c->local + 1, (size_t)--c->nlocal * sizeof c->local[0]);
  }
  for (int i = 0; i < FAKE_CQ_QPS && got < n; ++i) {
    struct fake_qp* q = c->qps[i];
    if (!q || q->out_fd < 0) continue;
    while (got < n && q->count > 0) {
      ssize_t k = recv(q->out_fd, q->ackbuf + q->ackfill, sizeof q->ackbuf - q->ackfill, MSG_DONTWAIT);
      if (k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        /* The peer closed: every write still outstanding fails (retry exceeded). */
        while (q->count > 0 && got < n) {
          struct ibv_wc* w = &wc[got++];
          memset(w, 0, sizeof *w);
          w->wr_id = q->ring_id[q->head];
          w->status = IBV_WC_RETRY_EXC_ERR;
          w->opcode = IBV_WC_RDMA_WRITE;
          w->qp_num = q->qp.qp_num;
          q->head = (q->head + 1) % q->max_send_wr;
          q->count--;
        }
        q->qp.state = IBV_QPS_ERR;
        break;
      }
      if (k < 0) break;
      q->ackfill += (size_t)k;
      if (q->ackfill < sizeof q->ackbuf) continue;
      q->ackfill = 0;
      struct wire_ack a;
      memcpy(&a, q->ackbuf, sizeof a);
      const uint64_t id = q->ring_id[q->head];
      const int sig = q->ring_sig[q->head];
      q->head = (q->head + 1) % q->max_send_wr;
      q->count--;
      if (a.status != IBV_WC_SUCCESS) q->qp.state = IBV_QPS_ERR;
      if (!sig && a.status == IBV_WC_SUCCESS) continue;
      struct ibv_wc* w = &wc[got++];
      memset(w, 0, sizeof *w);
      w->wr_id = id;
      w->status = (enum ibv_wc_status)a.status;
      w->opcode = IBV_WC_RDMA_WRITE;
      w->qp_num = q->qp.qp_num;
    }
  }
  return got;
}
