/*
 * Completions: the receive path (protocol check, delivery to on_message, repost, credits owed) and
 * send completions (slots and credits freed), polled from the devices' shared completion queues.
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ep_fail(sr_ep *ep, int code, const char *fmt, ...) {
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ep_mark_closed(ep, code, msg);
}

void mark_established(sr_ep *ep) {
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

/* Counts a protocol violation once per endpoint: messages already in flight behind the first one
 * reach a closed endpoint and are not counted again. */
static void count_violation(sr_ep *ep) {
  pthread_mutex_lock(&ep->lock);
  int first = ep->state != EP_CLOSED;
  pthread_mutex_unlock(&ep->lock);
  if (first) ep->ctx->stats.protocol_violations++;
}

static void handle_recv(sr_ep *ep, uint32_t idx, const struct ibv_wc *wc) {
  sr_ctx *ctx = ep->ctx;
  char w[256];
  if (idx >= ep->R || wc->byte_len > ep->bufsz) {
    count_violation(ep);
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
    count_violation(ep);
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
      if (kind == WR_RECV &&
          (wc->status == IBV_WC_LOC_LEN_ERR || wc->status == IBV_WC_LOC_QP_OP_ERR)) {
        /* A SEND longer than the receive buffers the peer was told about (its eager size): our
         * receive requests are well-formed, so a receive fails locally only for what the peer
         * sent (a length error; SoftRoCE reports it as a local QP operation error). */
        count_violation(ep);
        ep_fail(ep, SR_EIO,
                "protocol violation by %s: a message longer than the %u-byte receive buffers "
                "(%s); endpoint closed", ep_where(ep, w, sizeof w), ep->bufsz,
                ibv_wc_status_str(wc->status));
      } else if (wc->status == IBV_WC_WR_FLUSH_ERR)
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

int poll_cqs(sr_ctx *ctx) {
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
