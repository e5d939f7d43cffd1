/* Holds every packet of one NFQUEUE for DELAY +- JITTER milliseconds, then accepts it:
 * the kernel here has no netem, and this gives one fake host a slow network.
 * usage: nfq_delay QUEUE DELAY_MS [JITTER_MS]   (prints "bound" once ready) */
#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CAP 65536
struct held { uint32_t id; struct timespec due; };
static struct {
  struct held ring[CAP];
  unsigned head, tail;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct nfq_q_handle* q;
  double delay_ms, jitter_ms;
} S = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static struct timespec add_ms(struct timespec t, double ms) {
  long ns = t.tv_nsec + (long)(ms * 1e6);
  t.tv_sec += ns / 1000000000L;
  t.tv_nsec = ns % 1000000000L;
  if (t.tv_nsec < 0) { t.tv_nsec += 1000000000L; t.tv_sec -= 1; }
  return t;
}

static int on_packet(struct nfq_q_handle* q, struct nfgenmsg* m, struct nfq_data* d, void* u) {
  (void)m; (void)u;
  struct nfqnl_msg_packet_hdr* h = nfq_get_msg_packet_hdr(d);
  uint32_t id = h ? ntohl(h->packet_id) : 0;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  double j = S.jitter_ms > 0 ? ((double)rand() / RAND_MAX * 2 - 1) * S.jitter_ms : 0;
  pthread_mutex_lock(&S.mu);
  if (S.tail - S.head >= CAP) { /* full: let it through rather than stall the host */
    pthread_mutex_unlock(&S.mu);
    return nfq_set_verdict(q, id, NF_ACCEPT, 0, NULL);
  }
  /* FIFO order with a non-decreasing due time keeps TCP from seeing reordering. */
  struct timespec due = add_ms(now, S.delay_ms + j);
  if (S.tail != S.head) {
    struct timespec last = S.ring[(S.tail - 1) % CAP].due;
    if (due.tv_sec < last.tv_sec || (due.tv_sec == last.tv_sec && due.tv_nsec < last.tv_nsec)) due = last;
  }
  S.ring[S.tail % CAP] = (struct held){id, due};
  S.tail++;
  pthread_cond_signal(&S.cv);
  pthread_mutex_unlock(&S.mu);
  return 0;
}

static void* releaser(void* u) {
  (void)u;
  pthread_mutex_lock(&S.mu);
  for (;;) {
    while (S.head == S.tail) pthread_cond_wait(&S.cv, &S.mu);
    struct held h = S.ring[S.head % CAP];
    pthread_mutex_unlock(&S.mu);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &h.due, NULL);
    nfq_set_verdict(S.q, h.id, NF_ACCEPT, 0, NULL);
    pthread_mutex_lock(&S.mu);
    S.head++;
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s QUEUE DELAY_MS [JITTER_MS]\n", argv[0]); return 2; }
  int qn = atoi(argv[1]);
  S.delay_ms = atof(argv[2]);
  S.jitter_ms = argc > 3 ? atof(argv[3]) : 0;
  struct nfq_handle* h = nfq_open();
  if (!h) { perror("nfq_open"); return 1; }
  nfq_unbind_pf(h, AF_INET);
  if (nfq_bind_pf(h, AF_INET) < 0) { perror("nfq_bind_pf"); return 1; }
  S.q = nfq_create_queue(h, (uint16_t)qn, &on_packet, NULL);
  if (!S.q) { perror("nfq_create_queue"); return 1; }
  if (nfq_set_mode(S.q, NFQNL_COPY_META, 0) < 0) { perror("nfq_set_mode"); return 1; }
  nfq_set_queue_maxlen(S.q, CAP);
  pthread_t t;
  pthread_create(&t, NULL, releaser, NULL);
  printf("bound queue %d delay %.3f ms jitter %.3f ms\n", qn, S.delay_ms, S.jitter_ms);
  fflush(stdout);
  int fd = nfq_fd(h);
  char buf[65536] __attribute__((aligned));
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0) { if (errno == ENOBUFS || errno == EINTR) continue; perror("recv"); return 1; }
    nfq_handle_packet(h, buf, (int)n);
  }
}
