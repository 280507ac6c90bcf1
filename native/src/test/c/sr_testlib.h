/* Shared by the C tests and the ping-pong measurement: a context with its progress thread, and
 * per-endpoint state the callbacks fill in. */
#ifndef SR_TESTLIB_H
#define SR_TESTLIB_H
#pragma GCC diagnostic ignored "-Wunused-function"

#define _GNU_SOURCE
#include "strata_rdma.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct tnode tnode;

enum { MODE_COLLECT = 0, MODE_ECHO = 1 };

/* One endpoint's view for the tests. */
typedef struct tep {
  pthread_mutex_t m;
  pthread_cond_t c;
  tnode *node;
  sr_ep *ep;
  int mode;
  int established, closed, close_code;
  int released;       /* on_released calls (its teardown) */
  int released_before_close; /* on_released came before on_close */
  char cause[512];
  uint64_t msgs, bytes;
  uint32_t next_seq;  /* expected sequence number of the next message */
  int bad;            /* messages out of order or corrupt */
  int echo_failures;
  int sleep_us;       /* delay per message in the callback (slow receiver) */
  void (*hook)(struct tep *t, const void *data, uint32_t len); /* optional, e.g. ping-pong */
  void *hook_arg;
} tep;

struct tnode {
  sr_ctx *ctx;
  pthread_t thread;
  /* listener policy */
  int reject;
  int accept_mode;
  int accept_sleep_us;
  pthread_mutex_t m;
  pthread_cond_t c;
  tep *accepted[64];
  int naccepted;
  uint8_t last_pdata[64];
  uint32_t last_pdata_len;
};

static uint64_t tl_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static tep *tep_new(tnode *n, int mode) {
  tep *t = calloc(1, sizeof *t);
  pthread_mutex_init(&t->m, NULL);
  pthread_cond_init(&t->c, NULL);
  t->node = n;
  t->mode = mode;
  return t;
}

/* Frees a test endpoint's state: only once no callback can reach it any more, that is after its
 * context was stopped, or after its on_released (which the runtime calls after on_close, even
 * after the user's sr_ep_release). */
static void tep_free(tep *t) {
  if (!t) return;
  pthread_mutex_destroy(&t->m);
  pthread_cond_destroy(&t->c);
  free(t);
}

/* Test payload: 4-byte sequence number, then bytes derived from it. */
static void fill_msg(uint8_t *p, uint32_t len, uint32_t seq) {
  if (len >= 4) memcpy(p, &seq, 4);
  for (uint32_t i = 4; i < len; i++) p[i] = (uint8_t)(seq * 31 + i);
}

static int check_msg(const uint8_t *p, uint32_t len, uint32_t *seq_out) {
  uint32_t seq = 0;
  if (len >= 4) memcpy(&seq, p, 4);
  for (uint32_t i = 4; i < len; i++)
    if (p[i] != (uint8_t)(seq * 31 + i)) return 0;
  *seq_out = seq;
  return 1;
}

static void cb_message(sr_ep *ep, void *user, const void *data, uint32_t len, int region,
                       uint32_t offset) {
  tep *t = user;
  if (t->hook) {
    t->hook(t, data, len);
    return;
  }
  if (t->sleep_us) usleep((useconds_t)t->sleep_us);
  uint32_t seq = 0;
  int ok = len < 4 || check_msg(data, len, &seq);
  pthread_mutex_lock(&t->m);
  if (!ok || (len >= 4 && seq != t->next_seq)) t->bad++;
  if (len >= 4) t->next_seq = seq + 1;
  t->msgs++;
  t->bytes += len;
  pthread_cond_broadcast(&t->c);
  pthread_mutex_unlock(&t->m);
  if (t->mode == MODE_ECHO) {
    int rc = sr_ep_send(ep, data, len);
    if (rc) {
      fprintf(stderr, "  echo failed: %s\n", sr_last_error());
      t->echo_failures++;
    }
  }
}

static void cb_close(sr_ep *ep, void *user, int code, const char *cause) {
  tep *t = user;
  pthread_mutex_lock(&t->m);
  t->closed++;
  t->close_code = code;
  snprintf(t->cause, sizeof t->cause, "%s", cause ? cause : "");
  pthread_cond_broadcast(&t->c);
  pthread_mutex_unlock(&t->m);
}

static void *cb_request(sr_listener *l, void *luser, sr_ep *ep, const struct sockaddr *peer,
                        const void *pdata, uint32_t len) {
  tnode *n = luser;
  pthread_mutex_lock(&n->m);
  memcpy(n->last_pdata, pdata, len);
  n->last_pdata_len = len;
  if (n->reject || n->naccepted == 64) {
    pthread_mutex_unlock(&n->m);
    return NULL;
  }
  tep *t = tep_new(n, n->accept_mode);
  t->ep = ep;
  t->sleep_us = n->accept_sleep_us;
  sr_ep_retain(ep);
  n->accepted[n->naccepted++] = t;
  pthread_cond_broadcast(&n->c);
  pthread_mutex_unlock(&n->m);
  return t;
}

