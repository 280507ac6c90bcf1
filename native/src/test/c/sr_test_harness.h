/*
 * The C tests' shared harness: the CHECK macros and the failure text a test leaves, the RDMA
 * address the device tests use, a client/server pair of contexts, helper processes, and the
 * hostile peer (a client speaking the wire format by hand over verbs) with the echo server it
 * attacks. The tests themselves live one file per concern:
 *
 *   sr_test_wire.c     configuration, the wire format's checks and the completion queue's
 *                      sizing (no device needed)
 *   sr_test_connect.c  the connection manager: connect, reject, peer death, close under load,
 *                      the cost of setting up an endpoint
 *   sr_test_flow.c     the data path: eager and rendezvous messages, credits, send timeouts
 *   sr_test_hostile.c  hostile peers: lying HELLOs and credits, quiet peers, failed accepts,
 *                      RDMA writes into another endpoint's memory, disconnect requests left
 *                      unanswered
 *   sr_test_fuzz.c     hostile peers sending fuzzed headers and lengths
 *   sr_test_main.c     the runner (which tests need a device, command line, helper processes)
 */
#ifndef SR_TEST_HARNESS_H
#define SR_TEST_HARNESS_H

#include "sr_testlib.h"
#include "sr_wire.h"

#include <fcntl.h>
#include <infiniband/verbs.h>
#include <signal.h>
#include <sys/wait.h>

extern char failure[1024];              /* why the running test failed */
extern struct sockaddr_in rdma_addr;    /* an address an RDMA device serves */
extern const char *self_exe;            /* this program, for helper processes */

#define CHECK(cond, ...)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      int _n = snprintf(failure, sizeof failure, "%s:%d: %s: ", __FILE__, __LINE__, #cond); \
      snprintf(failure + _n, sizeof failure - (size_t)_n, __VA_ARGS__);                   \
      goto fail;                                                                          \
    }                                                                                     \
  } while (0)

/* A helper that failed wrote `failure`: prefixed with `what`. */
#define CHECK_SUB(cond, what)                                                             \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      char _sub[sizeof failure];                                                          \
      memcpy(_sub, failure, sizeof _sub);                                                 \
      snprintf(failure, sizeof failure, "%s: %.900s", what, _sub);                        \
      goto fail;                                                                          \
    }                                                                                     \
  } while (0)

/* eager 1 KiB, 16 credits, max 1 MiB, 50 us poll spin */
sr_config small_config(void);

/* ---------------------------------------------------------------- a client/server pair */

typedef struct pair {
  tnode *server, *client;
  sr_listener *lst;
  struct sockaddr_in addr;
  sr_ep *cep;
  tep *ct;
  tep *st;
} pair;

int pair_listen(pair *p, const sr_config *cfg);
int pair_connect(pair *p, const char *pdata);
int pair_open(pair *p, const sr_config *cfg, int server_mode, const char *pdata);
void pair_close(pair *p);

/* Starts this program as a helper process; returns its pid and a pipe to read from. */
pid_t spawn_child(char *const argv[], FILE **out);

/* ---------------------------------------------------------------- hostile peers */

/* A client written against rdma_cm and verbs directly that speaks the wire format of sr_wire.h
 * by hand, posting its own sends, so that it can lie: bogus HELLO values, data before HELLO,
 * fuzzed headers and lengths, credits and rendezvous acknowledgements it was never given. It
 * posts more receives than it announces, so that a server sending past the credits it was
 * granted would show in hp->recvs. Every wait is bounded. */
enum { HP_BUF = 4096, HP_RECVS = 64, HP_SENDS = 16 };

typedef struct hpeer {
  struct rdma_event_channel *ch;
  struct rdma_cm_id *id;
  struct ibv_pd *pd;
  struct ibv_cq *cq;
  struct ibv_mr *mr;
  uint8_t *buf;          /* HP_RECVS receive buffers of HP_BUF bytes, then HP_SENDS send ones */
  uint32_t next_send;
  sr_wire_params server; /* the accepting side's parameters (the accept's private data) */
  int recvs;             /* messages received from the server */
  int disconnected;      /* the server disconnected */
  int qp_failed;         /* a completion with an error status */
  enum ibv_wc_status last_status; /* of the last send or write waited for */
} hpeer;

int hp_event(hpeer *hp, enum rdma_cm_event_type want, int ms, void *pdata, size_t pdlen);
int hp_post_recv(hpeer *hp, uint32_t i);
int hp_poll(hpeer *hp, int ms, uint64_t want_send);
int hp_connect(hpeer *hp, const struct sockaddr_in *addr);
int hp_send(hpeer *hp, const void *msg, uint32_t len);
uint32_t hp_msg(uint8_t *out, uint8_t type, uint16_t credits, uint8_t acks, uint32_t len_field,
                const void *payload, uint32_t payload_len);
sr_wire_params hp_params(hpeer *hp, uint32_t credits);
int hp_hello(hpeer *hp, const sr_wire_params *p);
int hp_wait_disconnected(hpeer *hp, int ms);
void hp_destroy(hpeer *hp);
/* RDMA WRITEs `len` bytes of `data` (at most HP_BUF) to (addr, rkey), signaled, and waits
 * (bounded): 0 when it completed, 1 when it failed (hp->last_status says how), -1 when it did not
 * complete. */
int hp_write(hpeer *hp, const void *data, uint32_t len, uint64_t addr, uint32_t rkey);

/* An echo server with a well-behaved client of the runtime connected to it, to which hostile
 * peers connect one after another. */
typedef struct hsrv {
  pair p;
  uint32_t seq;     /* the good client's next message */
  long live;        /* runtime objects with the good client connected */
  uint64_t cq;      /* the server's completion-queue entries then */
  uint64_t violations;
  int cases;
} hsrv;

/* One hostile peer: connects, `lie`s, and must find itself disconnected by the server, whose
 * endpoint closes once with a cause containing `want` (any cause when NULL), the violation
 * counted once, while the good client keeps getting its echoes; once the hostile endpoint is
 * released the server is back to the objects and completion-queue entries it had before. */
typedef int (*hp_lie)(hpeer *hp, void *arg);

int hsrv_good_echo(hsrv *h);
int hsrv_start(hsrv *h);
int hsrv_case(hsrv *h, const char *name, hp_lie lie, void *arg, const char *want,
              int counted);
void hsrv_stop(hsrv *h);

/* ---------------------------------------------------------------- the tests */

/* sr_test_wire.c */
int t_config_validation(void);
int t_wire_protocol(void);
int t_unknown_device(void);
int t_no_device_clear_error(void);
int t_context_lifecycle(void);
int t_cq_sizing(void);
/* sr_test_connect.c */
int t_connect_private_data(void);
int t_reject_and_no_listener(void);
int t_peer_death(void);
int child_connect(const char *host, const char *port);
int child_listen(const char *host);
int t_close_under_load(void);
int t_connect_setup_cost(void);
/* sr_test_flow.c */
int t_send_recv_echo(void);
int t_rdma_write_path(void);
int t_callback_sends_queue(void);
int t_send_timeout_withheld_credits(void);
int t_callback_queue_bounded(void);
int t_flow_control_slow_receiver(void);
/* sr_test_hostile.c */
int t_hostile_hello(void);
int t_hostile_credits(void);
int t_hostile_quiet_after_queue(void);
int child_memlock_server(const char *host, const char *count);
int t_failed_accept_cq_entries(void);
int t_hostile_cross_endpoint_write(void);
int t_hostile_withheld_disconnect(void);
/* sr_test_fuzz.c */
int t_hostile_fuzz(void);

#endif
