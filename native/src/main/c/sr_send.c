/*
 * Sending: sr_ep_send_begin takes a send slot (eager) or the rendezvous region (above the eager
 * size), waiting for credit on an application thread, queueing a copy on the progress thread;
 * sr_ep_send_commit posts a SEND, or an RDMA WRITE followed by the descriptor's SEND.
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
      ep->ctx->queued_msgs++; /* the progress loop now looks at the queue's age while idle */
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
int ep_post_message(sr_ep *ep, uint32_t slot, uint32_t len, int rndv) {
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
