/*
 * Strata's RDMA endpoint runtime (see include/strata_rdma.h for the contract).
 *
 * Threads: user threads call sr_connect, sr_listen, sr_ep_send* and the close functions; one
 * progress thread runs sr_ctx_run and is the only one that handles rdma_cm events, completions,
 * the endpoint table and resource teardown. User threads hand closes to it through a request
 * queue and an eventfd.
 *
 * Wire format: every SEND carries a 16-byte header (wire_hdr). DATA messages carry their payload
 * after it; RNDV descriptors follow an RDMA WRITE of the payload into the peer's rendezvous
 * region (RC ordering places the WRITE before the SEND completes at the peer); CREDIT messages
 * only return credits; HELLO is the connecting side's first message with its parameters (the
 * accepting side's parameters travel in the accept's private data, the connect request's private
 * data being the caller's).
 *
 * Credits: each side posts R receives; a sender holds one credit per receive the peer has posted
 * and not yet seen used. Data needs two credits (the last one is kept for a credit message), a
 * credit message one; a receiver returns credits on every message it sends and by a credit
 * message once R/2 are owed (or a rendezvous region was freed). With R >= 4 neither side can end
 * up owing credits while the other waits for them.
 */
#define _GNU_SOURCE
#include "strata_rdma.h"
#include "sr_wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <rdma/rdma_cma.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* errors                                                                                      */

static __thread char tls_err[512];
static atomic_long live_objects;

static void set_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tls_err, sizeof tls_err, fmt, ap);
  va_end(ap);
}

const char *sr_last_error(void) { return tls_err; }
long sr_live_objects(void) { return atomic_load(&live_objects); }

const char *sr_strerror(int code) {
  switch (code) {
    case SR_OK: return "ok";
    case SR_EINVAL: return "invalid argument";
    case SR_ENODEV: return "no usable RDMA device";
    case SR_ENOMEM: return "out of memory or memory registration failed";
    case SR_ECLOSED: return "endpoint closed";
    case SR_ETIMEDOUT: return "timed out";
    case SR_EREJECTED: return "connection rejected";
    case SR_EUNREACHABLE: return "peer unreachable";
    case SR_EWOULDBLOCK: return "not allowed on the progress thread";
    case SR_EAGAIN: return "no credit within the caller's wait";
    case SR_EMSGSIZE: return "message too large for the endpoint";
    default: return "RDMA error";
  }
}

static const char *addr_str(const struct sockaddr *sa, char *buf, size_t len) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (sa == NULL) {
    snprintf(buf, len, "?");
    return buf;
  }
  if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    port = ntohs(in->sin_port);
  } else if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    port = ntohs(in6->sin6_port);
  }
  snprintf(buf, len, "%s:%d", host, port);
  return buf;
}

