/*
 * Closing: closes by the user and failures found on user threads reach the progress thread through
 * the context's request queue; there an endpoint is marked closed (on_close, once) and its
 * resources are torn down.
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <stdio.h>

/* Marks the endpoint closed for the user and tells it once; progress thread, lock NOT held. */
void ep_mark_closed(sr_ep *ep, int code, const char *cause) {
  sr_ctx *ctx = ep->ctx;
  pthread_mutex_lock(&ep->lock);
  int was = ep->state;
  if (ep->state != EP_CLOSED) {
    ep->state = EP_CLOSED;
    if (cause && !ep->local_close && ep->cause[0] == 0)
      snprintf(ep->cause, sizeof ep->cause, "%s", cause);
    if (ep->connect_code == 0) ep->connect_code = code ? code : SR_ECLOSED;
    pthread_cond_broadcast(&ep->cond);
  }
  int notify = !ep->close_notified && ep->user != NULL &&
               (ep->accepted || ep->established_notified);
  if (notify) ep->close_notified = 1;
  if (!ep->closing_counted && ep->id != NULL) {
    ep->closing_counted = 1; /* closed, its resources held until ep_teardown */
    ctx->stats.endpoints_closing++;
  }
  int local = ep->local_close;
  /* An accepted endpoint opens with the peer's first message, which can complete before the
   * connection manager's ESTABLISHED event; until that event the kernel does not send the
   * disconnect request (rdma_disconnect only moves the QP to error and returns 0), so the
   * ESTABLISHED handler disconnects instead, or the peer would never hear of the close. */
  int can_disconnect = !ep->accepted || ep->cm_established;
  char msg[sizeof ep->cause];
  snprintf(msg, sizeof msg, "%s", ep->cause);
  pthread_mutex_unlock(&ep->lock);
  if (was == EP_OPEN && ep->id && !ep->disconnect_sent && can_disconnect) {
    ep->disconnect_sent = 1;
    rdma_disconnect(ep->id);
  }
  if (notify && ctx->cb.on_close)
    ctx->cb.on_close(ep, ep->user, local ? 0 : (code ? code : SR_ECLOSED), local ? NULL : msg);
}

/* Destroys QP, registrations, protection domain and cm_id, gives the endpoint's completion-queue
 * entries back (the progress loop shrinks the shared CQ when they leave it mostly unreserved)
 * and tells the user
 * (on_released, once, after on_close); progress thread (or a stopped context). The buffers
 * themselves live until the last reference goes (ep_free_memory). */
void ep_teardown(sr_ep *ep) {
  sr_ctx *ctx = ep->ctx;
  if (ep->in_table) {
    ctx->slots[ep->slot] = NULL;
    ep->in_table = 0;
  }
  pthread_mutex_lock(&ep->lock); /* no send is between begin and commit past this point */
  struct rdma_cm_id *id = ep->id;
  struct ibv_qp *qp = ep->qp;
  ep->state = EP_CLOSED;
  ep->id = NULL;
  ep->qp = NULL;
  pthread_cond_broadcast(&ep->cond);
  pthread_mutex_unlock(&ep->lock);
  if (qp) rdma_destroy_qp(id);
  if (ep->cq_reserved && ep->dev) {
    ctx->stats.cq_entries -= ep->R + ep->S + 2;
    ep->cq_reserved = 0;
    dev_unreserve_cq(ctx, ep->dev, (int)(ep->R + ep->S + 2));
  }
  if (ep->recv_mr) ibv_dereg_mr(ep->recv_mr);
  if (ep->send_mr) ibv_dereg_mr(ep->send_mr);
  if (ep->rndv_in_mr) ibv_dereg_mr(ep->rndv_in_mr);
  if (ep->rndv_out_mr) ibv_dereg_mr(ep->rndv_out_mr);
  ep->recv_mr = ep->send_mr = ep->rndv_in_mr = ep->rndv_out_mr = NULL;
  if (ep->pd) ibv_dealloc_pd(ep->pd); /* after its QP and registrations, which hold it */
  ep->pd = NULL;
  if (id) rdma_destroy_id(id);
  pthread_mutex_lock(&ctx->lock);
  if (ep->prev_all) ep->prev_all->next_all = ep->next_all;
  else if (ctx->all_eps == ep) ctx->all_eps = ep->next_all;
  if (ep->next_all) ep->next_all->prev_all = ep->prev_all;
  ep->next_all = ep->prev_all = NULL;
  pthread_mutex_unlock(&ctx->lock);
  if (ep->closing_counted) {
    ep->closing_counted = 0;
    ctx->stats.endpoints_closing--;
  }

  pthread_mutex_lock(&ep->lock);
  int released = ep->close_notified && ep->user != NULL;
  void *user = ep->user;
  pthread_mutex_unlock(&ep->lock);
  /* Still referenced (the runtime's reference goes below): the user may look at it. */
  if (released && ctx->cb.on_released) ctx->cb.on_released(ep, user);

  pthread_mutex_lock(&ep->lock);
  ep->ctx = NULL;
  ep_unref_locked_and_unlock(ep);
}

