/*
 * The wire protocol checks of sr_wire.h: pure functions over an endpoint's protocol state that the
 * receive path applies to every message before it trusts any field, kept free of verbs calls so
 * that the C tests check them on hosts without an RDMA device.
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <stdio.h>
#include <string.h>

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