static socklen_t addr_len(const struct sockaddr *sa) {
  return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------------------------------ */
/* wire                                                                                        */

enum { MSG_DATA = SR_MSG_DATA, MSG_RNDV = SR_MSG_RNDV, MSG_CREDIT = SR_MSG_CREDIT,
       MSG_HELLO = SR_MSG_HELLO };
typedef sr_wire_hdr wire_hdr;
typedef sr_wire_params wire_params;
#define HDR_SIZE ((uint32_t)sizeof(wire_hdr))
#define WIRE_MAGIC SR_WIRE_MAGIC

int sr_wire_check_params(const sr_wire_params *p, char *why, size_t whylen) {
  if (p->magic != SR_WIRE_MAGIC) {
    snprintf(why, whylen, "speaks another protocol (magic %08x)", p->magic);
    return -1;
  }
  if (p->credits < SR_MIN_CREDITS || p->credits > SR_MAX_CREDITS) {
    snprintf(why, whylen, "announced %u credits, outside [%u, %u]", p->credits, SR_MIN_CREDITS,
             SR_MAX_CREDITS);
    return -1;
  }
  if (p->eager_size < SR_MIN_EAGER || p->eager_size > SR_MAX_EAGER) {
    snprintf(why, whylen, "announced an eager size of %u bytes, outside [%u, %u]", p->eager_size,
             SR_MIN_EAGER, SR_MAX_EAGER);
    return -1;
  }
  if (p->rndv_size < p->eager_size || p->rndv_size > SR_MAX_MESSAGE) {
    snprintf(why, whylen, "announced a rendezvous region of %u bytes, outside [%u, %u]",
             p->rndv_size, p->eager_size, SR_MAX_MESSAGE);
    return -1;
  }
  return 0;
}

int sr_wire_check(const sr_wire_state *s, const void *msg, uint32_t byte_len, char *why,
                  size_t whylen) {
  wire_hdr h;
  if (byte_len < HDR_SIZE) {
    snprintf(why, whylen, "message of %u bytes, shorter than the %u-byte header", byte_len,
             HDR_SIZE);
    return -1;
  }
  memcpy(&h, msg, HDR_SIZE);
  uint32_t granted = s->peer_credits;
  int32_t held = s->send_credits;
  uint32_t tokens = s->rndv_tokens;
  switch (h.type) {
    case MSG_HELLO: {
      wire_params p;
      if (!s->accepted) {
        snprintf(why, whylen, "HELLO sent to the connecting side");
        return -1;
      }
      if (s->have_peer) {
        snprintf(why, whylen, "second HELLO");
        return -1;
      }
      if (byte_len < HDR_SIZE + sizeof p || h.len != sizeof p) {
        snprintf(why, whylen, "HELLO of %u bytes (length field %u), not %u", byte_len, h.len,
                 (unsigned)(HDR_SIZE + sizeof p));
        return -1;
      }
      memcpy(&p, (const char *)msg + HDR_SIZE, sizeof p);
      if (sr_wire_check_params(&p, why, whylen) != 0) return -1;
      granted = p.credits;
      held = 0;
      tokens = 1;
      break;
    }
    case MSG_DATA:
    case MSG_RNDV:
    case MSG_CREDIT:
      if (!s->have_peer) {
        snprintf(why, whylen, "message of type %u before HELLO", h.type);
        return -1;
      }
      if (h.type == MSG_DATA && (h.len > s->eager || HDR_SIZE + h.len > byte_len)) {
        snprintf(why, whylen, "data message with a length field of %u in %u bytes (eager size %u)",
                 h.len, byte_len, s->eager);
        return -1;
      }
      if (h.type == MSG_RNDV && h.len > s->max_message) {
        snprintf(why, whylen, "rendezvous message of %u bytes above the %u-byte region", h.len,
                 s->max_message);
        return -1;
      }
      break;
    default:
      snprintf(why, whylen, "unknown message type %u", h.type);
      return -1;
  }
  /* A peer returns only credits it was given and acknowledges only the one rendezvous transfer
   * that can be outstanding: more would let it overrun the receive queue or the region. */
  if ((int64_t)held + h.credits > (int64_t)granted) {
    snprintf(why, whylen, "returned %u credits with %d held of the %u it granted", h.credits, held,
             granted);
    return -1;
  }
  if (tokens + h.rndv_acks > 1) {
    snprintf(why, whylen, "acknowledged %u rendezvous transfers, at most %u outstanding",
             h.rndv_acks, 1 - (tokens > 1 ? 1 : tokens));
    return -1;
  }
  return 0;
}

/* wr_id: slot (20 bits) | generation (12 bits) | kind (4 bits) | index (28 bits) */
enum { WR_RECV = 1, WR_SEND = 2 };
static uint64_t make_wr_id(uint32_t slot, uint32_t gen, uint32_t kind, uint32_t idx) {
  return ((uint64_t)slot << 44) | ((uint64_t)(gen & 0xfff) << 32) | ((uint64_t)kind << 28) |
         (idx & 0xfffffff);
}

/* ------------------------------------------------------------------------------------------ */
/* structures                                                                                  */

typedef struct pending {
  struct pending *next;
  uint64_t queued_ns;
  uint32_t len;
  char data[];
} pending;

enum { OBJ_LISTENER = 1, OBJ_EP = 2 };

typedef struct sr_dev {
  struct ibv_context *verbs;
  struct ibv_pd *pd;
  struct ibv_comp_channel *ch;
  struct ibv_cq *cq;
  int cq_size, cq_used;
  struct sr_dev *next;
} sr_dev;

enum {
  EP_RESOLVING = 1, /* sr_connect: address and route resolution, connect sent */
  EP_ACCEPTING,     /* accepted, waiting for ESTABLISHED */
  EP_OPEN,
  EP_CLOSED,        /* closed for the user; waiting for teardown */
};

struct sr_ep {
  int kind; /* OBJ_EP */
  sr_ctx *ctx;
  struct rdma_cm_id *id;
  sr_dev *dev;
  struct ibv_qp *qp;
  void *user;
  int accepted;
  uint32_t slot, gen;
  int in_table;

  pthread_mutex_t lock;
  pthread_cond_t cond;
  int state;
  int refs;               /* user references + 1 while the runtime holds it */
  int close_queued;       /* in ctx's request queue */
  int local_close;        /* the user asked to close */
  int disconnect_sent;
  int close_notified;     /* on_close delivered */
  int established_notified;
  int connect_code;       /* for sr_connect: result */
  int fail_code;          /* closing for a cause found on a user thread (send timeout, queue) */
  int cq_reserved;        /* completion-queue entries reserved on ep->dev */
  char cause[384];

  /* buffers */
  uint32_t R, S, eager, bufsz, max_message;
  char *recv_pool;
  struct ibv_mr *recv_mr;
  char *send_pool;
  struct ibv_mr *send_mr;
  uint32_t *free_slots;
  uint32_t nfree;
  char *rndv_in;
  struct ibv_mr *rndv_in_mr;
  char *rndv_out;
  struct ibv_mr *rndv_out_mr;

  /* peer */
  int have_peer;
  uint32_t peer_credits;
  uint32_t peer_eager, peer_rndv_size, peer_rndv_rkey;
  uint64_t peer_rndv_addr;

  /* flow control (under lock) */
  int32_t send_credits;
  uint32_t owed;          /* credits to return */
  uint32_t rndv_tokens;   /* peer's rendezvous region free */
  uint32_t rndv_owed;     /* our region was freed, tell the peer */
  uint32_t threshold;
  int waiters;

  /* send in progress (between begin and commit; lock held) */
  int sending;
  uint32_t cur_len, cur_slot;
  int cur_rndv;
  struct pending *cur_pending;

  /* messages sent on the progress thread while no credit was free: they go out first, in order */
  struct pending *pend_head, *pend_tail;
  size_t pend_bytes, pend_limit;

  sr_ep_stats stats;

  /* connect */
  uint8_t pdata[56];
  uint32_t pdata_len;
  int resolve_ms;

  struct sr_ep *next_all, *prev_all;
  struct sr_ep *next_req;
};

struct sr_listener {
  int kind; /* OBJ_LISTENER */
  sr_ctx *ctx;
  struct rdma_cm_id *id;
  void *user;
  int closing;
  struct sr_listener *next;
  struct sr_listener *next_req;
};

struct sr_ctx {
  sr_config cfg;
  char device[64];
  sr_callbacks cb;
  struct rdma_event_channel *ch;
  int epfd, wakefd;
  sr_dev *devs;

  pthread_mutex_t lock; /* request queues, endpoint and listener lists */
  sr_ep *ep_reqs;
  sr_listener *lst_reqs;
  atomic_int has_requests;
  sr_ep *all_eps;
  sr_listener *listeners;

  sr_ep **slots; /* progress thread only */
  uint32_t *gens;
  uint32_t nslots;

  atomic_int stop;
  atomic_int running;
  atomic_int connects; /* sr_connect calls under way: sr_ctx_destroy waits for them */
  pthread_t runner;
  sr_ctx_stats stats;
};

static int on_progress_thread(sr_ctx *ctx) {
  return ctx != NULL && atomic_load(&ctx->running) && pthread_equal(pthread_self(), ctx->runner);
}

static void wake(sr_ctx *ctx) {
  uint64_t one = 1;
  ssize_t r = write(ctx->wakefd, &one, sizeof one);
  (void)r;
}

/* ------------------------------------------------------------------------------------------ */
/* configuration and devices                                                                   */

void sr_config_defaults(sr_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->device = NULL;
  cfg->eager_size = 8192;
  cfg->credits = 64;
  cfg->max_message = 4u << 20;
  cfg->poll_spin_us = 100;
  cfg->send_timeout_ms = 10000;
}

static int check_config(const sr_config *cfg) {
  if (cfg->eager_size < 64 || cfg->eager_size > (1u << 20)) {
    set_err("eager size %u out of range [64, 1048576]", cfg->eager_size);
    return SR_EINVAL;
  }
  if (cfg->credits < 4 || cfg->credits > 4096) {
    set_err("credits %u out of range [4, 4096]", cfg->credits);
    return SR_EINVAL;
  }
  if (cfg->max_message < cfg->eager_size || cfg->max_message > (1u << 30)) {
    set_err("max message %u out of range [eager size %u, 1073741824]", cfg->max_message,
            cfg->eager_size);
    return SR_EINVAL;
  }
  /* The receive pool is one region whose offsets reach Java as signed 32-bit ints. */
  if ((uint64_t)cfg->credits * (cfg->eager_size + HDR_SIZE) > INT32_MAX) {
    set_err("credits %u x (eager size %u + %u) = %llu bytes of receive buffers per endpoint, "
            "above 2147483647", cfg->credits, cfg->eager_size, HDR_SIZE,
            (unsigned long long)cfg->credits * (cfg->eager_size + HDR_SIZE));
    return SR_EINVAL;
  }
  if (cfg->send_timeout_ms < 1 || cfg->send_timeout_ms > 86400000) {
    set_err("send timeout %u ms out of range [1, 86400000]", cfg->send_timeout_ms);
    return SR_EINVAL;
  }
  if (cfg->poll_spin_us > 10000000) {
    set_err("poll spin %u us above 10 s", cfg->poll_spin_us);
    return SR_EINVAL;
  }
  return SR_OK;
}

int sr_probe_devices(const char *want, char *buf, size_t buflen) {
  int num = 0, found = 0, active = 0;
  size_t used = 0;
  if (buflen) buf[0] = 0;
  struct ibv_device **list = ibv_get_device_list(&num);
  if (list == NULL) { /* no devices or no uverbs: never pass NULL to ibv_free_device_list */
    int err = errno ? errno : ENODEV;
    if (want && *want) /* the operator configured a device: name it */
      set_err("RDMA device '%s' not found: no RDMA device (ibv_get_device_list: %s)", want,
              strerror(err));
    else
      set_err("no RDMA device (ibv_get_device_list: %s)", strerror(err));
    return 0;
  }
  for (int i = 0; i < num; i++) {
    const char *name = ibv_get_device_name(list[i]);
    if (want && *want && strcmp(want, name) != 0) continue;
    found++;
    struct ibv_context *c = ibv_open_device(list[i]);
    if (c == NULL) {
      used += snprintf(buf + used, used < buflen ? buflen - used : 0, "%s%s:open-failed(%s)",
                       used ? "," : "", name, strerror(errno));
      continue;
    }
    struct ibv_device_attr da;
    int ports = ibv_query_device(c, &da) == 0 ? da.phys_port_cnt : 1;
    for (int p = 1; p <= ports; p++) {
      struct ibv_port_attr pa;
      if (ibv_query_port(c, (uint8_t)p, &pa) != 0) continue;
      if (pa.state == IBV_PORT_ACTIVE) active++;
      used += snprintf(buf + used, used < buflen ? buflen - used : 0, "%s%s:%d=%s",
                       used ? "," : "", name, p, ibv_port_state_str(pa.state));
    }
    ibv_close_device(c);
  }
  ibv_free_device_list(list);
  if (found == 0) {
    if (want && *want)
      set_err("RDMA device '%s' not found (%d other device(s))", want, num);
    else
      set_err("no RDMA device (ibv_get_device_list found none)");
    return 0;
  }
  if (active == 0) set_err("no active port on RDMA device(s): %s", buf);
  return active ? found : -found;
}

static sr_dev *get_dev(sr_ctx *ctx, struct ibv_context *verbs) {
  for (sr_dev *d = ctx->devs; d; d = d->next)
    if (d->verbs == verbs) return d;
  const char *name = ibv_get_device_name(verbs->device);
  if (ctx->device[0] && strcmp(ctx->device, name) != 0) {
    set_err("address resolved to RDMA device %s but %s is configured", name, ctx->device);
    return NULL;
  }
  sr_dev *d = calloc(1, sizeof *d);
  if (!d) { set_err("out of memory"); return NULL; }
  d->verbs = verbs;
  d->pd = ibv_alloc_pd(verbs);
  if (!d->pd) { set_err("ibv_alloc_pd on %s: %s", name, strerror(errno)); goto fail; }
  d->ch = ibv_create_comp_channel(verbs);
  if (!d->ch) { set_err("ibv_create_comp_channel on %s: %s", name, strerror(errno)); goto fail; }
  fcntl(d->ch->fd, F_SETFL, fcntl(d->ch->fd, F_GETFL) | O_NONBLOCK);
  d->cq_size = 1024;
  d->cq = ibv_create_cq(verbs, d->cq_size, d, d->ch, 0);
  if (!d->cq) { set_err("ibv_create_cq(%d) on %s: %s", d->cq_size, name, strerror(errno)); goto fail; }
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = d};
  if (epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, d->ch->fd, &ev) != 0) {
    set_err("epoll_ctl for %s completion channel: %s", name, strerror(errno));
    goto fail;
  }
  d->next = ctx->devs;
  ctx->devs = d;
  return d;
fail:
  if (d->cq) ibv_destroy_cq(d->cq);
  if (d->ch) ibv_destroy_comp_channel(d->ch);
  if (d->pd) ibv_dealloc_pd(d->pd);
  free(d);
  return NULL;
}