/* Hands the endpoint to the progress thread (close / teardown); lock order ctx -> ep. */
static void queue_ep_request(sr_ctx *ctx, sr_ep *ep) {
  pthread_mutex_lock(&ctx->lock);
  if (!ep->close_queued) {
    ep->close_queued = 1;
    pthread_mutex_lock(&ep->lock);
    ep->refs++; /* the queue's reference */
    pthread_mutex_unlock(&ep->lock);
    ep->next_req = ctx->ep_reqs;
    ctx->ep_reqs = ep;
    atomic_store(&ctx->has_requests, 1);
  }
  pthread_mutex_unlock(&ctx->lock);
  wake(ctx);
}

/* The context outlives every sr_ep_close of its endpoints (the owner destroys it only after the
 * progress loop returned, which tears every endpoint down and clears ep->ctx). */
void sr_ep_close(sr_ep *ep) {
  if (!ep) return;
  pthread_mutex_lock(&ep->lock);
  sr_ctx *ctx = ep->ctx;
  if (ctx == NULL || ep->local_close) {
    pthread_mutex_unlock(&ep->lock);
    return;
  }
  ep->local_close = 1;
  pthread_cond_broadcast(&ep->cond);
  pthread_mutex_unlock(&ep->lock);
  queue_ep_request(ctx, ep);
}

/* Closes the endpoint for a cause found on a user thread or in a callback (a send that waited
 * out send_timeout_ms, a full send queue): sends fail from now on, and the progress thread
 * closes it with `cause`, which on_close reports. Lock held; released on return. */
void ep_fail_async_and_unlock(sr_ep *ep, int code, const char *cause) {
  sr_ctx *ctx = ep->ctx;
  int first = ep->fail_code == 0 && !ep->local_close && ep->state != EP_CLOSED;
  if (first) {
    ep->fail_code = code;
    snprintf(ep->cause, sizeof ep->cause, "%s", cause);
    pthread_cond_broadcast(&ep->cond);
  }
  pthread_mutex_unlock(&ep->lock);
  if (first && ctx) queue_ep_request(ctx, ep);
}

/* A close request reached the progress thread. */
void handle_close_request(sr_ep *ep) {
  pthread_mutex_lock(&ep->lock);
  int state = ep->state;
  int disconnected = ep->disconnect_sent;
  int code = ep->local_close ? 0 : ep->fail_code;
  char cause[sizeof ep->cause];
  snprintf(cause, sizeof cause, "%s", ep->cause);
  pthread_mutex_unlock(&ep->lock);
  if (state == EP_OPEN) {
    /* sends the disconnect; teardown on DISCONNECTED */
    ep_mark_closed(ep, code, code ? cause : NULL);
  } else if (state == EP_CLOSED && disconnected) {
    /* teardown follows the DISCONNECTED event */
  } else if (ep->id != NULL || state != EP_CLOSED) {
    ep_mark_closed(ep, code ? code : SR_ECLOSED, code ? cause : NULL);
    ep_teardown(ep);
  }
}
