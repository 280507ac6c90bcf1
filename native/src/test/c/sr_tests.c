/*
 * Tests of the endpoint runtime. Tests marked "device" need an RDMA device (SoftRoCE rxe0 in the
 * guest of dev-support/softroce-test, or real hardware); without one they are reported as
 * skipped, unless --require-device makes that a failure. Prints one line per test and a final
 * "N passed, N failed" line; exits 1 on any failure.
 *
 *   strata_rdma_tests [--require-device] [TEST...]
 *   strata_rdma_tests --child-connect ADDR PORT     (helper process of the peer-death tests)
 *   strata_rdma_tests --child-listen                (helper: listens, prints its port)
 */
#include "sr_testlib.h"
#include "sr_wire.h"

#include <signal.h>
#include <sys/wait.h>

static char failure[1024];

#define CHECK(cond, ...)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      int _n = snprintf(failure, sizeof failure, "%s:%d: %s: ", __FILE__, __LINE__, #cond); \
      snprintf(failure + _n, sizeof failure - (size_t)_n, __VA_ARGS__);                   \
      goto fail;                                                                          \
    }                                                                                     \
  } while (0)

static struct sockaddr_in rdma_addr;
static const char *self_exe;

static sr_config small_config(void) {
  sr_config c;
  sr_config_defaults(&c);
  c.eager_size = 1024;
  c.credits = 16;
  c.max_message = 1u << 20;
  c.poll_spin_us = 50;
  return c;
}

/* ---------------------------------------------------------------- tests without a device */

static int t_config_validation(void) {
  sr_config c = small_config();
  sr_ctx *ctx = NULL;
  c.credits = 2;
  int rc = sr_ctx_create(&c, &test_callbacks, SR_CTX_NO_CM, &ctx);
  CHECK(rc == SR_EINVAL, "credits=2 gave %d", rc);
  CHECK(strstr(sr_last_error(), "credits 2") != NULL, "message: %s", sr_last_error());
  c = small_config();
  c.max_message = 100;
  rc = sr_ctx_create(&c, &test_callbacks, SR_CTX_NO_CM, &ctx);
  CHECK(rc == SR_EINVAL && strstr(sr_last_error(), "max message 100"), "rc %d: %s", rc,
        sr_last_error());
  c = small_config();
  c.eager_size = 16;
  rc = sr_ctx_create(&c, &test_callbacks, SR_CTX_NO_CM, &ctx);
  CHECK(rc == SR_EINVAL && strstr(sr_last_error(), "eager size 16"), "rc %d: %s", rc,
        sr_last_error());
  /* 4096 x (1 MiB + 16) wraps 32 bits: a 65,536-byte "pool" and negative offsets in Java */
  c = small_config();
  c.credits = 4096;
  c.eager_size = 1u << 20;
  c.max_message = 1u << 20;
  rc = sr_ctx_create(&c, &test_callbacks, SR_CTX_NO_CM, &ctx);
  CHECK(rc == SR_EINVAL && strstr(sr_last_error(), "above 2147483647"), "rc %d: %s", rc,
        sr_last_error());
  c = small_config();
  c.send_timeout_ms = 0;
  rc = sr_ctx_create(&c, &test_callbacks, SR_CTX_NO_CM, &ctx);
  CHECK(rc == SR_EINVAL && strstr(sr_last_error(), "send timeout 0"), "rc %d: %s", rc,
        sr_last_error());
  return 0;
fail:
  return 1;
}

/* One message into a buffer of exactly its length (AddressSanitizer sees any read past it). */
static uint8_t *wire_msg(uint8_t type, uint16_t credits, uint8_t acks, uint32_t len_field,
                         const void *payload, uint32_t plen, uint32_t *byte_len) {
  sr_wire_hdr h = {.type = type, .rndv_acks = acks, .credits = credits, .len = len_field};
  *byte_len = (uint32_t)sizeof h + plen;
  uint8_t *m = malloc(*byte_len);
  memcpy(m, &h, sizeof h);
  if (plen) memcpy(m + sizeof h, payload, plen);
  return m;
}

static int wire_verdict(const sr_wire_state *s, uint8_t type, uint16_t credits, uint8_t acks,
                        uint32_t len_field, const void *payload, uint32_t plen, char *why,
                        size_t whylen) {
  uint32_t n;
  uint8_t *m = wire_msg(type, credits, acks, len_field, payload, plen, &n);
  int r = sr_wire_check(s, m, n, why, whylen);
  free(m);
  return r;
}

/* The receive path's protocol checks against a hostile peer: bogus HELLO values, messages
 * before HELLO, credits and rendezvous acknowledgements never granted, lengths beyond the
 * buffers, unknown types, and fuzzed headers and lengths (no device: the checks are pure). */