/* Makes room in the shared CQ for `more` entries (resized, doubling). */
static int dev_reserve_cq(sr_dev *d, int more) {
  if (d->cq_used + more <= d->cq_size) {
    d->cq_used += more;
    return SR_OK;
  }
  int want = d->cq_size;
  while (want < d->cq_used + more) want *= 2;
  if (ibv_resize_cq(d->cq, want) != 0) {
    set_err("ibv_resize_cq(%d) on %s: %s (too many endpoints for the device's CQ)", want,
            ibv_get_device_name(d->verbs->device), strerror(errno));
    return SR_ENOMEM;
  }
  d->cq_size = want;
  d->cq_used += more;
  return SR_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* endpoint helpers                                                                            */

/* "peer 10.0.2.15:7000 via rxe0 port 1 GID ::ffff:10.0.2.15" */
static const char *ep_where(sr_ep *ep, char *buf, size_t len) {
  char peer[80];
  struct sockaddr *pa = ep->id ? rdma_get_peer_addr(ep->id) : NULL;
  addr_str(pa, peer, sizeof peer);
  if (ep->id && ep->id->verbs) {
    char gid[INET6_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET6, ep->id->route.addr.addr.ibaddr.sgid.raw, gid, sizeof gid);
    snprintf(buf, len, "peer %s via %s port %u GID %s", peer,
             ibv_get_device_name(ep->id->verbs->device), ep->id->port_num, gid);
  } else {
    snprintf(buf, len, "peer %s", peer);
  }
  return buf;
}

static void ep_free_memory(sr_ep *ep) {
  free(ep->recv_pool);
  free(ep->send_pool);
  free(ep->rndv_in);
  free(ep->rndv_out);
  free(ep->free_slots);
  while (ep->pend_head) {
    pending *n = ep->pend_head;
    ep->pend_head = n->next;
    free(n);
  }
  pthread_mutex_destroy(&ep->lock);
  pthread_cond_destroy(&ep->cond);
  free(ep);
  atomic_fetch_sub(&live_objects, 1);
}

static void ep_unref_locked_and_unlock(sr_ep *ep) {
  int refs = --ep->refs;
  pthread_mutex_unlock(&ep->lock);
  if (refs == 0) ep_free_memory(ep);
}

void sr_ep_retain(sr_ep *ep) {
  pthread_mutex_lock(&ep->lock);
  ep->refs++;
  pthread_mutex_unlock(&ep->lock);
}

void sr_ep_release(sr_ep *ep) {
  if (!ep) return;
  pthread_mutex_lock(&ep->lock);
  ep_unref_locked_and_unlock(ep);
}

static sr_ep *ep_new(sr_ctx *ctx, void *user) {
  sr_ep *ep = calloc(1, sizeof *ep);
  if (!ep) { set_err("out of memory"); return NULL; }
  ep->kind = OBJ_EP;
  ep->ctx = ctx;
  ep->user = user;
  pthread_mutex_init(&ep->lock, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&ep->cond, &ca);
  pthread_condattr_destroy(&ca);
  ep->refs = 1;
  ep->R = ctx->cfg.credits;
  ep->S = ctx->cfg.credits + 2;
  ep->eager = ctx->cfg.eager_size;
  ep->bufsz = HDR_SIZE + ctx->cfg.eager_size;
  ep->max_message = ctx->cfg.max_message;
  ep->threshold = ep->R / 2;
  /* progress-thread sends queue at most one rendezvous message and a window of eager ones */
  ep->pend_limit = (size_t)ctx->cfg.max_message + (size_t)ep->R * ep->eager;
  atomic_fetch_add(&live_objects, 1);
  pthread_mutex_lock(&ctx->lock);
  ep->next_all = ctx->all_eps;
  if (ctx->all_eps) ctx->all_eps->prev_all = ep;
  ctx->all_eps = ep;
  pthread_mutex_unlock(&ctx->lock);
  return ep;
}

static int table_add(sr_ctx *ctx, sr_ep *ep) {
  uint32_t i;
  for (i = 0; i < ctx->nslots; i++)
    if (ctx->slots[i] == NULL) break;
  if (i == ctx->nslots) {
    uint32_t n = ctx->nslots ? ctx->nslots * 2 : 64;
    if (n > (1u << 20)) { set_err("too many endpoints"); return SR_ENOMEM; }
    sr_ep **s = realloc(ctx->slots, n * sizeof *s);
    if (!s) { set_err("out of memory"); return SR_ENOMEM; }
    ctx->slots = s;
    uint32_t *g = realloc(ctx->gens, n * sizeof *g);
    if (!g) { set_err("out of memory"); return SR_ENOMEM; }
    ctx->gens = g;
    for (uint32_t j = ctx->nslots; j < n; j++) { ctx->slots[j] = NULL; ctx->gens[j] = 0; }
    ctx->nslots = n;
  }
  ctx->slots[i] = ep;
  ep->slot = i;
  ep->gen = ++ctx->gens[i] & 0xfff;
  ep->in_table = 1;
  return SR_OK;
}

static void *alloc_region(size_t size) {
  void *p = NULL;
  if (posix_memalign(&p, 4096, size) != 0) return NULL;
  memset(p, 0, size);
  return p;
}

static int post_recv(sr_ep *ep, uint32_t idx) {
  struct ibv_sge sge = {.addr = (uintptr_t)(ep->recv_pool + (size_t)idx * ep->bufsz),
                        .length = ep->bufsz, .lkey = ep->recv_mr->lkey};
  struct ibv_recv_wr wr = {.wr_id = make_wr_id(ep->slot, ep->gen, WR_RECV, idx),
                           .sg_list = &sge, .num_sge = 1};
  struct ibv_recv_wr *bad;
  int rc = ibv_post_recv(ep->qp, &wr, &bad);
  if (rc) {
    char w[256];
    set_err("ibv_post_recv failed for %s: %s", ep_where(ep, w, sizeof w), strerror(rc));
    return SR_EIO;
  }
  return SR_OK;
}

/* QP, registered pools, posted receives. Progress thread. */
static int ep_setup_resources(sr_ep *ep) {
  sr_ctx *ctx = ep->ctx;
  char w[256];
  sr_dev *d = get_dev(ctx, ep->id->verbs);
  if (!d) return SR_ENODEV;
  if (dev_reserve_cq(d, (int)(ep->R + ep->S + 2)) != SR_OK) return SR_ENOMEM;
  ep->dev = d;
  ep->cq_reserved = 1; /* returned by ep_teardown whether or not the QP is ever created */
  int rc = table_add(ctx, ep);
  if (rc) return rc;

  size_t rpool = (size_t)ep->R * ep->bufsz, spool = (size_t)ep->S * ep->bufsz;
  ep->recv_pool = alloc_region(rpool);
  ep->send_pool = alloc_region(spool);
  ep->rndv_in = alloc_region(ep->max_message);
  ep->rndv_out = alloc_region(ep->max_message);
  ep->free_slots = calloc(ep->S, sizeof(uint32_t));
  if (!ep->recv_pool || !ep->send_pool || !ep->rndv_in || !ep->rndv_out || !ep->free_slots) {
    set_err("out of memory allocating %zu bytes of buffers for %s",
            rpool + spool + 2 * (size_t)ep->max_message, ep_where(ep, w, sizeof w));
    return SR_ENOMEM;
  }
  for (uint32_t i = 0; i < ep->S; i++) ep->free_slots[i] = ep->S - 1 - i;
  ep->nfree = ep->S;
  ep->recv_mr = ibv_reg_mr(d->pd, ep->recv_pool, rpool, IBV_ACCESS_LOCAL_WRITE);
  ep->send_mr = ibv_reg_mr(d->pd, ep->send_pool, spool, IBV_ACCESS_LOCAL_WRITE);
  ep->rndv_in_mr = ibv_reg_mr(d->pd, ep->rndv_in, ep->max_message,
                              IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  ep->rndv_out_mr = ibv_reg_mr(d->pd, ep->rndv_out, ep->max_message, IBV_ACCESS_LOCAL_WRITE);
  if (!ep->recv_mr || !ep->send_mr || !ep->rndv_in_mr || !ep->rndv_out_mr) {
    set_err("ibv_reg_mr of %zu bytes failed for %s: %s (raise the locked-memory limit, "
            "ulimit -l)", rpool + spool + 2 * (size_t)ep->max_message,
            ep_where(ep, w, sizeof w), strerror(errno));
    return SR_ENOMEM;
  }
  struct ibv_qp_init_attr qa = {
      .send_cq = d->cq, .recv_cq = d->cq, .qp_type = IBV_QPT_RC, .sq_sig_all = 0,
      .cap = {.max_send_wr = ep->S + 2, .max_recv_wr = ep->R, .max_send_sge = 1,
              .max_recv_sge = 1}};
  if (rdma_create_qp(ep->id, d->pd, &qa) != 0) {
    set_err("rdma_create_qp failed for %s: %s", ep_where(ep, w, sizeof w), strerror(errno));
    return SR_EIO;
  }
  ep->qp = ep->id->qp;
  for (uint32_t i = 0; i < ep->R; i++)
    if ((rc = post_recv(ep, i)) != SR_OK) return rc;
  return SR_OK;
}

static void ep_fill_params(sr_ep *ep, wire_params *p) {
  memset(p, 0, sizeof *p);
  p->magic = WIRE_MAGIC;
  p->credits = ep->R;
  p->eager_size = ep->eager;
  p->rndv_size = ep->max_message;
  p->rndv_addr = (uintptr_t)ep->rndv_in;
  p->rndv_rkey = ep->rndv_in_mr->rkey;
}

/* Takes the peer's parameters; lock held. */
static int ep_take_params(sr_ep *ep, const wire_params *p) {
  char why[160];
  if (sr_wire_check_params(p, why, sizeof why) != 0) {
    char w[256];
    set_err("protocol violation by %s: %s", ep_where(ep, w, sizeof w), why);
    return SR_EIO;
  }
  ep->peer_credits = p->credits;
  ep->peer_eager = p->eager_size;
  ep->peer_rndv_size = p->rndv_size;
  ep->peer_rndv_addr = p->rndv_addr;
  ep->peer_rndv_rkey = p->rndv_rkey;
  ep->send_credits += (int32_t)p->credits;
  ep->rndv_tokens = 1;
  ep->have_peer = 1;
  pthread_cond_broadcast(&ep->cond);
  return SR_OK;
}

/* Posts a header-only or data message from send slot `slot`; lock held. */
static int ep_post_slot(sr_ep *ep, uint32_t slot, uint32_t bytes, int rndv_len) {
  struct ibv_sge sge = {.addr = (uintptr_t)(ep->send_pool + (size_t)slot * ep->bufsz),
                        .length = bytes, .lkey = ep->send_mr->lkey};
  struct ibv_send_wr send = {.wr_id = make_wr_id(ep->slot, ep->gen, WR_SEND, slot),
                             .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                             .send_flags = IBV_SEND_SIGNALED};
  struct ibv_sge wsge;
  struct ibv_send_wr write, *first = &send, *bad;
  if (rndv_len >= 0) {
    wsge = (struct ibv_sge){.addr = (uintptr_t)ep->rndv_out, .length = (uint32_t)rndv_len,
                            .lkey = ep->rndv_out_mr->lkey};
    memset(&write, 0, sizeof write);
    write.wr_id = make_wr_id(ep->slot, ep->gen, WR_SEND, 0xfffffff);
    write.sg_list = &wsge;
    write.num_sge = 1;
    write.opcode = IBV_WR_RDMA_WRITE;
    write.wr.rdma.remote_addr = ep->peer_rndv_addr;
    write.wr.rdma.rkey = ep->peer_rndv_rkey;
    write.next = &send;
    first = &write;
  }
  int rc = ibv_post_send(ep->qp, first, &bad);
  if (rc) {
    char w[256];
    set_err("ibv_post_send failed for %s: %s", ep_where(ep, w, sizeof w), strerror(rc));
    return SR_EIO;
  }
  return SR_OK;
}

static wire_hdr *slot_hdr(sr_ep *ep, uint32_t slot) {
  return (wire_hdr *)(ep->send_pool + (size_t)slot * ep->bufsz);
}

/* Fills in the piggy-backed credits and acks of an outgoing header; lock held. */
static void take_owed(sr_ep *ep, wire_hdr *h) {
  uint32_t c = ep->owed > 0xffff ? 0xffff : ep->owed;
  h->credits = (uint16_t)c;
  ep->owed -= c;
  uint32_t a = ep->rndv_owed > 0xff ? 0xff : ep->rndv_owed;
  h->rndv_acks = (uint8_t)a;
  ep->rndv_owed -= a;
}

static int ep_can_send(sr_ep *ep, uint32_t len, int *rndv) {
  uint32_t eager_max = ep->eager < ep->peer_eager ? ep->eager : ep->peer_eager;
  *rndv = len > eager_max;
  return ep->send_credits >= 2 && ep->nfree > 0 && (!*rndv || ep->rndv_tokens > 0);
}

static int ep_post_message(sr_ep *ep, uint32_t slot, uint32_t len, int rndv);

/* Sends queued messages while credits allow; lock held. */
static void drain_pending(sr_ep *ep) {
  int rndv;
  while (ep->pend_head && ep->state == EP_OPEN && ep->have_peer && !ep->sending &&
         ep_can_send(ep, ep->pend_head->len, &rndv)) {
    pending *n = ep->pend_head;
    uint32_t slot = ep->free_slots[--ep->nfree];
    ep->send_credits--;
    if (rndv) ep->rndv_tokens--;
    memcpy(rndv ? ep->rndv_out : ep->send_pool + (size_t)slot * ep->bufsz + HDR_SIZE, n->data,
           n->len);
    ep->pend_head = n->next;
    ep->pend_bytes -= n->len;
    if (!ep->pend_head) {
      ep->pend_tail = NULL;
      if (ep->waiters) pthread_cond_broadcast(&ep->cond);
    }
    int rc = ep_post_message(ep, slot, n->len, rndv);
    free(n);
    if (rc != SR_OK) return;
  }
}

/* Sends a credit message if credits or a rendezvous ack are owed and it can; lock held. */
static void maybe_send_credit(sr_ep *ep) {
  if (ep->state != EP_OPEN && ep->state != EP_ACCEPTING) return;
  drain_pending(ep);
  if (!ep->have_peer || ep->sending) return;
  if (ep->owed < ep->threshold && ep->rndv_owed == 0) return;
  if (ep->send_credits < 1 || ep->nfree == 0) return;
  uint32_t slot = ep->free_slots[--ep->nfree];
  wire_hdr *h = slot_hdr(ep, slot);
  memset(h, 0, HDR_SIZE);
  h->type = MSG_CREDIT;
  take_owed(ep, h);
  ep->send_credits--;
  if (ep_post_slot(ep, slot, HDR_SIZE, -1) != SR_OK) {
    ep->free_slots[ep->nfree++] = slot;
    return; /* the QP is failing; the completion error closes the endpoint */
  }
  ep->stats.credit_msgs++;
}

/* ------------------------------------------------------------------------------------------ */
/* closing                                                                                     */

/* Marks the endpoint closed for the user and tells it once; progress thread, lock NOT held. */
static void ep_mark_closed(sr_ep *ep, int code, const char *cause) {
  sr_ctx *ctx = ep->ctx;
  pthread_mutex_lock(&ep->lock);
  int was = ep->state;
  if (ep->state != EP_CLOSED) {
    ep->state = EP_CLOSED;
    if (cause && !ep->local_close && ep->cause[0] == 0)
      snprintf(ep->cause, sizeof ep->cause, "%s", cause);
    if (ep->connect_code == 0) ep->connect_code = code ? code : SR_ECLOSED;
    pthread_cond_broadcast(&ep->cond);
  }
  int notify = !ep->close_notified && ep->user != NULL &&
               (ep->accepted || ep->established_notified);
  if (notify) ep->close_notified = 1;
  int local = ep->local_close;
  char msg[sizeof ep->cause];
  snprintf(msg, sizeof msg, "%s", ep->cause);
  pthread_mutex_unlock(&ep->lock);
  if (was == EP_OPEN && ep->id && !ep->disconnect_sent) {
    ep->disconnect_sent = 1;
    rdma_disconnect(ep->id);
  }
  if (notify && ctx->cb.on_close)
    ctx->cb.on_close(ep, ep->user, local ? 0 : (code ? code : SR_ECLOSED), local ? NULL : msg);
}

/* Destroys QP, registrations and cm_id; progress thread (or a stopped context). The buffers
 * themselves live until the last reference goes (ep_free_memory). */
static void ep_teardown(sr_ep *ep) {
  sr_ctx *ctx = ep->ctx;
  if (ep->in_table) {
    ctx->slots[ep->slot] = NULL;
    ep->in_table = 0;
  }
  pthread_mutex_lock(&ep->lock); /* no send is between begin and commit past this point */
  struct rdma_cm_id *id = ep->id;
  struct ibv_qp *qp = ep->qp;
  ep->state = EP_CLOSED;
  ep->id = NULL;
  ep->qp = NULL;
  pthread_cond_broadcast(&ep->cond);
  pthread_mutex_unlock(&ep->lock);
  if (qp) rdma_destroy_qp(id);
  if (ep->cq_reserved && ep->dev) {
    ep->dev->cq_used -= (int)(ep->R + ep->S + 2);
    ep->cq_reserved = 0;
  }
  if (ep->recv_mr) ibv_dereg_mr(ep->recv_mr);
  if (ep->send_mr) ibv_dereg_mr(ep->send_mr);
  if (ep->rndv_in_mr) ibv_dereg_mr(ep->rndv_in_mr);
  if (ep->rndv_out_mr) ibv_dereg_mr(ep->rndv_out_mr);
  ep->recv_mr = ep->send_mr = ep->rndv_in_mr = ep->rndv_out_mr = NULL;
  if (id) rdma_destroy_id(id);
  pthread_mutex_lock(&ctx->lock);
  if (ep->prev_all) ep->prev_all->next_all = ep->next_all;
  else if (ctx->all_eps == ep) ctx->all_eps = ep->next_all;
  if (ep->next_all) ep->next_all->prev_all = ep->prev_all;
  ep->next_all = ep->prev_all = NULL;
  pthread_mutex_unlock(&ctx->lock);

  pthread_mutex_lock(&ep->lock);
  ep->ctx = NULL;
  ep_unref_locked_and_unlock(ep);
}

/* Hands the endpoint to the progress thread (close / teardown); lock order ctx -> ep. */
static void queue_ep_request(sr_ctx *ctx, sr_ep *ep) {
  pthread_mutex_lock(&ctx->lock);
  if (!ep->close_queued) {
    ep->close_queued = 1;
    pthread_mutex_lock(&ep->lock);
    ep->refs++; /* the queue's reference */
    pthread_mutex_unlock(&ep->lock);
    ep->next_req = ctx->ep_reqs;
    ctx->ep_reqs = ep;
    atomic_store(&ctx->has_requests, 1);
  }
  pthread_mutex_unlock(&ctx->lock);
  wake(ctx);
}

/* The context outlives every sr_ep_close of its endpoints (the owner destroys it only after the
 * progress loop returned, which tears every endpoint down and clears ep->ctx). */
void sr_ep_close(sr_ep *ep) {
  if (!ep) return;
  pthread_mutex_lock(&ep->lock);
  sr_ctx *ctx = ep->ctx;
  if (ctx == NULL || ep->local_close) {
    pthread_mutex_unlock(&ep->lock);
    return;
  }
  ep->local_close = 1;
  pthread_cond_broadcast(&ep->cond);
  pthread_mutex_unlock(&ep->lock);
  queue_ep_request(ctx, ep);
}

/* Closes the endpoint for a cause found on a user thread or in a callback (a send that waited
 * out send_timeout_ms, a full send queue): sends fail from now on, and the progress thread
 * closes it with `cause`, which on_close reports. Lock held; released on return. */
static void ep_fail_async_and_unlock(sr_ep *ep, int code, const char *cause) {
  sr_ctx *ctx = ep->ctx;
  int first = ep->fail_code == 0 && !ep->local_close && ep->state != EP_CLOSED;
  if (first) {
    ep->fail_code = code;
    snprintf(ep->cause, sizeof ep->cause, "%s", cause);
    pthread_cond_broadcast(&ep->cond);
  }
  pthread_mutex_unlock(&ep->lock);
  if (first && ctx) queue_ep_request(ctx, ep);
}

/* A close request reached the progress thread. */
static void handle_close_request(sr_ep *ep) {
  pthread_mutex_lock(&ep->lock);
  int state = ep->state;
  int disconnected = ep->disconnect_sent;
  int code = ep->local_close ? 0 : ep->fail_code;
  char cause[sizeof ep->cause];
  snprintf(cause, sizeof cause, "%s", ep->cause);
  pthread_mutex_unlock(&ep->lock);
  if (state == EP_OPEN) {
    /* sends the disconnect; teardown on DISCONNECTED */
    ep_mark_closed(ep, code, code ? cause : NULL);
  } else if (state == EP_CLOSED && disconnected) {
    /* teardown follows the DISCONNECTED event */
  } else if (ep->id != NULL || state != EP_CLOSED) {
    ep_mark_closed(ep, code ? code : SR_ECLOSED, code ? cause : NULL);
    ep_teardown(ep);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* context                                                                                     */

int sr_ctx_create(const sr_config *cfg_in, const sr_callbacks *cb, unsigned flags,
                  sr_ctx **out) {
  sr_config cfg;
  if (cfg_in) cfg = *cfg_in; else sr_config_defaults(&cfg);
  int rc = check_config(&cfg);
  if (rc) return rc;
  sr_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) { set_err("out of memory"); return SR_ENOMEM; }
  ctx->cfg = cfg;
  if (cfg.device) snprintf(ctx->device, sizeof ctx->device, "%s", cfg.device);
  ctx->cfg.device = ctx->device;
  if (cb) ctx->cb = *cb;
  ctx->epfd = epoll_create1(EPOLL_CLOEXEC);
  ctx->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  pthread_mutex_init(&ctx->lock, NULL);
  if (ctx->epfd < 0 || ctx->wakefd < 0) {
    set_err("epoll/eventfd: %s", strerror(errno));
    rc = SR_EIO;
    goto fail;
  }
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &ctx->wakefd};
  epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->wakefd, &ev);
  if (!(flags & SR_CTX_NO_CM)) {
    char devs[512];
    int n = sr_probe_devices(ctx->device, devs, sizeof devs);
    if (n <= 0) {
      rc = SR_ENODEV; /* message set by the probe */
      goto fail;
    }
    ctx->ch = rdma_create_event_channel();
    if (!ctx->ch) {
      set_err("rdma_create_event_channel: %s (is rdma_ucm loaded? /dev/infiniband/rdma_cm)",
              strerror(errno));
      rc = SR_ENODEV;
      goto fail;
    }
    fcntl(ctx->ch->fd, F_SETFL, fcntl(ctx->ch->fd, F_GETFL) | O_NONBLOCK);
    struct epoll_event cev = {.events = EPOLLIN, .data.ptr = ctx->ch};
    epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->ch->fd, &cev);
  }
  atomic_fetch_add(&live_objects, 1);
  *out = ctx;
  return SR_OK;
fail:
  if (ctx->epfd >= 0) close(ctx->epfd);
  if (ctx->wakefd >= 0) close(ctx->wakefd);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
  return rc;
}