static void cb_established(sr_ep *ep, void *user) {
  tep *t = user;
  pthread_mutex_lock(&t->m);
  t->established = 1;
  pthread_cond_broadcast(&t->c);
  pthread_mutex_unlock(&t->m);
}

static void cb_released(sr_ep *ep, void *user) {
  tep *t = user;
  pthread_mutex_lock(&t->m);
  if (t->closed == 0) t->released_before_close++;
  t->released++;
  pthread_cond_broadcast(&t->c);
  pthread_mutex_unlock(&t->m);
}

static const sr_callbacks test_callbacks = {cb_message, cb_close, cb_request, cb_established,
                                            cb_released};

static void *node_thread(void *arg) {
  tnode *n = arg;
  sr_ctx_run(n->ctx);
  return NULL;
}

static tnode *node_start(const sr_config *cfg, unsigned flags, int *rc_out) {
  tnode *n = calloc(1, sizeof *n);
  pthread_mutex_init(&n->m, NULL);
  pthread_cond_init(&n->c, NULL);
  int rc = sr_ctx_create(cfg, &test_callbacks, flags, &n->ctx);
  if (rc_out) *rc_out = rc;
  if (rc) {
    free(n);
    return NULL;
  }
  pthread_create(&n->thread, NULL, node_thread, n);
  return n;
}

static void node_stop(tnode *n) {
  if (!n) return;
  sr_ctx_stop(n->ctx);
  pthread_join(n->thread, NULL);
  sr_ctx_destroy(n->ctx);
  for (int i = 0; i < n->naccepted; i++) {
    sr_ep_release(n->accepted[i]->ep);
    tep_free(n->accepted[i]);
  }
  free(n);
}

/* Waits until *field (under t->m) reaches `want`, up to ms. */
static int tep_wait(tep *t, volatile int *field, int want, int ms) {
  uint64_t end = tl_now_ns() + (uint64_t)ms * 1000000ull;
  pthread_mutex_lock(&t->m);
  while (*field < want && tl_now_ns() < end) {
    pthread_mutex_unlock(&t->m);
    usleep(1000);
    pthread_mutex_lock(&t->m);
  }
  int ok = *field >= want;
  pthread_mutex_unlock(&t->m);
  return ok;
}

static int tep_wait_msgs(tep *t, uint64_t want, int ms) {
  uint64_t end = tl_now_ns() + (uint64_t)ms * 1000000ull;
  pthread_mutex_lock(&t->m);
  while (t->msgs < want && tl_now_ns() < end) {
    pthread_mutex_unlock(&t->m);
    usleep(200);
    pthread_mutex_lock(&t->m);
  }
  int ok = t->msgs >= want;
  pthread_mutex_unlock(&t->m);
  return ok;
}

static tep *node_wait_accepted(tnode *n, int idx, int ms) {
  uint64_t end = tl_now_ns() + (uint64_t)ms * 1000000ull;
  pthread_mutex_lock(&n->m);
  while (n->naccepted <= idx && tl_now_ns() < end) {
    pthread_mutex_unlock(&n->m);
    usleep(1000);
    pthread_mutex_lock(&n->m);
  }
  tep *t = n->naccepted > idx ? n->accepted[idx] : NULL;
  pthread_mutex_unlock(&n->m);
  return t;
}

/* Listens on `addr` at a port the system picks (backlog 16) and writes that port into addr. */
static int node_listen(tnode *n, struct sockaddr_in *addr, sr_listener **out) {
  addr->sin_port = 0;
  int rc = sr_listen(n->ctx, (struct sockaddr *)addr, 16, n, out);
  if (rc) return rc;
  struct sockaddr_storage ss;
  sr_listener_addr(*out, &ss);
  addr->sin_port = ((struct sockaddr_in *)&ss)->sin_port;
  return 0;
}

/* An IPv4 address of this machine that an RDMA device serves ($STRATA_RDMA_ADDR wins): the
 * first non-loopback interface address rdma_cm can bind to a device. */
static int find_rdma_addr(struct sockaddr_in *out) {
  const char *env = getenv("STRATA_RDMA_ADDR");
  memset(out, 0, sizeof *out);
  out->sin_family = AF_INET;
  if (env && *env) return inet_pton(AF_INET, env, &out->sin_addr) == 1 ? 0 : -1;
  struct rdma_event_channel *ch = rdma_create_event_channel();
  if (!ch) return -1;
  struct ifaddrs *ifs, *i;
  int found = -1;
  if (getifaddrs(&ifs) == 0) {
    for (i = ifs; i && found; i = i->ifa_next) {
      if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK))
        continue;
      struct rdma_cm_id *id;
      if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0) break;
      struct sockaddr_in a = *(struct sockaddr_in *)i->ifa_addr;
      a.sin_port = 0;
      if (rdma_bind_addr(id, (struct sockaddr *)&a) == 0 && id->verbs) {
        *out = a;
        found = 0;
      }
      rdma_destroy_id(id);
    }
    freeifaddrs(ifs);
  }
  rdma_destroy_event_channel(ch);
  return found;
}

#endif