static int t_wire_protocol(void) {
  char why[200];
  const sr_wire_params good = {.magic = SR_WIRE_MAGIC, .credits = 16, .eager_size = 1024,
                               .rndv_size = 1u << 20, .rndv_addr = 0x1000, .rndv_rkey = 7};
  const uint32_t P = (uint32_t)sizeof good;
  sr_wire_state fresh = {.accepted = 1, .eager = 1024, .max_message = 1u << 20};
  CHECK(wire_verdict(&fresh, SR_MSG_HELLO, 0, 0, P, &good, P, why, sizeof why) == 0,
        "a valid HELLO refused: %s", why);
  struct { const char *name; sr_wire_params p; const char *want; } bad_hellos[] = {
      {"credits 1 (sending needs 2)", {SR_WIRE_MAGIC, 1, 1024, 1u << 20, 0, 0, 0}, "credits"},
      {"credits 0", {SR_WIRE_MAGIC, 0, 1024, 1u << 20, 0, 0, 0}, "credits"},
      {"credits 3", {SR_WIRE_MAGIC, 3, 1024, 1u << 20, 0, 0, 0}, "credits"},
      {"credits 2^32-1", {SR_WIRE_MAGIC, 0xffffffffu, 1024, 1u << 20, 0, 0, 0}, "credits"},
      {"eager 0", {SR_WIRE_MAGIC, 16, 0, 1u << 20, 0, 0, 0}, "eager"},
      {"eager 2^32-1", {SR_WIRE_MAGIC, 16, 0xffffffffu, 0xffffffffu, 0, 0, 0}, "eager"},
      {"region below eager", {SR_WIRE_MAGIC, 16, 1024, 100, 0, 0, 0}, "rendezvous"},
      {"region above 1 GiB", {SR_WIRE_MAGIC, 16, 1024, 0x80000000u, 0, 0, 0}, "rendezvous"},
      {"wrong magic", {0x12345678u, 16, 1024, 1u << 20, 0, 0, 0}, "another protocol"},
  };
  for (size_t i = 0; i < sizeof bad_hellos / sizeof bad_hellos[0]; i++) {
    why[0] = 0;
    CHECK(wire_verdict(&fresh, SR_MSG_HELLO, 0, 0, P, &bad_hellos[i].p, P, why, sizeof why) != 0,
          "HELLO with %s accepted", bad_hellos[i].name);
    CHECK(strstr(why, bad_hellos[i].want) != NULL, "HELLO with %s: reason '%s'",
          bad_hellos[i].name, why);
  }
  CHECK(wire_verdict(&fresh, SR_MSG_HELLO, 0, 0, P, &good, 8, why, sizeof why) != 0,
        "a truncated HELLO accepted");
  CHECK(wire_verdict(&fresh, SR_MSG_HELLO, 5, 0, P, &good, P, why, sizeof why) == 0,
        "HELLO returning 5 of 16 credits refused: %s", why);
  CHECK(wire_verdict(&fresh, SR_MSG_HELLO, 17, 0, P, &good, P, why, sizeof why) != 0,
        "HELLO returning 17 of 16 credits accepted");
  CHECK(wire_verdict(&fresh, SR_MSG_HELLO, 0, 1, P, &good, P, why, sizeof why) != 0,
        "HELLO acknowledging a rendezvous never sent accepted");
  uint8_t data[100] = {0};
  for (uint8_t t = SR_MSG_DATA; t <= SR_MSG_CREDIT; t++) {
    CHECK(wire_verdict(&fresh, t, 0, 0, t == SR_MSG_CREDIT ? 0 : 100, data, 100, why,
                       sizeof why) != 0 && strstr(why, "before HELLO"),
          "type %u before HELLO: '%s'", t, why);
  }
  sr_wire_state open = {.accepted = 1, .have_peer = 1, .peer_credits = 16, .send_credits = 10,
                        .rndv_tokens = 0, .eager = 1024, .max_message = 1u << 20};
  CHECK(wire_verdict(&open, SR_MSG_HELLO, 0, 0, P, &good, P, why, sizeof why) != 0 &&
        strstr(why, "second HELLO"), "a second HELLO: '%s'", why);
  sr_wire_state connecting = open;
  connecting.accepted = 0;
  CHECK(wire_verdict(&connecting, SR_MSG_HELLO, 0, 0, P, &good, P, why, sizeof why) != 0,
        "HELLO to the connecting side accepted");
  CHECK(wire_verdict(&open, SR_MSG_DATA, 6, 1, 100, data, 100, why, sizeof why) == 0,
        "valid data refused: %s", why);
  CHECK(wire_verdict(&open, SR_MSG_DATA, 0, 0, 2000, data, 100, why, sizeof why) != 0,
        "data length 2000 above the eager size accepted");
  CHECK(wire_verdict(&open, SR_MSG_DATA, 0, 0, 100, data, 50, why, sizeof why) != 0,
        "data length 100 in 50 payload bytes accepted");
  CHECK(wire_verdict(&open, SR_MSG_RNDV, 0, 0, 1u << 20, NULL, 0, why, sizeof why) == 0,
        "a full-region rendezvous refused: %s", why);
  CHECK(wire_verdict(&open, SR_MSG_RNDV, 0, 0, (1u << 20) + 1, NULL, 0, why, sizeof why) != 0,
        "a rendezvous above the region accepted");
  CHECK(wire_verdict(&open, SR_MSG_CREDIT, 7, 0, 0, NULL, 0, why, sizeof why) != 0 &&
        strstr(why, "granted"), "7 credits returned with 10 of 16 held: '%s'", why);
  CHECK(wire_verdict(&open, SR_MSG_CREDIT, 0xffff, 0, 0, NULL, 0, why, sizeof why) != 0,
        "65535 credits returned accepted");
  open.rndv_tokens = 1;
  CHECK(wire_verdict(&open, SR_MSG_CREDIT, 0, 1, 0, NULL, 0, why, sizeof why) != 0 &&
        strstr(why, "rendezvous"), "an inflated rendezvous acknowledgement: '%s'", why);
  open.rndv_tokens = 0;
  CHECK(wire_verdict(&open, SR_MSG_CREDIT, 0, 255, 0, NULL, 0, why, sizeof why) != 0,
        "255 rendezvous acknowledgements accepted");
  for (int t = 0; t < 256; t++) {
    if (t >= SR_MSG_DATA && t <= SR_MSG_HELLO) continue;
    CHECK(wire_verdict(&open, (uint8_t)t, 0, 0, 0, NULL, 0, why, sizeof why) != 0,
          "unknown type %d accepted", t);
  }
  for (uint32_t n = 0; n < sizeof(sr_wire_hdr); n++) {
    uint8_t *m = malloc(n ? n : 1);
    memset(m, SR_MSG_CREDIT, n ? n : 1);
    CHECK(sr_wire_check(&open, m, n, why, sizeof why) != 0, "a %u-byte message accepted", n);
    free(m);
  }
  /* fuzz: random headers, lengths and states; whatever is accepted keeps the invariants */
  unsigned seed = 12345;
  int accepted = 0;
  for (int i = 0; i < 200000; i++) {
    uint32_t n = (uint32_t)(rand_r(&seed) % 80);
    uint8_t *m = malloc(n ? n : 1);
    for (uint32_t k = 0; k < n; k++) m[k] = (uint8_t)rand_r(&seed);
    if (n >= 1 && rand_r(&seed) % 2) m[0] = (uint8_t)(1 + rand_r(&seed) % 4);
    if (n >= 8 && rand_r(&seed) % 2) {
      uint32_t small = (uint32_t)(rand_r(&seed) % 96);
      memcpy(m + 4, &small, 4);
    }
    if (n >= 4 && rand_r(&seed) % 2) { m[1] = (uint8_t)(rand_r(&seed) % 2); m[2] = (uint8_t)(rand_r(&seed) % 8); m[3] = 0; }
    if (n >= 16 + P && rand_r(&seed) % 2) memcpy(m + 16, &good, P);
    sr_wire_state st = {.accepted = rand_r(&seed) % 2, .have_peer = rand_r(&seed) % 2,
                        .peer_credits = 16, .send_credits = rand_r(&seed) % 17,
                        .rndv_tokens = (uint32_t)(rand_r(&seed) % 2), .eager = 64,
                        .max_message = 4096};
    if (sr_wire_check(&st, m, n, why, sizeof why) == 0) {
      accepted++;
      sr_wire_hdr h;
      memcpy(&h, m, sizeof h);
      CHECK(n >= sizeof h, "accepted %u bytes", n);
      CHECK(h.type >= SR_MSG_DATA && h.type <= SR_MSG_HELLO, "accepted type %u", h.type);
      CHECK(h.type == SR_MSG_HELLO || st.have_peer, "type %u accepted before HELLO", h.type);
      CHECK(h.type != SR_MSG_DATA || (h.len <= st.eager && sizeof h + h.len <= n),
            "data length %u in %u bytes accepted", h.len, n);
      CHECK(h.type != SR_MSG_RNDV || h.len <= st.max_message, "rendezvous %u accepted", h.len);
      uint32_t granted = st.peer_credits;
      int32_t held = st.send_credits;
      uint32_t tokens = st.rndv_tokens;
      if (h.type == SR_MSG_HELLO) {
        sr_wire_params p;
        memcpy(&p, m + sizeof h, sizeof p);
        CHECK(sr_wire_check_params(&p, why, sizeof why) == 0 && st.accepted && !st.have_peer,
              "bad HELLO accepted");
        granted = p.credits;
        held = 0;
        tokens = 1;
      }
      CHECK(held + h.credits <= (int64_t)granted, "credits %u accepted", h.credits);
      CHECK(tokens + h.rndv_acks <= 1, "acks %u accepted", h.rndv_acks);
    }
    free(m);
  }
  printf("  (200000 fuzzed messages, %d accepted, all within the protocol)\n", accepted);
  return 0;
fail:
  return 1;
}

