/*
 * The progress loop (sr_ctx_run): polls the completion queues, spinning for poll_spin_us after
 * the last completion, then sleeps in epoll_wait; when it stops it closes every endpoint and
 * listener. And the context's destruction after it.
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

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

/* Closes the endpoints whose oldest queued message (a send from the progress thread waiting for
 * the peer's credit) has waited longer than send_timeout_ms. The queue's age is also checked
 * when another message is queued, but a peer that stopped returning credits and then went quiet
 * would otherwise hold its endpoint, and up to pend_limit bytes, for as long as it stayed
 * connected. Progress thread only (the only thread that queues, and the only one that tears
 * endpoints down). Returns how many endpoints still hold queued messages. */
static int expire_pending(sr_ctx *ctx, uint64_t now) {
  enum { BATCH = 32 };
  sr_ep *expired[BATCH];
  int n = 0, waiting = 0;
  uint64_t timeout_ns = (uint64_t)ctx->cfg.send_timeout_ms * 1000000ull;
  pthread_mutex_lock(&ctx->lock);
  for (sr_ep *ep = ctx->all_eps; ep; ep = ep->next_all) {
    pthread_mutex_lock(&ep->lock); /* lock order ctx -> ep */
    if (ep->pend_head && !ep->fail_code && !ep->local_close && ep->state != EP_CLOSED) {
      if (now - ep->pend_head->queued_ns > timeout_ns && n < BATCH) {
        ep->refs++; /* held across the unlocked part below */
        expired[n++] = ep;
      } else {
        waiting++;
      }
    }
    pthread_mutex_unlock(&ep->lock);
  }
  pthread_mutex_unlock(&ctx->lock);
  for (int i = 0; i < n; i++) {
    sr_ep *ep = expired[i];
    char w[256], cause[384];
    pthread_mutex_lock(&ep->lock);
    if (ep->pend_head) {
      snprintf(cause, sizeof cause,
               "%s returned no credit for %u ms with %zu bytes of messages queued and sent "
               "nothing since (strata.rdma.send.timeout.ms); endpoint closed",
               ep_where(ep, w, sizeof w),
               (unsigned)((now - ep->pend_head->queued_ns) / 1000000), ep->pend_bytes);
      ep_fail_async_and_unlock(ep, SR_ETIMEDOUT, cause);
      pthread_mutex_lock(&ep->lock);
    }
    ep_unref_locked_and_unlock(ep);
  }
  return waiting + (n == BATCH); /* a full batch: look again soon */
}

int sr_ctx_run(sr_ctx *ctx) {
  ctx->runner = pthread_self();
  atomic_store(&ctx->running, 1);
  const uint64_t spin_ns = (uint64_t)ctx->cfg.poll_spin_us * 1000;
  uint64_t last = now_ns();
  uint32_t iter = 0;
  struct epoll_event evs[16];
  /* how often queued messages' ages are looked at: a quarter of the send timeout, 10 ms to 1 s */
  uint64_t sweep_ns = (uint64_t)ctx->cfg.send_timeout_ms * 250000ull;
  if (sweep_ns < 10000000ull) sweep_ns = 10000000ull;
  if (sweep_ns > 1000000000ull) sweep_ns = 1000000000ull;
  uint64_t last_sweep = last;
  int queued_eps = 0; /* endpoints holding queued messages at the last sweep */
  while (!atomic_load(&ctx->stop)) {
    int n = poll_cqs(ctx);
    if (atomic_load(&ctx->has_requests)) process_requests(ctx);
    if (n > 0) {
      last = now_ns();
      if ((++iter & 255) == 0) {
        drain_cm_events(ctx);
        if ((queued_eps || ctx->queued_msgs) && last - last_sweep >= sweep_ns) {
          queued_eps = expire_pending(ctx, last);
          ctx->queued_msgs = 0;
          last_sweep = last;
        }
      }
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
    if (ctx->cq_shrink) {
      if (poll_cqs(ctx) > 0) { /* not empty: shrink at the next quiet moment */
        last = now_ns();
        continue;
      }
      shrink_cqs(ctx);
    }
    for (sr_dev *d = ctx->devs; d; d = d->next) ibv_req_notify_cq(d->cq, 0);
    if (poll_cqs(ctx) > 0) { /* raced with an arrival; the armed event comes later, harmless */
      last = now_ns();
      continue;
    }
    /* asleep only as long as no queued message could outlive the send timeout unnoticed */
    int timeout = -1;
    if (queued_eps || ctx->queued_msgs) {
      uint64_t now = now_ns();
      if (now - last_sweep >= sweep_ns) {
        queued_eps = expire_pending(ctx, now);
        last_sweep = now;
      } else {
        queued_eps = 1; /* looked at again at the next sweep */
      }
      ctx->queued_msgs = 0;
      timeout = queued_eps ? (int)(sweep_ns / 1000000ull) : -1;
    }
    int k = epoll_wait(ctx->epfd, evs, 16, timeout);
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
