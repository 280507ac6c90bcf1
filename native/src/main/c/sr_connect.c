/*
 * Listening and connecting: listeners on an address, and sr_connect, which waits on the caller's
 * thread while the progress thread resolves, connects and exchanges the parameters.
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int sr_listen(sr_ctx *ctx, const struct sockaddr *addr, int backlog, void *user,
              sr_listener **out) {
  char a[80];
  if (!ctx->ch) { set_err("context opened without rdma_cm"); return SR_ENODEV; }
  sr_listener *l = calloc(1, sizeof *l);
  if (!l) { set_err("out of memory"); return SR_ENOMEM; }
  l->kind = OBJ_LISTENER;
  l->ctx = ctx;
  l->user = user;
  if (rdma_create_id(ctx->ch, &l->id, l, RDMA_PS_TCP) != 0) {
    set_err("rdma_create_id: %s", strerror(errno));
    free(l);
    return SR_EIO;
  }
  if (rdma_bind_addr(l->id, (struct sockaddr *)addr) != 0) {
    set_err("cannot bind an RDMA listener to %s: %s (no RDMA device on that address?)",
            addr_str(addr, a, sizeof a), strerror(errno));
    rdma_destroy_id(l->id);
    free(l);
    return errno == EADDRINUSE ? SR_EINVAL : SR_ENODEV;
  }
  if (ctx->device[0] && l->id->verbs &&
      strcmp(ibv_get_device_name(l->id->verbs->device), ctx->device) != 0) {
    set_err("%s belongs to RDMA device %s, not the configured %s", addr_str(addr, a, sizeof a),
            ibv_get_device_name(l->id->verbs->device), ctx->device);
    rdma_destroy_id(l->id);
    free(l);
    return SR_EINVAL;
  }
  if (rdma_listen(l->id, backlog > 0 ? backlog : 128) != 0) {
    set_err("rdma_listen on %s: %s", addr_str(addr, a, sizeof a), strerror(errno));
    rdma_destroy_id(l->id);
    free(l);
    return SR_EIO;
  }
  pthread_mutex_lock(&ctx->lock);
  l->next = ctx->listeners;
  ctx->listeners = l;
  pthread_mutex_unlock(&ctx->lock);
  atomic_fetch_add(&live_objects, 1);
  *out = l;
  return SR_OK;
}

int sr_listener_addr(sr_listener *lst, struct sockaddr_storage *out) {
  struct sockaddr *sa = rdma_get_local_addr(lst->id);
  memcpy(out, sa, addr_len(sa));
  return SR_OK;
}

void sr_listener_close(sr_listener *lst) {
  if (!lst) return;
  sr_ctx *ctx = lst->ctx;
  pthread_mutex_lock(&ctx->lock);
  int found = 0;
  for (sr_listener **pp = &ctx->listeners; *pp; pp = &(*pp)->next)
    if (*pp == lst) { *pp = lst->next; found = 1; break; }
  lst->closing = 1;
  if (found && atomic_load(&ctx->running) && !on_progress_thread(ctx)) {
    lst->next_req = ctx->lst_reqs;
    ctx->lst_reqs = lst;
    atomic_store(&ctx->has_requests, 1);
    pthread_mutex_unlock(&ctx->lock);
    wake(ctx);
    return;
  }
  pthread_mutex_unlock(&ctx->lock);
  if (found) {
    rdma_destroy_id(lst->id);
    free(lst);
    atomic_fetch_sub(&live_objects, 1);
  }
}

static int connect_in_ctx(sr_ctx *ctx, const struct sockaddr *addr, const void *pdata,
                          uint32_t pdata_len, uint32_t timeout_ms, void *user, sr_ep **out);

int sr_connect(sr_ctx *ctx, const struct sockaddr *addr, const void *pdata, uint32_t pdata_len,
               uint32_t timeout_ms, void *user, sr_ep **out) {
  /* Counted under the context's lock, after the stop check: sr_ctx_destroy cannot free the
   * context under a connect in flight. */
  pthread_mutex_lock(&ctx->lock);
  int stopping = atomic_load(&ctx->stop);
  if (!stopping) atomic_fetch_add(&ctx->connects, 1);
  pthread_mutex_unlock(&ctx->lock);
  if (stopping) {
    char a[80];
    set_err("connect to %s: the transport is closed", addr_str(addr, a, sizeof a));
    return SR_ECLOSED;
  }
  int rc = connect_in_ctx(ctx, addr, pdata, pdata_len, timeout_ms, user, out);
  atomic_fetch_sub(&ctx->connects, 1);
  return rc;
}

