/*
 * Strata's RDMA endpoint runtime: message endpoints over rdma-core (libibverbs + librdmacm).
 *
 * A context (sr_ctx) owns one rdma_cm event channel, the protection domain and completion queue
 * of each device it uses, and one progress loop (sr_ctx_run) that busy-polls the completion
 * queues for `poll_spin_us` (yielding the core every 8th empty look), then arms them and sleeps on
 * the completion channels. Every callback runs on the thread that called sr_ctx_run.
 *
 * Endpoints are reliable-connected queue pairs with per-endpoint registered buffer pools:
 * messages up to `eager_size` bytes go by SEND into the peer's posted receive buffers, larger ones
 * (up to `max_message`) by RDMA WRITE into the peer's registered rendezvous region followed by a
 * SEND of a descriptor. Sends are flow-controlled by credits (one per receive buffer the peer has
 * posted), returned piggy-backed on messages or by explicit credit messages.
 *
 * Errors: functions return 0 or a negative SR_E* code and set a thread-local message naming what
 * failed (device, port, GID, peer): sr_last_error(). Nothing in the runtime aborts or exits.
 */
#ifndef STRATA_RDMA_H
#define STRATA_RDMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  SR_OK = 0,
  SR_EINVAL = -1,      /* bad argument or configuration */
  SR_ENODEV = -2,      /* no RDMA device / rdma_cm not available / port down */
  SR_ENOMEM = -3,      /* allocation or memory registration failed */
  SR_ECLOSED = -4,     /* endpoint closed (locally, by the peer, or after a transport error) */
  SR_ETIMEDOUT = -5,   /* connect did not complete in time */
  SR_EREJECTED = -6,   /* the peer rejected the connection (or nothing listens there) */
  SR_EUNREACHABLE = -7,/* address/route resolution failed or peer unreachable */
  SR_EWOULDBLOCK = -8, /* connect called on the progress thread */
  SR_EIO = -9,         /* any other verbs / rdma_cm failure */
  SR_EAGAIN = -10,     /* sr_ep_send_begin_wait: no credit within the caller's wait; nothing sent,
                          the endpoint stays open */
  SR_EMSGSIZE = -11    /* message above sr_ep_max_message; nothing sent, the endpoint stays open */
};

/* Largest private data a caller passes to sr_connect (RC connect requests carry 56 bytes; one
 * byte carries the length because the IB CM pads what it delivers). */
#define SR_MAX_PRIVATE_DATA 55

typedef struct sr_config {
  const char *device;          /* required device name, or NULL/"" for whatever rdma_cm resolves */
  uint32_t eager_size;         /* bytes per registered send/receive buffer (payload), >= 64 */
  uint32_t credits;            /* receive buffers posted per endpoint, >= 4 */
  uint32_t max_message;        /* largest message, >= eager_size */
  uint32_t poll_spin_us;       /* busy-poll time before waiting on the completion channel */
  uint32_t send_timeout_ms;    /* longest a send waits for the peer's credit, [1, 86400000]: then
                                  the endpoint closes (SR_ETIMEDOUT) */
} sr_config;

typedef struct sr_ctx sr_ctx;
typedef struct sr_ep sr_ep;
typedef struct sr_listener sr_listener;

typedef struct sr_callbacks {
  /* A message arrived; `data` is valid until the callback returns. `region` is 0 for an eager
   * receive buffer, 1 for the rendezvous region; `offset` is data's offset in that region (see
   * sr_ep_region). */
  void (*on_message)(sr_ep *ep, void *ep_user, const void *data, uint32_t len, int region,
                     uint32_t offset);
  /* The endpoint closed; `cause` is NULL after a local close, else what happened. Called once
   * for every endpoint that was accepted (on_connect_request returned non-NULL) or returned by
   * sr_connect. */
  void (*on_close)(sr_ep *ep, void *ep_user, int code, const char *cause);
  /* A connection request at `lst` for the new endpoint `ep`: return a non-NULL user pointer to
   * accept it, NULL to reject. `pdata` is what the peer passed to sr_connect. An accepted
   * endpoint is owned by the runtime; sr_ep_retain it to keep using the handle after on_close. */
  void *(*on_connect_request)(sr_listener *lst, void *lst_user, sr_ep *ep,
                              const struct sockaddr *peer, const void *pdata, uint32_t pdata_len);
  /* An accepted endpoint is established. */
  void (*on_established)(sr_ep *ep, void *ep_user);
  /* The endpoint's queue pair, registered memory and protection domain are destroyed (its
   * teardown): called once, after on_close, for every endpoint on_close was called for. A close
   * sends a disconnect request and the teardown waits for the connection manager's DISCONNECTED
   * event (the peer's answer, or the connection manager giving up on it), so a peer that ignores
   * disconnect requests keeps the endpoint's memory pinned until then: whoever caps endpoints
   * counts one until this callback. May be NULL. */
  void (*on_released)(sr_ep *ep, void *ep_user);
} sr_callbacks;

/* Fills `cfg` with the defaults (8192, 64, 4 MiB, 100 us, 10000 ms). credits x (eager_size + 16)
 * must stay below 2^31 (the receive pool is one region addressed by 32-bit signed offsets). */
void sr_config_defaults(sr_config *cfg);

/* Thread-local description of the last error of this thread. */
const char *sr_last_error(void);

/* Names of the RDMA devices with their first active port, for diagnostics: returns the number
 * of devices (0 when there is none), writes "name:port=STATE,..." into buf. */
int sr_probe_devices(const char *want_device, char *buf, size_t buflen);