void sr_ctx_stop(sr_ctx *ctx) {
  atomic_store(&ctx->stop, 1);
  wake(ctx);
}

void sr_ctx_get_stats(sr_ctx *ctx, sr_ctx_stats *out) { *out = ctx->stats; }

static void process_requests(sr_ctx *ctx) {
  atomic_store(&ctx->has_requests, 0);
  pthread_mutex_lock(&ctx->lock);
  sr_ep *eps = ctx->ep_reqs;
  ctx->ep_reqs = NULL;
  sr_listener *ls = ctx->lst_reqs;
  ctx->lst_reqs = NULL;
  pthread_mutex_unlock(&ctx->lock);
  while (eps) {
    sr_ep *ep = eps;
    eps = ep->next_req;
    handle_close_request(ep);
    sr_ep_release(ep); /* the queue's reference */
  }
  while (ls) {
    sr_listener *l = ls;
    ls = l->next_req;
    rdma_destroy_id(l->id);
    free(l);
    atomic_fetch_sub(&live_objects, 1);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* completions                                                                                 */

static void ep_fail(sr_ep *ep, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ep_fail(sr_ep *ep, int code, const char *fmt, ...) {
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ep_mark_closed(ep, code, msg);
}

static void mark_established(sr_ep *ep) {
  pthread_mutex_lock(&ep->lock);
  int notify = ep->state == EP_ACCEPTING && !ep->local_close;
  if (notify) {
    ep->state = EP_OPEN;
    ep->established_notified = 1;
    pthread_cond_broadcast(&ep->cond);
  }
  pthread_mutex_unlock(&ep->lock);
  if (notify && ep->ctx->cb.on_established) ep->ctx->cb.on_established(ep, ep->user);
}

static void handle_recv(sr_ep *ep, uint32_t idx, const struct ibv_wc *wc) {
  sr_ctx *ctx = ep->ctx;
  char w[256];
  if (idx >= ep->R || wc->byte_len > ep->bufsz) {
    ep_fail(ep, SR_EIO, "protocol violation by %s: receive %u of %u bytes; endpoint closed",
            ep_where(ep, w, sizeof w), idx, wc->byte_len);
    return;
  }
  char *buf = ep->recv_pool + (size_t)idx * ep->bufsz;
  /* Nothing in the message is trusted before the protocol check: a violation (bad HELLO values,
   * data before HELLO, credits or acknowledgements never granted, lengths beyond the buffers)
   * closes this endpoint alone, with the violation as its cause. */
  char why[sizeof tls_err];
  wire_hdr h;
  memset(&h, 0, sizeof h);
  pthread_mutex_lock(&ep->lock);
  sr_wire_state ws = {.accepted = ep->accepted, .have_peer = ep->have_peer,
                      .peer_credits = ep->peer_credits, .send_credits = ep->send_credits,
                      .rndv_tokens = ep->rndv_tokens, .eager = ep->eager,
                      .max_message = ep->max_message};
  int bad = sr_wire_check(&ws, buf, wc->byte_len, why, sizeof why) != 0;
  if (!bad) {
    memcpy(&h, buf, HDR_SIZE);
    if (h.type == MSG_HELLO) {
      wire_params p;
      memcpy(&p, buf + HDR_SIZE, sizeof p);
      if (ep_take_params(ep, &p) != SR_OK) {
        snprintf(why, sizeof why, "%s", sr_last_error());
        bad = 1;
      }
    }
  }
  if (!bad) {
    ep->send_credits += h.credits;
    ep->rndv_tokens += h.rndv_acks;
    if ((h.credits || h.rndv_acks) && ep->waiters) pthread_cond_broadcast(&ep->cond);
  }
  pthread_mutex_unlock(&ep->lock);
  if (bad) {
    ep_fail(ep, SR_EIO, "protocol violation by %s: %s; endpoint closed",
            ep_where(ep, w, sizeof w), why);
    return;
  }
  if (ep->state == EP_ACCEPTING && h.type != MSG_HELLO) mark_established(ep);
  pthread_mutex_lock(&ep->lock);
  int deliver = ep->state == EP_OPEN && !ep->local_close && !ep->fail_code;
  pthread_mutex_unlock(&ep->lock);
  if (deliver && (h.type == MSG_DATA || h.type == MSG_RNDV)) {
    ep->stats.msgs_received++;
    ep->stats.bytes_received += h.len;
    if (ctx->cb.on_message) {
      if (h.type == MSG_DATA)
        ctx->cb.on_message(ep, ep->user, buf + HDR_SIZE, h.len, 0,
                           (uint32_t)((size_t)idx * ep->bufsz + HDR_SIZE));
      else
        ctx->cb.on_message(ep, ep->user, ep->rndv_in, h.len, 1, 0);
    }
  }
  if (ep->qp == NULL) return; /* closed and torn down inside the callback: impossible (queued) */
  if (post_recv(ep, idx) != SR_OK) {
    ep_fail(ep, SR_EIO, "%s", sr_last_error());
    return;
  }
  pthread_mutex_lock(&ep->lock);
  ep->owed++;
  if (h.type == MSG_RNDV) ep->rndv_owed++;
  maybe_send_credit(ep);
  pthread_mutex_unlock(&ep->lock);
}

static void handle_wc(sr_ctx *ctx, const struct ibv_wc *wc) {
  uint32_t slot = (uint32_t)(wc->wr_id >> 44), gen = (uint32_t)(wc->wr_id >> 32) & 0xfff;
  uint32_t kind = (uint32_t)(wc->wr_id >> 28) & 0xf, idx = (uint32_t)wc->wr_id & 0xfffffff;
  if (slot >= ctx->nslots) return;
  sr_ep *ep = ctx->slots[slot];
  if (ep == NULL || ep->gen != gen) return; /* completion of a torn-down endpoint */
  if (wc->status != IBV_WC_SUCCESS) {
    char w[256];
    if (ep->state != EP_CLOSED) {
      if (wc->status == IBV_WC_WR_FLUSH_ERR)
        ep_fail(ep, SR_ECLOSED, "connection to %s lost (work requests flushed)",
                ep_where(ep, w, sizeof w));
      else
        ep_fail(ep, SR_EIO, "%s to %s failed: %s (vendor error 0x%x)",
                kind == WR_RECV ? "receive" : "send", ep_where(ep, w, sizeof w),
                ibv_wc_status_str(wc->status), wc->vendor_err);
    }
    return;
  }
  if (kind == WR_RECV) {
    handle_recv(ep, idx, wc);
  } else if (kind == WR_SEND && idx < ep->S) {
    pthread_mutex_lock(&ep->lock);
    ep->free_slots[ep->nfree++] = idx;
    if (ep->waiters) pthread_cond_broadcast(&ep->cond);
    maybe_send_credit(ep);
    pthread_mutex_unlock(&ep->lock);
  }
}

static int poll_cqs(sr_ctx *ctx) {
  struct ibv_wc wc[32];
  int total = 0;
  for (sr_dev *d = ctx->devs; d; d = d->next) {
    int n;
    while ((n = ibv_poll_cq(d->cq, 32, wc)) > 0) {
      for (int i = 0; i < n; i++) handle_wc(ctx, &wc[i]);
      total += n;
      if (n < 32) break;
    }
  }
  ctx->stats.completions += (uint64_t)total;
  return total;
}

/* ------------------------------------------------------------------------------------------ */
/* connection manager events                                                                   */

typedef struct cm_evt {
  enum rdma_cm_event_type type;
  struct rdma_cm_id *id, *listen_id;
  int status;
  uint8_t pdata[256];
  uint32_t pdata_len;
} cm_evt;

static void on_connect_request(sr_ctx *ctx, cm_evt *e) {
  sr_listener *lst = e->listen_id ? e->listen_id->context : NULL;
  if (!lst || lst->kind != OBJ_LISTENER || lst->closing) {
    rdma_reject(e->id, NULL, 0);
    rdma_destroy_id(e->id);
    return;
  }
  uint32_t len = e->pdata_len ? e->pdata[0] : 0;
  if (len > SR_MAX_PRIVATE_DATA || len + 1 > e->pdata_len) len = 0;
  sr_ep *ep = ep_new(ctx, NULL);
  if (!ep) {
    rdma_reject(e->id, NULL, 0);
    rdma_destroy_id(e->id);
    return;
  }
  ep->id = e->id;
  ep->id->context = ep;
  ep->accepted = 1;
  ep->state = EP_ACCEPTING;
  void *user = ctx->cb.on_connect_request
                   ? ctx->cb.on_connect_request(lst, lst->user, ep, rdma_get_peer_addr(e->id),
                                                e->pdata + 1, len)
                   : NULL;
  if (user == NULL) {
    rdma_reject(e->id, NULL, 0);
    pthread_mutex_lock(&ep->lock);
    ep->state = EP_CLOSED;
    pthread_mutex_unlock(&ep->lock);
    ep_teardown(ep);
    return;
  }
  ep->user = user;
  char w[256];
  int rc = ep_setup_resources(ep);
  if (rc == SR_OK) {
    wire_params p;
    ep_fill_params(ep, &p);
    struct rdma_conn_param cp = {.private_data = &p, .private_data_len = sizeof p,
                                 .responder_resources = 1, .initiator_depth = 1,
                                 .rnr_retry_count = 7};
    if (rdma_accept(ep->id, &cp) != 0) {
      set_err("rdma_accept for %s: %s", ep_where(ep, w, sizeof w), strerror(errno));
      rc = SR_EIO;
    }
  }
  if (rc != SR_OK) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", sr_last_error());
    rdma_reject(ep->id, NULL, 0);
    ep_mark_closed(ep, rc, msg);
    ep_teardown(ep);
  }
}

static void connect_failed(sr_ep *ep, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void connect_failed(sr_ep *ep, int code, const char *fmt, ...) {
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&ep->lock);
  if (ep->connect_code == 0) ep->connect_code = code;
  if (ep->cause[0] == 0) snprintf(ep->cause, sizeof ep->cause, "%s", msg);
  ep->state = EP_CLOSED;
  pthread_cond_broadcast(&ep->cond);
  pthread_mutex_unlock(&ep->lock);
  ep_teardown(ep);
}

static void handle_cm_event(sr_ctx *ctx, cm_evt *e) {
  if (e->type == RDMA_CM_EVENT_CONNECT_REQUEST) {
    on_connect_request(ctx, e);
    return;
  }
  sr_ep *ep = e->id ? e->id->context : NULL;
  if (!ep || ep->kind != OBJ_EP) return; /* listener events: nothing to do */
  char w[256];
  ep_where(ep, w, sizeof w);
  int closing;
  pthread_mutex_lock(&ep->lock);
  closing = ep->local_close;
  pthread_mutex_unlock(&ep->lock);
  switch (e->type) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
      if (closing) { connect_failed(ep, SR_ECLOSED, "closed while connecting"); break; }
      if (rdma_resolve_route(ep->id, ep->resolve_ms) != 0)
        connect_failed(ep, SR_EUNREACHABLE, "rdma_resolve_route to %s: %s", w, strerror(errno));
      break;
    case RDMA_CM_EVENT_ROUTE_RESOLVED: {
      if (closing) { connect_failed(ep, SR_ECLOSED, "closed while connecting"); break; }
      int rc = ep_setup_resources(ep);
      if (rc != SR_OK) { connect_failed(ep, rc, "%s", sr_last_error()); break; }
      uint8_t pd[56] = {0};
      pd[0] = (uint8_t)ep->pdata_len;
      memcpy(pd + 1, ep->pdata, ep->pdata_len);
      struct rdma_conn_param cp = {.private_data = pd, .private_data_len = 1 + ep->pdata_len,
                                   .responder_resources = 1, .initiator_depth = 1,
                                   .retry_count = 7, .rnr_retry_count = 7};
      if (rdma_connect(ep->id, &cp) != 0)
        connect_failed(ep, SR_EIO, "rdma_connect to %s: %s", ep_where(ep, w, sizeof w),
                       strerror(errno));
      break;
    }
    case RDMA_CM_EVENT_ESTABLISHED:
      if (ep->accepted) {
        mark_established(ep);
      } else {
        wire_params p;
        pthread_mutex_lock(&ep->lock);
        int rc = SR_EIO;
        if (e->pdata_len >= sizeof p) {
          memcpy(&p, e->pdata, sizeof p);
          rc = ep_take_params(ep, &p);
        } else {
          set_err("%s sent no parameters with its accept", w);
        }
        if (rc == SR_OK) {
          /* HELLO: our parameters, the first message (takes one of the peer's credits) */
          uint32_t slot = ep->free_slots[--ep->nfree];
          wire_hdr *h = slot_hdr(ep, slot);
          memset(h, 0, HDR_SIZE);
          h->type = MSG_HELLO;
          h->len = sizeof p;
          ep_fill_params(ep, &p);
          memcpy((char *)h + HDR_SIZE, &p, sizeof p);
          ep->send_credits--;
          rc = ep_post_slot(ep, slot, HDR_SIZE + sizeof p, -1);
        }
        if (rc == SR_OK && !ep->local_close) {
          ep->state = EP_OPEN;
          ep->established_notified = 1;
          pthread_cond_broadcast(&ep->cond);
          pthread_mutex_unlock(&ep->lock);
        } else {
          char msg[512];
          snprintf(msg, sizeof msg, "%s", rc ? sr_last_error() : "closed while connecting");
          pthread_mutex_unlock(&ep->lock);
          rdma_disconnect(ep->id);
          connect_failed(ep, rc ? rc : SR_ECLOSED, "%s", msg);
        }
      }
      break;
    case RDMA_CM_EVENT_REJECTED:
      connect_failed(ep, SR_EREJECTED,
                     "connection to %s rejected (%s, status %d: the peer refused or nothing "
                     "listens there)", w, rdma_event_str(e->type), e->status);
      break;
    case RDMA_CM_EVENT_ADDR_ERROR:
    case RDMA_CM_EVENT_ROUTE_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_CONNECT_ERROR:
      if (ep->state == EP_RESOLVING)
        connect_failed(ep, SR_EUNREACHABLE, "cannot connect to %s: %s (status %d)", w,
                       rdma_event_str(e->type), e->status);
      else {
        ep_fail(ep, SR_EUNREACHABLE, "connection to %s failed: %s (status %d)", w,
                rdma_event_str(e->type), e->status);
        ep_teardown(ep);
      }
      break;
    case RDMA_CM_EVENT_DISCONNECTED:
      ep->disconnect_sent = 1; /* nothing more to send: the connection is gone */
      ep_fail(ep, SR_ECLOSED, "%s disconnected", w);
      ep_teardown(ep);
      break;
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
      ep_fail(ep, SR_ENODEV, "RDMA device removed under the connection to %s", w);
      ep_teardown(ep);
      break;
    default:
      break;
  }
}

static void drain_cm_events(sr_ctx *ctx) {
  if (!ctx->ch) return;
  struct rdma_cm_event *ev;
  while (rdma_get_cm_event(ctx->ch, &ev) == 0) {
    cm_evt e = {.type = ev->event, .id = ev->id, .listen_id = ev->listen_id,
                .status = ev->status};
    if (ev->param.conn.private_data && ev->param.conn.private_data_len) {
      e.pdata_len = ev->param.conn.private_data_len;
      if (e.pdata_len > sizeof e.pdata) e.pdata_len = sizeof e.pdata;
      memcpy(e.pdata, ev->param.conn.private_data, e.pdata_len);
    }
    rdma_ack_cm_event(ev); /* before handling: rdma_destroy_id waits for unacked events */
    handle_cm_event(ctx, &e);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* progress loop                                                                               */

static void shutdown_all(sr_ctx *ctx) {
  process_requests(ctx);
  for (;;) {
    pthread_mutex_lock(&ctx->lock);
    sr_ep *ep = ctx->all_eps;
    pthread_mutex_unlock(&ctx->lock);
    if (!ep) break;
    pthread_mutex_lock(&ep->lock);
    ep->local_close = 1;
    pthread_mutex_unlock(&ep->lock);
    if (ep->state == EP_RESOLVING) connect_failed(ep, SR_ECLOSED, "transport closed");
    else {
      ep_mark_closed(ep, SR_ECLOSED, NULL);
      ep_teardown(ep);
    }
  }
  pthread_mutex_lock(&ctx->lock);
  sr_listener *l = ctx->listeners;
  ctx->listeners = NULL;
  pthread_mutex_unlock(&ctx->lock);
  while (l) {
    sr_listener *n = l->next;
    rdma_destroy_id(l->id);
    free(l);
    atomic_fetch_sub(&live_objects, 1);
    l = n;
  }
}

int sr_ctx_run(sr_ctx *ctx) {
  ctx->runner = pthread_self();
  atomic_store(&ctx->running, 1);
  const uint64_t spin_ns = (uint64_t)ctx->cfg.poll_spin_us * 1000;
  uint64_t last = now_ns();
  uint32_t iter = 0;
  struct epoll_event evs[16];
  while (!atomic_load(&ctx->stop)) {
    int n = poll_cqs(ctx);
    if (atomic_load(&ctx->has_requests)) process_requests(ctx);
    if (n > 0) {
      last = now_ns();
      if ((++iter & 255) == 0) drain_cm_events(ctx);
      continue;
    }
    if (spin_ns && now_ns() - last < spin_ns) {
      ++iter;
      if ((iter & 1023) == 0) drain_cm_events(ctx);
      /* Every 8th empty look yields: on a host with more runnable threads than cores the
         thread with the work (a handler, the caller) gets the core instead of waiting out
         this spin's time slice. */
      if ((iter & 7) == 0) sched_yield();
      continue;
    }
    ctx->stats.spins_ended++;
    for (sr_dev *d = ctx->devs; d; d = d->next) ibv_req_notify_cq(d->cq, 0);
    if (poll_cqs(ctx) > 0) { /* raced with an arrival; the armed event comes later, harmless */
      last = now_ns();
      continue;
    }
    int k = epoll_wait(ctx->epfd, evs, 16, -1);
    for (int i = 0; i < k; i++) {
      void *p = evs[i].data.ptr;
      if (p == &ctx->wakefd) {
        uint64_t v;
        ssize_t r = read(ctx->wakefd, &v, sizeof v);
        (void)r;
      } else if (ctx->ch && p == ctx->ch) {
        drain_cm_events(ctx);
      } else {
        sr_dev *d = p;
        struct ibv_cq *cq;
        void *cqctx;
        while (ibv_get_cq_event(d->ch, &cq, &cqctx) == 0) {
          ibv_ack_cq_events(cq, 1);
          ctx->stats.cq_events++;
        }
      }
    }
    last = now_ns();
  }
  shutdown_all(ctx);
  atomic_store(&ctx->running, 0);
  return SR_OK;
}

void sr_ctx_destroy(sr_ctx *ctx) {
  if (!ctx) return;
  /* A connect that started before the stop may still use the context: its wait ends when the
   * loop's shutdown fails its endpoint, or at its timeout. */
  while (atomic_load(&ctx->connects) > 0) usleep(1000);
  if (ctx->all_eps || ctx->listeners || ctx->ep_reqs || ctx->lst_reqs) shutdown_all(ctx);
  while (ctx->devs) {
    sr_dev *d = ctx->devs;
    ctx->devs = d->next;
    ibv_destroy_cq(d->cq);
    ibv_destroy_comp_channel(d->ch);
    ibv_dealloc_pd(d->pd);
    free(d);
  }
  if (ctx->ch) rdma_destroy_event_channel(ctx->ch);
  close(ctx->epfd);
  close(ctx->wakefd);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx->slots);
  free(ctx->gens);
  free(ctx);
  atomic_fetch_sub(&live_objects, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* listen / connect                                                                            */

int sr_listen(sr_ctx *ctx, const struct sockaddr *addr, int backlog, void *user,
              sr_listener **out) {
  char a[80];
  if (!ctx->ch) { set_err("context opened without rdma_cm"); return SR_ENODEV; }
  sr_listener *l = calloc(1, sizeof *l);
  if (!l) { set_err("out of memory"); return SR_ENOMEM; }
  l->kind = OBJ_LISTENER;
  l->ctx = ctx;
  l->user = user;
  if (rdma_create_id(ctx->ch, &l->id, l, RDMA_PS_TCP) != 0) {
    set_err("rdma_create_id: %s", strerror(errno));
    free(l);
    return SR_EIO;
  }
  if (rdma_bind_addr(l->id, (struct sockaddr *)addr) != 0) {
    set_err("cannot bind an RDMA listener to %s: %s (no RDMA device on that address?)",
            addr_str(addr, a, sizeof a), strerror(errno));
    rdma_destroy_id(l->id);
    free(l);
    return errno == EADDRINUSE ? SR_EINVAL : SR_ENODEV;
  }
  if (ctx->device[0] && l->id->verbs &&
      strcmp(ibv_get_device_name(l->id->verbs->device), ctx->device) != 0) {
    set_err("%s belongs to RDMA device %s, not the configured %s", addr_str(addr, a, sizeof a),
            ibv_get_device_name(l->id->verbs->device), ctx->device);
    rdma_destroy_id(l->id);
    free(l);
    return SR_EINVAL;
  }
  if (rdma_listen(l->id, backlog > 0 ? backlog : 128) != 0) {
    set_err("rdma_listen on %s: %s", addr_str(addr, a, sizeof a), strerror(errno));
    rdma_destroy_id(l->id);
    free(l);
    return SR_EIO;
  }
  pthread_mutex_lock(&ctx->lock);
  l->next = ctx->listeners;
  ctx->listeners = l;
  pthread_mutex_unlock(&ctx->lock);
  atomic_fetch_add(&live_objects, 1);
  *out = l;
  return SR_OK;
}

int sr_listener_addr(sr_listener *lst, struct sockaddr_storage *out) {
  struct sockaddr *sa = rdma_get_local_addr(lst->id);
  memcpy(out, sa, addr_len(sa));
  return SR_OK;
}

void sr_listener_close(sr_listener *lst) {
  if (!lst) return;
  sr_ctx *ctx = lst->ctx;
  pthread_mutex_lock(&ctx->lock);
  int found = 0;
  for (sr_listener **pp = &ctx->listeners; *pp; pp = &(*pp)->next)
    if (*pp == lst) { *pp = lst->next; found = 1; break; }
  lst->closing = 1;
  if (found && atomic_load(&ctx->running) && !on_progress_thread(ctx)) {
    lst->next_req = ctx->lst_reqs;
    ctx->lst_reqs = lst;
    atomic_store(&ctx->has_requests, 1);
    pthread_mutex_unlock(&ctx->lock);
    wake(ctx);
    return;
  }
  pthread_mutex_unlock(&ctx->lock);
  if (found) {
    rdma_destroy_id(lst->id);
    free(lst);
    atomic_fetch_sub(&live_objects, 1);
  }
}

static int connect_in_ctx(sr_ctx *ctx, const struct sockaddr *addr, const void *pdata,
                          uint32_t pdata_len, uint32_t timeout_ms, void *user, sr_ep **out);

int sr_connect(sr_ctx *ctx, const struct sockaddr *addr, const void *pdata, uint32_t pdata_len,
               uint32_t timeout_ms, void *user, sr_ep **out) {
  /* Counted under the context's lock, after the stop check: sr_ctx_destroy cannot free the
   * context under a connect in flight. */
  pthread_mutex_lock(&ctx->lock);
  int stopping = atomic_load(&ctx->stop);
  if (!stopping) atomic_fetch_add(&ctx->connects, 1);
  pthread_mutex_unlock(&ctx->lock);
  if (stopping) {
    char a[80];
    set_err("connect to %s: the transport is closed", addr_str(addr, a, sizeof a));
    return SR_ECLOSED;
  }
  int rc = connect_in_ctx(ctx, addr, pdata, pdata_len, timeout_ms, user, out);
  atomic_fetch_sub(&ctx->connects, 1);
  return rc;
}

static int connect_in_ctx(sr_ctx *ctx, const struct sockaddr *addr, const void *pdata,
                          uint32_t pdata_len, uint32_t timeout_ms, void *user, sr_ep **out) {
  char a[80];
  addr_str(addr, a, sizeof a);
  if (!ctx->ch) { set_err("context opened without rdma_cm"); return SR_ENODEV; }
  if (pdata_len > SR_MAX_PRIVATE_DATA) {
    set_err("private data of %u bytes for %s: at most %d", pdata_len, a, SR_MAX_PRIVATE_DATA);
    return SR_EINVAL;
  }
  if (on_progress_thread(ctx)) {
    set_err("connect to %s called on the progress thread", a);
    return SR_EWOULDBLOCK;
  }
  if (atomic_load(&ctx->stop)) {
    set_err("connect to %s: the transport is closed", a);
    return SR_ECLOSED;
  }
  if (timeout_ms == 0) timeout_ms = 5000;
  sr_ep *ep = ep_new(ctx, user);
  if (!ep) return SR_ENOMEM;
  ep->state = EP_RESOLVING;
  ep->refs++; /* the caller's */
  if (pdata_len) memcpy(ep->pdata, pdata, pdata_len);
  ep->pdata_len = pdata_len;
  ep->resolve_ms = (int)(timeout_ms < 2000 ? timeout_ms : 2000);
  struct rdma_cm_id *id;
  if (rdma_create_id(ctx->ch, &id, ep, RDMA_PS_TCP) != 0) {
    set_err("rdma_create_id: %s", strerror(errno));
    ep->user = NULL;
    sr_ep_close(ep);
    sr_ep_release(ep);
    return SR_EIO;
  }
  pthread_mutex_lock(&ep->lock);
  ep->id = id;
  pthread_mutex_unlock(&ep->lock);
  if (rdma_resolve_addr(id, NULL, (struct sockaddr *)addr, ep->resolve_ms) != 0) {
    set_err("rdma_resolve_addr %s: %s", a, strerror(errno));
    ep->user = NULL;
    sr_ep_close(ep);
    sr_ep_release(ep);
    return SR_EUNREACHABLE;
  }
  struct timespec dl;
  clock_gettime(CLOCK_MONOTONIC, &dl);
  dl.tv_sec += timeout_ms / 1000;
  dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
  if (dl.tv_nsec >= 1000000000) { dl.tv_sec++; dl.tv_nsec -= 1000000000; }
  pthread_mutex_lock(&ep->lock);
  int timed_out = 0;
  while (ep->state == EP_RESOLVING && !timed_out)
    timed_out = pthread_cond_timedwait(&ep->cond, &ep->lock, &dl) == ETIMEDOUT;
  int rc = SR_OK;
  if (ep->state == EP_OPEN) {
    *out = ep;
    pthread_mutex_unlock(&ep->lock);
    return SR_OK;
  }
  if (ep->state == EP_RESOLVING) {
    set_err("connect to %s timed out after %u ms", a, timeout_ms);
    rc = SR_ETIMEDOUT;
  } else {
    set_err("%s", ep->cause[0] ? ep->cause : "connection closed while connecting");
    rc = ep->connect_code ? ep->connect_code : SR_ECLOSED;
  }
  ep->user = NULL; /* no callbacks for an endpoint that never connected */
  pthread_mutex_unlock(&ep->lock);
  char keep[sizeof tls_err];
  snprintf(keep, sizeof keep, "%s", tls_err);
  sr_ep_close(ep);
  sr_ep_release(ep);
  snprintf(tls_err, sizeof tls_err, "%s", keep);
  return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* sending                                                                                     */

static int ep_closed_error(sr_ep *ep) {
  char w[256];
  if (ep->fail_code && !ep->local_close) set_err("endpoint closed: %s", ep->cause);
  else if (ep->local_close) set_err("endpoint to %s is closed", ep_where(ep, w, sizeof w));
  else set_err("endpoint closed: %s", ep->cause[0] ? ep->cause : "closed");
  return SR_ECLOSED;
}

int sr_ep_send_begin(sr_ep *ep, uint32_t len, void **dst) {
  return sr_ep_send_begin_wait(ep, len, UINT32_MAX, dst);
}

int sr_ep_send_begin_wait(sr_ep *ep, uint32_t len, uint32_t max_wait_ms, void **dst) {
  pthread_mutex_lock(&ep->lock);
  /* The peer's region bounds every message that is not eager for both sides; since it is at
   * least the peer's eager size, the smaller limit covers both paths. */
  uint32_t limit = ep->have_peer && ep->peer_rndv_size < ep->max_message ? ep->peer_rndv_size
                                                                         : ep->max_message;
  if (len > limit) {
    char w[256];
    set_err("message of %u bytes to %s exceeds the maximum of %u (the smaller of both sides' "
            "strata.rdma.max.message.bytes)", len, ep_where(ep, w, sizeof w), limit);
    pthread_mutex_unlock(&ep->lock);
    return SR_EMSGSIZE;
  }
  int progress = on_progress_thread(ep->ctx);
  int waited = 0;
  struct timespec deadline = {0, 0};
  for (;;) {
    if (ep->state == EP_CLOSED || ep->local_close || ep->ctx == NULL || ep->fail_code) {
      int rc = ep_closed_error(ep);
      pthread_mutex_unlock(&ep->lock);
      return rc;
    }
    int rndv;
    if (ep->state == EP_OPEN && ep->have_peer && !ep->sending && ep->pend_head == NULL &&
        ep_can_send(ep, len, &rndv)) {
      ep->sending = 1;
      ep->cur_len = len;
      ep->cur_rndv = rndv;
      ep->cur_pending = NULL;
      ep->cur_slot = ep->free_slots[--ep->nfree];
      ep->send_credits--;
      if (rndv) ep->rndv_tokens--;
      *dst = rndv ? ep->rndv_out : ep->send_pool + (size_t)ep->cur_slot * ep->bufsz + HDR_SIZE;
      if (waited) ep->stats.credit_waits++;
      return SR_OK; /* lock held until commit */
    }
    if (progress) {
      /* never wait on the progress thread: queue a copy, sent when credits come back. The queue
       * is bounded in bytes and in age: a peer that stops returning credits closes its endpoint
       * instead of growing the server's memory. */
      char w[256], cause[384];
      uint64_t now = now_ns();
      uint64_t timeout_ns = (uint64_t)ep->ctx->cfg.send_timeout_ms * 1000000ull;
      if (ep->pend_bytes + len > ep->pend_limit ||
          (ep->pend_head && now - ep->pend_head->queued_ns > timeout_ns)) {
        snprintf(cause, sizeof cause,
                 "%s returned no credit for %u ms with %zu bytes of messages queued (limit %zu, "
                 "%u ms: strata.rdma.send.timeout.ms); endpoint closed",
                 ep_where(ep, w, sizeof w),
                 ep->pend_head ? (unsigned)((now - ep->pend_head->queued_ns) / 1000000) : 0u,
                 ep->pend_bytes, ep->pend_limit, ep->ctx->cfg.send_timeout_ms);
        set_err("%s", cause);
        ep_fail_async_and_unlock(ep, SR_ETIMEDOUT, cause);
        set_err("endpoint closed: %s", cause);
        return SR_ECLOSED;
      }
      pending *n = malloc(sizeof *n + len);
      if (!n) {
        set_err("out of memory queueing a %u-byte message", len);
        pthread_mutex_unlock(&ep->lock);
        return SR_ENOMEM;
      }
      n->next = NULL;
      n->queued_ns = now;
      n->len = len;
      ep->sending = 1;
      ep->cur_len = len;
      ep->cur_pending = n;
      ep->stats.credit_waits++;
      *dst = n->data;
      return SR_OK;
    }
    uint32_t t = ep->ctx->cfg.send_timeout_ms;
    int callers_wait = max_wait_ms < t;
    if (callers_wait) t = max_wait_ms;
    if (!waited) {
      clock_gettime(CLOCK_MONOTONIC, &deadline); /* the condition variable's clock */
      deadline.tv_sec += t / 1000;
      deadline.tv_nsec += (long)(t % 1000) * 1000000;
      if (deadline.tv_nsec >= 1000000000) { deadline.tv_sec++; deadline.tv_nsec -= 1000000000; }
    }
    waited = 1;
    ep->waiters++;
    int wr = pthread_cond_timedwait(&ep->cond, &ep->lock, &deadline);
    ep->waiters--;
    if (wr == ETIMEDOUT && callers_wait &&
        !(ep->state == EP_CLOSED || ep->local_close || ep->fail_code)) {
      char w[256];
      set_err("no credit from %s within %u ms; nothing sent", ep_where(ep, w, sizeof w), t);
      ep->stats.credit_waits++;
      pthread_mutex_unlock(&ep->lock);
      return SR_EAGAIN;
    }
    if (wr == ETIMEDOUT && !(ep->state == EP_CLOSED || ep->local_close || ep->fail_code)) {
      /* A peer that withholds credits (or never sent its HELLO, or is frozen) must not hold
       * this thread: close its endpoint, as a socket server drops a client that stops reading. */
      char w[256], cause[384];
      snprintf(cause, sizeof cause,
               "%s returned no credit for %u ms (strata.rdma.send.timeout.ms); endpoint closed",
               ep_where(ep, w, sizeof w), ep->ctx->cfg.send_timeout_ms);
      ep->stats.credit_waits++;
      ep_fail_async_and_unlock(ep, SR_ETIMEDOUT, cause);
      set_err("%s", cause);
      return SR_ETIMEDOUT;
    }
  }
}

/* Header and post of a message whose payload is in place; lock held. */
static int ep_post_message(sr_ep *ep, uint32_t slot, uint32_t len, int rndv) {
  wire_hdr *h = slot_hdr(ep, slot);
  memset(h, 0, HDR_SIZE);
  h->type = rndv ? MSG_RNDV : MSG_DATA;
  h->len = len;
  take_owed(ep, h);
  int rc = ep_post_slot(ep, slot, rndv ? HDR_SIZE : HDR_SIZE + len, rndv ? (int)len : -1);
  if (rc != SR_OK) {
    ep->free_slots[ep->nfree++] = slot;
  } else {
    ep->stats.msgs_sent++;
    ep->stats.bytes_sent += len;
    if (rndv) ep->stats.rdma_writes++;
  }
  return rc;
}

int sr_ep_send_commit(sr_ep *ep) {
  int rc = SR_OK;
  if (ep->cur_pending) {
    pending *n = ep->cur_pending;
    ep->cur_pending = NULL;
    if (ep->pend_tail) ep->pend_tail->next = n;
    else ep->pend_head = n;
    ep->pend_tail = n;
    ep->pend_bytes += n->len;
  } else {
    rc = ep_post_message(ep, ep->cur_slot, ep->cur_len, ep->cur_rndv);
  }
  ep->sending = 0;
  maybe_send_credit(ep);
  pthread_mutex_unlock(&ep->lock);
  return rc;
}

void sr_ep_send_abort(sr_ep *ep) {
  if (ep->cur_pending) {
    free(ep->cur_pending);
    ep->cur_pending = NULL;
  } else {
    ep->free_slots[ep->nfree++] = ep->cur_slot;
    ep->send_credits++;
    if (ep->cur_rndv) ep->rndv_tokens++;
  }
  ep->sending = 0;
  pthread_mutex_unlock(&ep->lock);
}

int sr_ep_send(sr_ep *ep, const void *data, uint32_t len) {
  void *dst;
  int rc = sr_ep_send_begin(ep, len, &dst);
  if (rc) return rc;
  memcpy(dst, data, len);
  return sr_ep_send_commit(ep);
}

/* ------------------------------------------------------------------------------------------ */
/* endpoint queries                                                                            */

int sr_ep_is_open(sr_ep *ep) {
  pthread_mutex_lock(&ep->lock);
  int open = ep->state == EP_OPEN && !ep->local_close && !ep->fail_code && ep->ctx != NULL;
  pthread_mutex_unlock(&ep->lock);
  return open;
}

uint32_t sr_ep_max_message(sr_ep *ep) {
  pthread_mutex_lock(&ep->lock);
  uint32_t limit = ep->have_peer && ep->peer_rndv_size < ep->max_message ? ep->peer_rndv_size
                                                                         : ep->max_message;
  pthread_mutex_unlock(&ep->lock);
  return limit;
}

int sr_ep_peer_addr(sr_ep *ep, struct sockaddr_storage *out) {
  int rc = SR_ECLOSED;
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&ep->lock);
  if (ep->id) {
    struct sockaddr *sa = rdma_get_peer_addr(ep->id);
    memcpy(out, sa, addr_len(sa));
    rc = SR_OK;
  }
  pthread_mutex_unlock(&ep->lock);
  return rc;
}

int sr_ep_region(sr_ep *ep, int region, void **base, uint32_t *size) {
  pthread_mutex_lock(&ep->lock);
  int rc = SR_OK;
  if (region == 0 && ep->recv_pool) {
    *base = ep->recv_pool;
    *size = ep->R * ep->bufsz;
  } else if (region == 1 && ep->rndv_in) {
    *base = ep->rndv_in;
    *size = ep->max_message;
  } else {
    set_err("endpoint has no region %d (closed?)", region);
    rc = SR_ECLOSED;
  }
  pthread_mutex_unlock(&ep->lock);
  return rc;
}

void sr_ep_get_stats(sr_ep *ep, sr_ep_stats *out) {
  pthread_mutex_lock(&ep->lock);
  *out = ep->stats;
  pthread_mutex_unlock(&ep->lock);
}