static int t_unknown_device(void) {
  char buf[256];
  int n = sr_probe_devices("strata_no_such_dev0", buf, sizeof buf);
  CHECK(n == 0, "probe of a missing device returned %d", n);
  CHECK(strstr(sr_last_error(), "strata_no_such_dev0") != NULL, "message: %s", sr_last_error());
  sr_config c = small_config();
  c.device = "strata_no_such_dev0";
  sr_ctx *ctx = NULL;
  int rc = sr_ctx_create(&c, &test_callbacks, 0, &ctx);
  CHECK(rc == SR_ENODEV, "create with a missing device gave %d", rc);
  CHECK(ctx == NULL, "context returned on failure");
  return 0;
fail:
  return 1;
}

static int t_no_device_clear_error(void) {
  char buf[256];
  int n = sr_probe_devices(NULL, buf, sizeof buf);
  if (n > 0) {
    printf("  (device present: %s; checking the probe instead)\n", buf);
    CHECK(strlen(buf) > 0, "empty device description");
    return 0;
  }
  sr_ctx *ctx = NULL;
  int rc = sr_ctx_create(NULL, &test_callbacks, 0, &ctx);
  CHECK(rc == SR_ENODEV, "create without a device gave %d", rc);
  CHECK(strstr(sr_last_error(), "RDMA") != NULL, "message: %s", sr_last_error());
  printf("  (no device: \"%s\")\n", sr_last_error());
  return 0;
fail:
  return 1;
}

