/*
 * Strata's RDMA endpoint runtime (see include/strata_rdma.h for the contract): what its files,
 * one per concern (native/README.md maps them), share. The wire format's short names, the
 * structures of contexts, devices, listeners and endpoints, and the functions one file calls in
 * another, declared hidden: libstrata_rdma.so exports the API of strata_rdma.h, the checks of
 * sr_wire.h and the JNI entry points, not these.
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
#ifndef SR_INTERNAL_H
#define SR_INTERNAL_H

#include "strata_rdma.h"
#include "sr_wire.h"

#include <infiniband/verbs.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

enum { MSG_DATA = SR_MSG_DATA, MSG_RNDV = SR_MSG_RNDV, MSG_CREDIT = SR_MSG_CREDIT,
       MSG_HELLO = SR_MSG_HELLO };
typedef sr_wire_hdr wire_hdr;
typedef sr_wire_params wire_params;
#define HDR_SIZE ((uint32_t)sizeof(wire_hdr))
#define WIRE_MAGIC SR_WIRE_MAGIC

/* A work request's wr_id names its endpoint so that a completion finds it (or finds it gone):
 * slot (20 bits) | generation (12 bits) | kind (4 bits) | index (28 bits) */
enum { WR_RECV = 1, WR_SEND = 2 };

typedef struct pending {
  struct pending *next;
  uint64_t queued_ns;
  uint32_t len;
  char data[];
} pending;

enum { OBJ_LISTENER = 1, OBJ_EP = 2 };

/* A device the context's endpoints use: the completion channel and the completion queue they share.
 * No protection domain: each endpoint has its own (sr_ep.pd), so that no queue pair can reach
 * another endpoint's registered memory. */
typedef struct sr_dev {
  struct ibv_context *verbs;
  struct ibv_comp_channel *ch;
  struct ibv_cq *cq;
  int cq_size, cq_used;
  int max_cqe; /* the device's limit: an endpoint that would need a larger CQ is refused */
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
  /* The endpoint's own protection domain: its queue pair and registrations, nothing else. An
   * rkey is only honoured for a queue pair of the region's protection domain, so the address and
   * rkey of this endpoint's rendezvous region (sent in clear in the accept or HELLO) let no other
   * endpoint's peer write there: its RDMA WRITE completes with a remote access error. */
  struct ibv_pd *pd;
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
  int cm_established; /* accepted: the connection manager's ESTABLISHED event was handled */
  int close_notified;     /* on_close delivered */
  int closing_counted;    /* counted in ctx->stats.endpoints_closing (closed, not torn down) */
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
  uint32_t queued_msgs; /* progress thread only: messages queued for credit since the last sweep */
  int cq_shrink;        /* progress thread only: a teardown left a CQ mostly unreserved */

  atomic_int stop;
  atomic_int running;
  atomic_int connects; /* sr_connect calls under way: sr_ctx_destroy waits for them */
  pthread_t runner;
  sr_ctx_stats stats;
};

/* What the files call in one another: hidden, internal to the library, so that the .so exports
 * only its API and the JNI entry points. */
#pragma GCC visibility push(hidden)

/* sr_errors.c */
extern __thread char tls_err[512]; /* the calling thread's last error (sr_last_error) */
extern atomic_long live_objects;   /* contexts, listeners and endpoints not yet freed */
void set_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *addr_str(const struct sockaddr *sa, char *buf, size_t len); /* "host:port" */
socklen_t addr_len(const struct sockaddr *sa);
uint64_t now_ns(void); /* CLOCK_MONOTONIC */

/* sr_devices.c */
int check_config(const sr_config *cfg); /* SR_EINVAL, naming the value out of range */
/* The context's device for `verbs`, opened at first use; progress thread. */
sr_dev *get_dev(sr_ctx *ctx, struct ibv_context *verbs);
int dev_reserve_cq(sr_ctx *ctx, sr_dev *d, int more); /* room for `more` CQ entries, resizing the CQ */
/* Gives back `less` entries; when that leaves a quarter or less of the CQ reserved, asks the
 * progress loop to shrink it (shrink_cqs, once a poll found the CQs empty). */
void dev_unreserve_cq(sr_ctx *ctx, sr_dev *d, int less);
void shrink_cqs(sr_ctx *ctx); /* halves CQs while a quarter or less is reserved; CQs empty */
/* The CQ size for `used` reserved entries: `size` doubled until they fit (0 when that passes
 * `max`: refused), or halved while they fill a quarter or less, never below SR_CQ_MIN. Pure. */
int cq_target_size(int size, int used, int max);
#define SR_CQ_MIN 1024

/* sr_endpoint.c */
const char *ep_where(sr_ep *ep, char *buf, size_t len); /* the peer, device, port and GID */
void ep_unref_locked_and_unlock(sr_ep *ep); /* frees the endpoint at the last reference */
sr_ep *ep_new(sr_ctx *ctx, void *user); /* in the context's list, one (the runtime's) reference */
int post_recv(sr_ep *ep, uint32_t idx); /* (re)posts receive buffer idx */
int ep_setup_resources(sr_ep *ep); /* PD, QP, registered pools, posted receives; progress thread */
void ep_fill_params(sr_ep *ep, wire_params *p); /* this side's parameters for the peer */
int ep_take_params(sr_ep *ep, const wire_params *p); /* lock held */
int ep_post_slot(sr_ep *ep, uint32_t slot, uint32_t bytes, int rndv_len); /* lock held */
wire_hdr *slot_hdr(sr_ep *ep, uint32_t slot); /* the header in send slot `slot` */
void take_owed(sr_ep *ep, wire_hdr *h); /* lock held */
int ep_can_send(sr_ep *ep, uint32_t len, int *rndv); /* credits, slot, region free; lock held */
void maybe_send_credit(sr_ep *ep); /* lock held */

/* sr_close.c */
void ep_mark_closed(sr_ep *ep, int code, const char *cause); /* progress thread, lock not held */
void ep_teardown(sr_ep *ep); /* QP, registrations, cm_id; progress thread */
/* Closes for a cause found on a user thread or in a callback; lock held, released. */
void ep_fail_async_and_unlock(sr_ep *ep, int code, const char *cause);
void handle_close_request(sr_ep *ep); /* a queued close, on the progress thread */

/* sr_context.c */
int on_progress_thread(sr_ctx *ctx); /* the caller is ctx's progress thread */
void wake(sr_ctx *ctx); /* wakes the progress thread from epoll_wait */
void process_requests(sr_ctx *ctx); /* queued endpoint closes and listener frees; progress thread */

/* sr_completions.c */
/* ep_mark_closed with a formatted cause. */
void ep_fail(sr_ep *ep, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void mark_established(sr_ep *ep); /* an accepted endpoint opens: on_established */
int poll_cqs(sr_ctx *ctx); /* every device's CQ; the number of completions handled */

/* sr_cm_events.c */
/* Ends an sr_connect under way with the formatted cause and tears the endpoint down. */
void connect_failed(sr_ep *ep, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void drain_cm_events(sr_ctx *ctx); /* every rdma_cm event pending */

/* sr_send.c */
int ep_post_message(sr_ep *ep, uint32_t slot, uint32_t len, int rndv); /* lock held */

#pragma GCC visibility pop

#endif
