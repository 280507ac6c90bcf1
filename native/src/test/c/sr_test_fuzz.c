/*
 * Hostile peers sending fuzzed headers and lengths after a valid HELLO (device test).
 */
#include "sr_test_harness.h"

/* b) fuzzed headers and lengths after a valid HELLO */
typedef struct fuzz {
  uint8_t type;
  uint16_t credits;
  uint32_t len_field, bytes; /* the header's length field, the message's size */
  uint64_t seed;             /* not 0: random messages from this seed instead */
} fuzz;

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static int lie_fuzz(hpeer *hp, void *arg) {
  const fuzz *f = arg;
  sr_wire_params p = hp_params(hp, 16);
  if (hp_hello(hp, &p) != 0) { snprintf(failure, sizeof failure, "HELLO not delivered"); return -1; }
  uint8_t m[HP_BUF];
  if (!f->seed) {
    memset(m, 0x5a, sizeof m);
    hp_msg(m, f->type, f->credits, 0, f->len_field, NULL, 0);
    hp_send(hp, m, f->bytes); /* whether it completes or not: the server's answer is checked */
    return 0;
  }
  /* random messages until the server closes: a quarter random through and through, the others
   * with a known type, no credits or acknowledgements and (mostly) a length field near the
   * message's, so that the length checks are reached and valid messages (echoed) come between
   * the bad ones */
  uint64_t s = f->seed;
  for (int i = 0; i < 32 && !hp->qp_failed && !hp->disconnected; i++) {
    uint32_t bytes = (uint32_t)(xorshift(&s) % 1100);
    for (uint32_t j = 0; j < bytes; j++) m[j] = (uint8_t)xorshift(&s);
    if (bytes >= 16 && xorshift(&s) % 4 != 0) {
      uint32_t r = (uint32_t)xorshift(&s);
      uint32_t len = r % 8 == 0 ? (uint32_t)xorshift(&s) : r % 8 == 1 ? bytes - 16 + r % 64
                                                                     : bytes - 16;
      sr_wire_hdr hh = {.type = (uint8_t)(1 + (r >> 8) % 3), .len = len};
      if (hh.type == SR_MSG_CREDIT) hh.len = 0;
      memcpy(m, &hh, sizeof hh);
    }
    if (i == 31) m[0] = 0; /* the last one unknown whatever came before */
    if (hp_send(hp, m, bytes) != 0) break;
    struct rdma_cm_event *ev;
    if (rdma_get_cm_event(hp->ch, &ev) == 0) {
      if (ev->event == RDMA_CM_EVENT_DISCONNECTED) hp->disconnected = 1;
      rdma_ack_cm_event(ev);
    }
  }
  return 0;
}

int t_hostile_fuzz(void) {
  hsrv h;
  if (hsrv_start(&h)) goto fail;
  static const struct {
    const char *name;
    fuzz f;
    const char *want;
    int counted;
  } cases[] = {
      {"data length above the eager size", {SR_MSG_DATA, 0, 1025, 16 + 1024, 0}, "length field", 1},
      {"data length beyond the message", {SR_MSG_DATA, 0, 100, 16 + 10, 0}, "length field", 1},
      {"data length 2^32-1", {SR_MSG_DATA, 0, 0xffffffffu, 16 + 64, 0}, "length field", 1},
      {"rendezvous above the region", {SR_MSG_RNDV, 0, (64u << 10) + 1, 16, 0}, "region", 1},
      {"unknown type 0", {0, 0, 0, 16, 0}, "unknown message type 0", 1},
      {"unknown type 200", {200, 0, 8, 24, 0}, "unknown message type 200", 1},
      {"second HELLO", {SR_MSG_HELLO, 0, 40, 16 + 40, 0}, "HELLO", 1},
      {"message of 8 bytes", {SR_MSG_DATA, 0, 0, 8, 0}, "shorter than", 1},
      {"message above the receive buffers", {SR_MSG_DATA, 0, 1024, 2000, 0}, "receive buffers", 1},
      /* Seed 7 closes the endpoint on messages that can complete before the server handles the
       * connection manager's ESTABLISHED event: it failed 3 of 13 guest runs while the close
       * sent its disconnect too early to reach the peer (see ep_mark_closed). */
      {"random, seed 2026", {0, 0, 0, 0, 2026}, NULL, 1},
      {"random, seed 7", {0, 0, 0, 0, 7}, NULL, 1},
      {"random, seed 424242", {0, 0, 0, 0, 424242}, NULL, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (hsrv_case(&h, cases[i].name, lie_fuzz, (void *)&cases[i].f, cases[i].want,
                  cases[i].counted))
      goto fail;
  printf("  (%d hostile peers closed, the good client echoed %u messages)\n", h.cases, h.seq);
  hsrv_stop(&h);
  return 0;
fail:
  hsrv_stop(&h);
  return 1;
}