static int t_context_lifecycle(void) {
  long before = sr_live_objects();
  int rc;
  tnode *n = node_start(NULL, SR_CTX_NO_CM, &rc);
  CHECK(n != NULL, "context without rdma_cm: %d %s", rc, sr_last_error());
  CHECK(sr_live_objects() == before + 1, "live objects %ld", sr_live_objects());
  sr_ep *ep = NULL;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(1)};
  rc = sr_connect(n->ctx, (struct sockaddr *)&a, NULL, 0, 100, NULL, &ep);
  CHECK(rc == SR_ENODEV, "connect without rdma_cm gave %d", rc);
  usleep(20000);
  node_stop(n);
  CHECK(sr_live_objects() == before, "leaked %ld objects", sr_live_objects() - before);
  return 0;
fail:
  return 1;
}

/* ---------------------------------------------------------------- device tests */

typedef struct pair {
  tnode *server, *client;
  sr_listener *lst;
  struct sockaddr_in addr;
  sr_ep *cep;
  tep *ct;
  tep *st;
} pair;

/* Starts a server and a client context with `cfg` and listens on the server. */
static int pair_listen(pair *p, const sr_config *cfg) {
  int rc;
  memset(p, 0, sizeof *p);
  p->server = node_start(cfg, 0, &rc);
  if (!p->server) { snprintf(failure, sizeof failure, "server ctx: %s", sr_last_error()); return 1; }
  p->client = node_start(cfg, 0, &rc);
  if (!p->client) { snprintf(failure, sizeof failure, "client ctx: %s", sr_last_error()); return 1; }
  p->addr = rdma_addr;
  if (node_listen(p->server, &p->addr, &p->lst)) {
    snprintf(failure, sizeof failure, "listen: %s", sr_last_error());
    return 1;
  }
  return 0;
}

/* Connects the client of a listening pair and waits for the server to accept. */
static int pair_connect(pair *p, const char *pdata) {
  p->ct = tep_new(p->client, MODE_COLLECT);
  int rc = sr_connect(p->client->ctx, (struct sockaddr *)&p->addr, pdata,
                      pdata ? (uint32_t)strlen(pdata) : 0, 5000, p->ct, &p->cep);
  if (rc) { snprintf(failure, sizeof failure, "connect: %d %s", rc, sr_last_error()); return 1; }
  p->ct->ep = p->cep;
  p->st = node_wait_accepted(p->server, 0, 5000);
  if (!p->st) { snprintf(failure, sizeof failure, "server saw no connection"); return 1; }
  return 0;
}

static int pair_open(pair *p, const sr_config *cfg, int server_mode, const char *pdata) {
  if (pair_listen(p, cfg)) return 1;
  p->server->accept_mode = server_mode;
  return pair_connect(p, pdata);
}

static void pair_close(pair *p) {
  if (p->cep) {
    sr_ep_close(p->cep);
    if (p->ct) tep_wait(p->ct, &p->ct->closed, 1, 5000);
    sr_ep_release(p->cep);
  }
  if (p->lst) sr_listener_close(p->lst);
  node_stop(p->client);
  node_stop(p->server);
  tep_free(p->ct);
}

static int t_connect_private_data(void) {
  pair p;
  long before = sr_live_objects();
  const char *pd = "strata-hello-0123456789-0123456789-0123456789-01234567"; /* 54 bytes */
  if (pair_open(&p, NULL, MODE_COLLECT, pd)) goto fail;
  CHECK(p.server->last_pdata_len == strlen(pd), "pdata length %u", p.server->last_pdata_len);
  CHECK(memcmp(p.server->last_pdata, pd, strlen(pd)) == 0, "pdata differs");
  CHECK(tep_wait(p.st, &p.st->established, 1, 5000), "server never established");
  CHECK(sr_ep_is_open(p.cep), "client endpoint not open");
  struct sockaddr_storage peer;
  CHECK(sr_ep_peer_addr(p.cep, &peer) == 0, "no peer address");
  CHECK(((struct sockaddr_in *)&peer)->sin_port == p.addr.sin_port, "peer port differs");
  /* too much private data is refused before anything is sent */
  char big[60];
  memset(big, 'x', sizeof big);
  sr_ep *e2 = NULL;
  int rc = sr_connect(p.client->ctx, (struct sockaddr *)&p.addr, big, 56, 1000, p.ct, &e2);
  CHECK(rc == SR_EINVAL && strstr(sr_last_error(), "at most 55"), "rc %d: %s", rc,
        sr_last_error());
  /* local close: the client is told with no cause, the server with one */
  sr_ep_close(p.cep);
  sr_ep_close(p.cep); /* twice is fine */
  CHECK(tep_wait(p.ct, &p.ct->closed, 1, 5000), "client on_close missing");
  CHECK(p.ct->cause[0] == 0, "local close has a cause: %s", p.ct->cause);
  CHECK(tep_wait(p.st, &p.st->closed, 1, 5000), "server on_close missing");
  CHECK(strstr(p.st->cause, "disconnected") != NULL, "server cause: %s", p.st->cause);
  rc = sr_ep_send(p.cep, "x", 1);
  CHECK(rc == SR_ECLOSED, "send after close gave %d", rc);
  usleep(100000);
  CHECK(p.ct->closed == 1 && p.st->closed == 1, "on_close called %d/%d times", p.ct->closed,
        p.st->closed);
  pair_close(&p);
  CHECK(sr_live_objects() == before, "leaked %ld objects", sr_live_objects() - before);
  return 0;
fail:
  return 1;
}

static int t_reject_and_no_listener(void) {
  pair p;
  int rc;
  if (pair_listen(&p, NULL)) goto fail;
  p.server->reject = 1;
  sr_ep *ep = NULL;
  rc = sr_connect(p.client->ctx, (struct sockaddr *)&p.addr, "no", 2, 5000, (void *)1, &ep);
  CHECK(rc == SR_EREJECTED, "rejected connect gave %d: %s", rc, sr_last_error());
  CHECK(strstr(sr_last_error(), "rejected") != NULL, "message: %s", sr_last_error());
  sr_listener_close(p.lst);
  p.lst = NULL;
  usleep(50000);
  rc = sr_connect(p.client->ctx, (struct sockaddr *)&p.addr, NULL, 0, 5000, (void *)1, &ep);
  CHECK(rc == SR_EREJECTED || rc == SR_EUNREACHABLE, "connect to a closed port gave %d: %s", rc,
        sr_last_error());
  char port[16];
  snprintf(port, sizeof port, ":%d", ntohs(p.addr.sin_port));
  CHECK(strstr(sr_last_error(), port) != NULL, "message does not name the peer: %s",
        sr_last_error());
  printf("  (no listener: \"%s\")\n", sr_last_error());
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

/* Sends `count` messages of sizes from `sizes`, `window` outstanding, each echoed back. */
static int echo_run(pair *p, const uint32_t *sizes, int nsizes, int count, int window) {
  uint8_t *buf = malloc(8u << 20);
  for (int i = 0; i < count; i++) {
    while ((int)(i - (int)p->ct->msgs) >= window)
      if (!tep_wait_msgs(p->ct, p->ct->msgs + 1, 10000)) {
        snprintf(failure, sizeof failure, "echo %d never came back", (int)p->ct->msgs);
        free(buf);
        return 1;
      }
    uint32_t len = sizes[i % nsizes];
    fill_msg(buf, len, (uint32_t)i);
    int rc = sr_ep_send(p->cep, buf, len);
    if (rc) {
      snprintf(failure, sizeof failure, "send %d (%u B): %s", i, len, sr_last_error());
      free(buf);
      return 1;
    }
  }
  free(buf);
  if (!tep_wait_msgs(p->ct, (uint64_t)count, 20000)) {
    snprintf(failure, sizeof failure, "%llu of %d echoes", (unsigned long long)p->ct->msgs,
             count);
    return 1;
  }
  return 0;
}

static int t_send_recv_echo(void) {
  pair p;
  sr_config c = small_config();
  if (pair_open(&p, &c, MODE_ECHO, NULL)) goto fail;
  static const uint32_t sizes[] = {4, 64, 1000, 1024, 17, 512};
  if (echo_run(&p, sizes, 6, 2000, 4)) goto fail;
  CHECK(p.ct->bad == 0, "%d echoes out of order or corrupt", p.ct->bad);
  CHECK(p.st->bad == 0, "%d requests out of order or corrupt", p.st->bad);
  CHECK(p.st->echo_failures == 0, "%d echo sends failed", p.st->echo_failures);
  sr_ep_stats s;
  sr_ep_get_stats(p.cep, &s);
  CHECK(s.msgs_sent == 2000 && s.msgs_received == 2000, "stats %llu/%llu",
        (unsigned long long)s.msgs_sent, (unsigned long long)s.msgs_received);
  CHECK(s.rdma_writes == 0, "eager messages went by RDMA WRITE");
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

static int t_rdma_write_path(void) {
  pair p;
  sr_config c = small_config(); /* eager 1 KiB, max 1 MiB */
  if (pair_open(&p, &c, MODE_ECHO, NULL)) goto fail;
  static const uint32_t sizes[] = {1025, 65536, 100, 1u << 20, 300000, 8};
  if (echo_run(&p, sizes, 6, 60, 3)) goto fail;
  CHECK(p.ct->bad == 0 && p.st->bad == 0, "%d/%d large messages corrupt or out of order",
        p.ct->bad, p.st->bad);
  sr_ep_stats s;
  sr_ep_get_stats(p.cep, &s);
  CHECK(s.rdma_writes == 40, "%llu RDMA writes for 40 large messages",
        (unsigned long long)s.rdma_writes);
  uint8_t *big = calloc(1, (1u << 20) + 1);
  int rc = sr_ep_send(p.cep, big, (1u << 20) + 1);
  free(big);
  CHECK(rc == SR_EMSGSIZE && strstr(sr_last_error(), "exceeds the maximum"), "rc %d: %s", rc,
        sr_last_error());
  CHECK(sr_ep_is_open(p.cep), "a refused message closed the endpoint");
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

static int t_callback_sends_queue(void) {
  /* the echo server sends from its callback; with 4 credits and no window it runs out of credits
   * and must queue, never fail, never reorder */
  pair p;
  sr_config c = small_config();
  c.credits = 4;
  if (pair_open(&p, &c, MODE_ECHO, NULL)) goto fail;
  static const uint32_t sizes[] = {64, 2000, 8, 1024, 70000};
  if (echo_run(&p, sizes, 5, 300, 300)) goto fail;
  CHECK(p.ct->bad == 0 && p.st->bad == 0, "%d/%d messages corrupt or out of order", p.ct->bad,
        p.st->bad);
  CHECK(p.st->echo_failures == 0, "%d echo sends failed", p.st->echo_failures);
  sr_ep_stats s;
  sr_ep_get_stats(p.st->ep, &s);
  printf("  (server queued %llu of 300 echoes for lack of credits)\n",
         (unsigned long long)s.credit_waits);
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

/* A client that stops returning credits (its progress thread stuck in a callback: a GC pause, a
 * blocking callback) must not hold the server's sending thread: the send fails with SR_ETIMEDOUT
 * after send_timeout_ms, that endpoint closes with the cause, and the server serves a new peer. */
static int t_send_timeout_withheld_credits(void) {
  pair p;
  tnode *c2 = NULL;
  tep *t2 = NULL;
  sr_ep *e2 = NULL;
  sr_config c = small_config();
  c.credits = 4;
  c.send_timeout_ms = 300;
  if (pair_open(&p, &c, MODE_COLLECT, NULL)) goto fail;
  p.ct->sleep_us = 2000000; /* the client's callback holds its progress thread for 2 s */
  uint8_t buf[200];
  int rc = 0;
  uint32_t sent = 0;
  uint64_t t0 = tl_now_ns(), t_block = 0;
  for (; sent < 10; sent++) {
    fill_msg(buf, sizeof buf, sent);
    t_block = tl_now_ns();
    rc = sr_ep_send(p.st->ep, buf, sizeof buf);
    if (rc) break;
  }
  double waited_ms = (double)(tl_now_ns() - t_block) / 1e6;
  CHECK(rc == SR_ETIMEDOUT, "send %u to a peer returning no credit gave %d (%s)", sent, rc,
        sr_last_error());
  CHECK(strstr(sr_last_error(), "strata.rdma.send.timeout.ms"), "message: %s", sr_last_error());
  CHECK(waited_ms >= 250 && waited_ms < 1500, "the send waited %.0f ms, not ~300", waited_ms);
  CHECK(tep_wait(p.st, &p.st->closed, 1, 5000), "the server's endpoint did not close");
  CHECK(strstr(p.st->cause, "no credit"), "close cause: %s", p.st->cause);
  CHECK(sr_ep_send(p.st->ep, buf, sizeof buf) == SR_ECLOSED, "send after the timeout");
  /* the server keeps serving others: a second client of its own (the first one's progress
   * thread is still held by its callback) */
  c2 = node_start(&c, 0, &rc);
  CHECK(c2 != NULL, "second client ctx: %d %s", rc, sr_last_error());
  t2 = tep_new(c2, MODE_COLLECT);
  rc = sr_connect(c2->ctx, (struct sockaddr *)&p.addr, NULL, 0, 5000, t2, &e2);
  CHECK(rc == 0, "a second client cannot connect: %d %s", rc, sr_last_error());
  t2->ep = e2;
  tep *s2 = node_wait_accepted(p.server, 1, 5000);
  CHECK(s2 != NULL, "server saw no second connection");
  fill_msg(buf, sizeof buf, 0);
  CHECK(sr_ep_send(s2->ep, buf, sizeof buf) == 0, "send to the second client: %s",
        sr_last_error());
  CHECK(tep_wait_msgs(t2, 1, 10000), "second client got nothing");
  printf("  (%u sends went out, the next failed after %.0f ms; %.0f ms in all)\n", sent,
         waited_ms, (double)(tl_now_ns() - t0) / 1e6);
  sr_ep_close(e2);
  tep_wait(t2, &t2->closed, 1, 5000);
  sr_ep_release(e2);
  node_stop(c2);
  tep_free(t2);
  pair_close(&p);
  return 0;
fail:
  if (e2) { sr_ep_close(e2); tep_wait(t2, &t2->closed, 1, 5000); sr_ep_release(e2); }
  if (c2) node_stop(c2);
  tep_free(t2);
  pair_close(&p);
  return 1;
}

/* Sends from a callback never wait, they queue; a peer whose credits do not come back closes
 * its endpoint once the queue would pass max_message + credits x eager bytes, instead of the
 * queue growing without bound (20,000 x 64 KiB would be 1.25 GiB). */
static void flood_hook(tep *t, const void *data, uint32_t len) {
  static uint8_t big[64 << 10];
  for (int i = 0; i < 20000; i++) {
    int rc = sr_ep_send(t->ep, big, sizeof big);
    if (rc) {
      pthread_mutex_lock(&t->m);
      t->echo_failures = i + 1; /* the failing send's number */
      snprintf(t->cause, sizeof t->cause, "%d %s", rc, sr_last_error());
      pthread_mutex_unlock(&t->m);
      break;
    }
  }
  pthread_mutex_lock(&t->m);
  t->msgs++;
  pthread_cond_broadcast(&t->c);
  pthread_mutex_unlock(&t->m);
}

static int t_callback_queue_bounded(void) {
  pair p;
  sr_config c = small_config(); /* 16 credits, 1 KiB eager, 1 MiB messages */
  if (pair_open(&p, &c, MODE_COLLECT, NULL)) goto fail;
  p.st->hook = flood_hook;
  uint8_t buf[16];
  fill_msg(buf, sizeof buf, 0);
  CHECK(sr_ep_send(p.cep, buf, sizeof buf) == 0, "send: %s", sr_last_error());
  CHECK(tep_wait_msgs(p.st, 1, 10000), "the flood callback did not run");
  int failed_at = p.st->echo_failures;
  CHECK(failed_at > 0 && failed_at <= 40, "the queue took %d 64 KiB messages (%s)", failed_at,
        p.st->cause);
  CHECK(strstr(p.st->cause, "queued"), "failure: %s", p.st->cause);
  CHECK(tep_wait(p.ct, &p.ct->closed, 1, 5000), "the flooded peer's endpoint stayed open");
  printf("  (send %d from the callback closed the endpoint: %s)\n", failed_at, p.st->cause);
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

static int t_flow_control_slow_receiver(void) {
  pair p;
  sr_config c = small_config();
  c.credits = 8;
  if (pair_listen(&p, &c)) goto fail;
  p.server->accept_sleep_us = 2000; /* 2 ms per message on the receiver */
  if (pair_connect(&p, NULL)) goto fail;
  uint8_t buf[3000];
  uint64_t t0 = tl_now_ns();
  for (uint32_t i = 0; i < 200; i++) {
    uint32_t len = i % 5 == 4 ? 3000 : 200; /* some through the RDMA WRITE path */
    fill_msg(buf, len, i);
    CHECK(sr_ep_send(p.cep, buf, len) == 0, "send %u: %s", i, sr_last_error());
  }
  double send_ms = (double)(tl_now_ns() - t0) / 1e6;
  CHECK(tep_wait_msgs(p.st, 200, 20000), "received %llu of 200",
        (unsigned long long)p.st->msgs);
  CHECK(p.st->bad == 0, "%d messages out of order or corrupt", p.st->bad);
  sr_ep_stats cs, ss2;
  sr_ep_get_stats(p.cep, &cs);
  sr_ep_get_stats(p.st->ep, &ss2);
  CHECK(cs.credit_waits > 0, "the sender never waited for credits");
  CHECK(ss2.credit_msgs > 0, "the receiver returned no credits by credit message");
  CHECK(send_ms > 200 * 2 * 0.5, "200 sends to a 2 ms/message receiver took only %.1f ms",
        send_ms);
  printf("  (sender waited %llu times; receiver sent %llu credit messages; %.0f ms)\n",
         (unsigned long long)cs.credit_waits, (unsigned long long)ss2.credit_msgs, send_ms);
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

/* Starts this program as a helper process; returns its pid and a pipe to read from. */
static pid_t spawn_child(char *const argv[], FILE **out) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execv(self_exe, argv);
    _exit(127);
  }
  close(fd[1]);
  *out = fdopen(fd[0], "r");
  return pid;
}

static int t_peer_death(void) {
  pair p;
  int rc;
  memset(&p, 0, sizeof p);
  FILE *cout = NULL;
  pid_t child = -1;
  /* 1. the connecting peer dies: the accepting side is told, with a cause */
  if (pair_listen(&p, NULL)) goto fail;
  char host[32], port[16];
  inet_ntop(AF_INET, &rdma_addr.sin_addr, host, sizeof host);
  snprintf(port, sizeof port, "%d", ntohs(p.addr.sin_port));
  char *argv1[] = {(char *)self_exe, "--child-connect", host, port, NULL};
  child = spawn_child(argv1, &cout);
  CHECK(child > 0, "fork");
  p.st = node_wait_accepted(p.server, 0, 10000);
  CHECK(p.st, "child never connected");
  CHECK(tep_wait_msgs(p.st, 1, 10000), "child's message never arrived");
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  child = -1;
  fclose(cout);
  cout = NULL;
  uint64_t t0 = tl_now_ns();
  CHECK(tep_wait(p.st, &p.st->closed, 1, 30000), "no on_close 30 s after the peer died");
  printf("  (accepting side told %.0f ms after the peer was killed: \"%s\")\n",
         (double)(tl_now_ns() - t0) / 1e6, p.st->cause);
  CHECK(p.st->cause[0] != 0, "no cause");
  rc = sr_ep_send(p.st->ep, "late", 4);
  CHECK(rc == SR_ECLOSED, "send to a dead peer gave %d", rc);
  CHECK(strstr(sr_last_error(), "closed") != NULL, "message: %s", sr_last_error());

  /* 2. the accepting peer dies: the connected side is told, and sends fail cleanly */
  char *argv2[] = {(char *)self_exe, "--child-listen", host, NULL};
  child = spawn_child(argv2, &cout);
  CHECK(child > 0, "fork");
  int cport = 0;
  CHECK(fscanf(cout, "%d", &cport) == 1 && cport > 0, "child did not print its port");
  struct sockaddr_in ca = rdma_addr;
  ca.sin_port = htons((uint16_t)cport);
  p.ct = tep_new(p.client, MODE_COLLECT);
  rc = sr_connect(p.client->ctx, (struct sockaddr *)&ca, NULL, 0, 10000, p.ct, &p.cep);
  CHECK(rc == 0, "connect to the child: %s", sr_last_error());
  CHECK(sr_ep_send(p.cep, "ping", 4) == 0, "send: %s", sr_last_error());
  usleep(100000);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  child = -1;
  t0 = tl_now_ns();
  CHECK(tep_wait(p.ct, &p.ct->closed, 1, 30000), "no on_close 30 s after the peer died");
  printf("  (connecting side told %.0f ms after the peer was killed: \"%s\")\n",
         (double)(tl_now_ns() - t0) / 1e6, p.ct->cause);
  rc = sr_ep_send(p.cep, "late", 4);
  CHECK(rc == SR_ECLOSED, "send to a dead peer gave %d", rc);
  pair_close(&p);
  if (cout) fclose(cout);
  return 0;
fail:
  if (child > 0) {
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
  }
  if (cout) fclose(cout);
  pair_close(&p);
  return 1;
}

static int child_connect(const char *host, const char *port) {
  int rc;
  tnode *n = node_start(NULL, 0, &rc);
  if (!n) return 2;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
  inet_pton(AF_INET, host, &a.sin_addr);
  tep *t = tep_new(n, MODE_COLLECT);
  sr_ep *ep;
  if (sr_connect(n->ctx, (struct sockaddr *)&a, NULL, 0, 10000, t, &ep) != 0) {
    fprintf(stderr, "child connect: %s\n", sr_last_error());
    return 3;
  }
  uint8_t msg[64];
  fill_msg(msg, sizeof msg, 0);
  sr_ep_send(ep, msg, sizeof msg);
  for (;;) pause(); /* killed by the parent */
}

static int child_listen(const char *host) {
  int rc;
  tnode *n = node_start(NULL, 0, &rc);
  if (!n) return 2;
  struct sockaddr_in a = {.sin_family = AF_INET};
  inet_pton(AF_INET, host, &a.sin_addr);
  sr_listener *l;
  if (node_listen(n, &a, &l) != 0) return 3;
  printf("%d\n", ntohs(a.sin_port));
  fflush(stdout);
  for (;;) pause();
}

struct sender {
  sr_ep *ep;
  volatile int sent;
  int failed_at, rc;
};

static void *sender_thread(void *arg) {
  struct sender *sd = arg;
  uint8_t buf[64];
  memset(buf, 0, sizeof buf);
  for (int i = 0; i < 50; i++) {
    int rc = sr_ep_send(sd->ep, buf, sizeof buf);
    if (rc) {
      sd->failed_at = i;
      sd->rc = rc;
      break;
    }
    sd->sent = i + 1;
  }
  return NULL;
}

static int t_close_under_load(void) {
  /* closing while another thread is blocked sending (no credits) wakes it with an error */
  pair p;
  sr_config c = small_config();
  c.credits = 4;
  if (pair_listen(&p, &c)) goto fail;
  p.server->accept_sleep_us = 300000; /* very slow receiver */
  if (pair_connect(&p, NULL)) goto fail;
  struct sender sd = {.ep = p.cep, .failed_at = -1};
  pthread_t th;
  pthread_create(&th, NULL, sender_thread, &sd);
  usleep(300000); /* the sender is blocked on credits by now */
  int blocked_at = sd.sent;
  uint64_t t0 = tl_now_ns();
  sr_ep_close(p.cep);
  pthread_join(th, NULL);
  double ms = (double)(tl_now_ns() - t0) / 1e6;
  CHECK(blocked_at < 50, "the sender never blocked (%d sent)", blocked_at);
  CHECK(sd.failed_at >= 0 && sd.rc == SR_ECLOSED, "blocked send ended with %d at %d", sd.rc,
        sd.failed_at);
  CHECK(ms < 2000, "the blocked sender took %.0f ms to notice the close", ms);
  CHECK(tep_wait(p.ct, &p.ct->closed, 1, 5000), "no on_close");
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

/* ---------------------------------------------------------------- runner */

typedef struct test {
  const char *name;
  int (*fn)(void);
  int device;
} test;

static const test tests[] = {
    {"config_validation", t_config_validation, 0},
    {"wire_protocol", t_wire_protocol, 0},
    {"unknown_device", t_unknown_device, 0},
    {"no_device_clear_error", t_no_device_clear_error, 0},
    {"context_lifecycle", t_context_lifecycle, 0},
    {"connect_private_data_close", t_connect_private_data, 1},
    {"reject_and_no_listener", t_reject_and_no_listener, 1},
    {"send_recv_echo", t_send_recv_echo, 1},
    {"rdma_write_path", t_rdma_write_path, 1},
    {"flow_control_slow_receiver", t_flow_control_slow_receiver, 1},
    {"callback_sends_queue", t_callback_sends_queue, 1},
    {"send_timeout_withheld_credits", t_send_timeout_withheld_credits, 1},
    {"callback_queue_bounded", t_callback_queue_bounded, 1},
    {"close_under_load", t_close_under_load, 1},
    {"peer_death", t_peer_death, 1},
};

int main(int argc, char **argv) {
  static char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  self_exe = n > 0 ? (exe[n] = 0, exe) : argv[0];
  signal(SIGPIPE, SIG_IGN);
  if (argc >= 4 && strcmp(argv[1], "--child-connect") == 0) return child_connect(argv[2], argv[3]);
  if (argc >= 3 && strcmp(argv[1], "--child-listen") == 0) return child_listen(argv[2]);
  setvbuf(stdout, NULL, _IOLBF, 0);
  int require = 0, first = 1;
  if (argc > 1 && strcmp(argv[1], "--require-device") == 0) {
    require = 1;
    first = 2;
  }
  char devs[512];
  int have_dev = sr_probe_devices(NULL, devs, sizeof devs) > 0 && find_rdma_addr(&rdma_addr) == 0;
  if (have_dev) {
    char a[32];
    inet_ntop(AF_INET, &rdma_addr.sin_addr, a, sizeof a);
    printf("RDMA device(s) %s; testing on %s\n", devs, a);
  } else {
    printf("no usable RDMA device (%s): device tests %s\n", sr_last_error(),
           require ? "FAIL" : "are skipped");
  }
  int passed = 0, failed = 0, skipped = 0;
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
    const test *t = &tests[i];
    if (argc > first) {
      int want = 0;
      for (int a = first; a < argc; a++) want |= strcmp(argv[a], t->name) == 0;
      if (!want) continue;
    }
    if (t->device && !have_dev) {
      if (require) {
        printf("FAIL %s: no RDMA device\n", t->name);
        failed++;
      } else {
        printf("SKIP %s (needs an RDMA device)\n", t->name);
        skipped++;
      }
      continue;
    }
    failure[0] = 0;
    uint64_t t0 = tl_now_ns();
    int r = t->fn();
    double ms = (double)(tl_now_ns() - t0) / 1e6;
    if (r == 0) {
      printf("PASS %s (%.0f ms)\n", t->name, ms);
      passed++;
    } else {
      printf("FAIL %s (%.0f ms): %s\n", t->name, ms, failure);
      failed++;
    }
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}