static int connect_in_ctx(sr_ctx *ctx, const struct sockaddr *addr, const void *pdata,
                          uint32_t pdata_len, uint32_t timeout_ms, void *user, sr_ep **out) {
  char a[80];
  addr_str(addr, a, sizeof a);
  if (!ctx->ch) { set_err("context opened without rdma_cm"); return SR_ENODEV; }
  if (pdata_len > SR_MAX_PRIVATE_DATA) {
    set_err("private data of %u bytes for %s: at most %d", pdata_len, a, SR_MAX_PRIVATE_DATA);
    return SR_EINVAL;
  }
  if (on_progress_thread(ctx)) {
    set_err("connect to %s called on the progress thread", a);
    return SR_EWOULDBLOCK;
  }
  if (atomic_load(&ctx->stop)) {
    set_err("connect to %s: the transport is closed", a);
    return SR_ECLOSED;
  }
  if (timeout_ms == 0) timeout_ms = 5000;
  sr_ep *ep = ep_new(ctx, user);
  if (!ep) return SR_ENOMEM;
  ep->state = EP_RESOLVING;
  ep->refs++; /* the caller's */
  if (pdata_len) memcpy(ep->pdata, pdata, pdata_len);
  ep->pdata_len = pdata_len;
  ep->resolve_ms = (int)(timeout_ms < 2000 ? timeout_ms : 2000);
  struct rdma_cm_id *id;
  if (rdma_create_id(ctx->ch, &id, ep, RDMA_PS_TCP) != 0) {
    set_err("rdma_create_id: %s", strerror(errno));
    ep->user = NULL;
    sr_ep_close(ep);
    sr_ep_release(ep);
    return SR_EIO;
  }
  pthread_mutex_lock(&ep->lock);
  ep->id = id;
  pthread_mutex_unlock(&ep->lock);
  if (rdma_resolve_addr(id, NULL, (struct sockaddr *)addr, ep->resolve_ms) != 0) {
    set_err("rdma_resolve_addr %s: %s", a, strerror(errno));
    ep->user = NULL;
    sr_ep_close(ep);
    sr_ep_release(ep);
    return SR_EUNREACHABLE;
  }
  struct timespec dl;
  clock_gettime(CLOCK_MONOTONIC, &dl);
  dl.tv_sec += timeout_ms / 1000;
  dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
  if (dl.tv_nsec >= 1000000000) { dl.tv_sec++; dl.tv_nsec -= 1000000000; }
  pthread_mutex_lock(&ep->lock);
  int timed_out = 0;
  while (ep->state == EP_RESOLVING && !timed_out)
    timed_out = pthread_cond_timedwait(&ep->cond, &ep->lock, &dl) == ETIMEDOUT;
  int rc = SR_OK;
  if (ep->state == EP_OPEN) {
    *out = ep;
    pthread_mutex_unlock(&ep->lock);
    return SR_OK;
  }
  if (ep->state == EP_RESOLVING) {
    set_err("connect to %s timed out after %u ms", a, timeout_ms);
    rc = SR_ETIMEDOUT;
  } else {
    set_err("%s", ep->cause[0] ? ep->cause : "connection closed while connecting");
    rc = ep->connect_code ? ep->connect_code : SR_ECLOSED;
  }
  ep->user = NULL; /* no callbacks for an endpoint that never connected */
  pthread_mutex_unlock(&ep->lock);
  char keep[sizeof tls_err];
  snprintf(keep, sizeof keep, "%s", tls_err);
  sr_ep_close(ep);
  sr_ep_release(ep);
  snprintf(tls_err, sizeof tls_err, "%s", keep);
  return rc;
}
