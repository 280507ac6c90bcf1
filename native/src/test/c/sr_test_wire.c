/*
 * Tests without a device: the configuration's limits, the wire format's checks of every
 * received message against a hostile peer (fuzzed headers into buffers of exactly their length),
 * unknown or missing devices, a context's life cycle, the shared completion queue's sizing.
 */
#include "sr_test_harness.h"

/* sr_devices.c (internal to the runtime; the tests link its static library) */
int cq_target_size(int size, int used, int max);

int t_config_validation(void) {
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
int t_wire_protocol(void) {
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

int t_unknown_device(void) {
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

int t_no_device_clear_error(void) {
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

int t_context_lifecycle(void) {
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

/* The shared completion queue's size for the entries its endpoints reserved: doubled until they
 * fit, refused (0) past the device's max_cqe, halved while a quarter or less is reserved, never
 * below 1024. It grows with endpoints and comes back once they are torn down, and one endpoint
 * coming and going at a boundary does not resize it each time. */
int t_cq_sizing(void) {
  const int max = 1 << 16, ep = 16 + 18 + 2; /* an endpoint of 16 credits: R + S + 2 entries */
  int s = cq_target_size(1024, ep, max);
  CHECK(s == 1024, "one endpoint: %d", s);
  s = cq_target_size(1024, 1024 + ep, max);
  CHECK(s == 2048, "past 1024: %d", s);
  s = cq_target_size(1024, 400 * ep, max);
  CHECK(s == 16384, "400 endpoints (%d entries): %d", 400 * ep, s);
  s = cq_target_size(16384, 0, max);
  CHECK(s == 1024, "all torn down: %d, not back to 1024", s);
  s = cq_target_size(16384, 4097, max);
  CHECK(s == 16384, "just above a quarter: %d", s);
  s = cq_target_size(16384, 4096, max);
  CHECK(s == 8192, "a quarter: %d", s);
  s = cq_target_size(2048, 1024, max);
  CHECK(s == 2048, "one endpoint gone at the boundary shrinks it: %d", s);
  s = cq_target_size(1024, max + 1, max);
  CHECK(s == 0, "past the device's max_cqe: %d, not refused", s);
  s = cq_target_size(1024, 60000, 65000);
  CHECK(s == 65000, "up to a max_cqe that is no power of two: %d", s);
  return 0;
fail:
  return 1;
}