/* Flag for sr_ctx_create: do not open rdma_cm (a context that can only run and stop; tests). */
#define SR_CTX_NO_CM 1u

int sr_ctx_create(const sr_config *cfg, const sr_callbacks *cb, unsigned flags, sr_ctx **out);
/* Runs the progress loop on the calling thread until sr_ctx_stop. */
int sr_ctx_run(sr_ctx *ctx);
/* Asks the loop to close every endpoint and listener and return; safe from any thread. */
void sr_ctx_stop(sr_ctx *ctx);
/* Frees the context after sr_ctx_run returned (or if it never ran). */
void sr_ctx_destroy(sr_ctx *ctx);
/* Number of live contexts and endpoints in this process (leak checks). */
long sr_live_objects(void);

int sr_listen(sr_ctx *ctx, const struct sockaddr *addr, int backlog, void *user,
              sr_listener **out);
/* Bound address (the port when 0 was asked). */
int sr_listener_addr(sr_listener *lst, struct sockaddr_storage *out);
/* Stops listening; established endpoints stay open. Frees the listener. */
void sr_listener_close(sr_listener *lst);

/* Connects; blocks until established, rejected, failed or timed out. On success *out holds an
 * endpoint with one user reference (release with sr_ep_release). Not on the progress thread. */
int sr_connect(sr_ctx *ctx, const struct sockaddr *addr, const void *pdata, uint32_t pdata_len,
               uint32_t timeout_ms, void *user, sr_ep **out);

/* Reserves space for a message of `len` bytes in registered memory and returns it in *dst; the
 * caller writes the message there and calls sr_ep_send_commit from the same thread. Waits while
 * the peer has no credit, at most `send_timeout_ms`: then the endpoint is closed with that cause
 * (its on_close follows) and SR_ETIMEDOUT returned. On the progress thread (in a callback) it
 * never waits: the message is copied to a queue that goes out, in order, as credits return; the
 * queue holds at most max_message + credits x eager_size bytes, and a message that does not fit,
 * or finds the queue's head older than `send_timeout_ms`, closes the endpoint (SR_ECLOSED).
 * Between begin and commit the endpoint's send lock is held. */
int sr_ep_send_begin(sr_ep *ep, uint32_t len, void **dst);
/* sr_ep_send_begin waiting at most min(max_wait_ms, send_timeout_ms) for credit: when the
 * caller's shorter wait runs out, returns SR_EAGAIN (nothing sent, the endpoint stays open) — a
 * client call bounded by its own timeout. */
int sr_ep_send_begin_wait(sr_ep *ep, uint32_t len, uint32_t max_wait_ms, void **dst);
int sr_ep_send_commit(sr_ep *ep);
/* Abandons a begun send (nothing is sent). */
void sr_ep_send_abort(sr_ep *ep);
/* begin + memcpy + commit. */
int sr_ep_send(sr_ep *ep, const void *data, uint32_t len);

/* Closes the endpoint (disconnects); idempotent, any thread. */
void sr_ep_close(sr_ep *ep);
/* Takes a user reference (accepted endpoints start with none: the runtime's own). */
void sr_ep_retain(sr_ep *ep);
/* Drops a user reference; the endpoint is freed once closed and unreferenced. */
void sr_ep_release(sr_ep *ep);
int sr_ep_is_open(sr_ep *ep);
/* Largest message the endpoint carries: the smaller of this side's max_message and the peer's
 * rendezvous region (exchanged at connect: the accept's private data, the HELLO). */
uint32_t sr_ep_max_message(sr_ep *ep);
int sr_ep_peer_addr(sr_ep *ep, struct sockaddr_storage *out);
/* Base and size of the endpoint's receive regions (0: eager receive pool, 1: rendezvous), valid
 * from on_established / sr_connect until on_close. */
int sr_ep_region(sr_ep *ep, int region, void **base, uint32_t *size);

/* Per-endpoint counters (all monotonically increasing). */
typedef struct sr_ep_stats {
  uint64_t msgs_sent, bytes_sent, msgs_received, bytes_received;
  uint64_t rdma_writes;     /* messages sent through the rendezvous (RDMA WRITE) path */
  uint64_t credit_msgs;     /* explicit credit messages sent */
  uint64_t credit_waits;    /* sends that had to wait for a credit */
} sr_ep_stats;
void sr_ep_get_stats(sr_ep *ep, sr_ep_stats *out);

/* Context-wide counters of the progress loop, and what the context holds now. */
typedef struct sr_ctx_stats {
  uint64_t completions, cq_events, spins_ended;
  uint64_t protocol_violations; /* endpoints closed for a peer breaking the wire protocol (bad
                                   HELLO, fuzzed header or length, credits or rendezvous
                                   acknowledgements never granted): one per endpoint */
  uint64_t cq_entries;          /* completion-queue entries reserved now by endpoints that hold
                                   resources (not a counter: back where it was once they are
                                   torn down) */
  uint64_t cq_size;             /* entries of the devices' completion queues now: grown by
                                   doubling as endpoints need, halved (once the CQs are found
                                   empty) while a quarter or less is reserved, never below 1024
                                   per device nor above the device's max_cqe (an endpoint that
                                   would need more is refused) */
  uint64_t endpoints_closing;   /* endpoints closed (on_close delivered) whose teardown waits for
                                   the connection manager's DISCONNECTED event (not a counter) */
} sr_ctx_stats;
void sr_ctx_get_stats(sr_ctx *ctx, sr_ctx_stats *out);

/* Human-readable name of a code. */
const char *sr_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif
