/*
 * Contexts: creation (rdma_cm event channel, epoll set, eventfd), stop, statistics, and the
 * progress thread's handling of the queued requests.
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

int on_progress_thread(sr_ctx *ctx) {
  return ctx != NULL && atomic_load(&ctx->running) && pthread_equal(pthread_self(), ctx->runner);
}

void wake(sr_ctx *ctx) {
  uint64_t one = 1;
  ssize_t r = write(ctx->wakefd, &one, sizeof one);
  (void)r;
}

int sr_ctx_create(const sr_config *cfg_in, const sr_callbacks *cb, unsigned flags,
                  sr_ctx **out) {
  sr_config cfg;
  if (cfg_in) cfg = *cfg_in; else sr_config_defaults(&cfg);
  int rc = check_config(&cfg);
  if (rc) return rc;
  sr_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) { set_err("out of memory"); return SR_ENOMEM; }
  ctx->cfg = cfg;
  if (cfg.device) snprintf(ctx->device, sizeof ctx->device, "%s", cfg.device);
  ctx->cfg.device = ctx->device;
  if (cb) ctx->cb = *cb;
  ctx->epfd = epoll_create1(EPOLL_CLOEXEC);
  ctx->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  pthread_mutex_init(&ctx->lock, NULL);
  if (ctx->epfd < 0 || ctx->wakefd < 0) {
    set_err("epoll/eventfd: %s", strerror(errno));
    rc = SR_EIO;
    goto fail;
  }
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &ctx->wakefd};
  epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->wakefd, &ev);
  if (!(flags & SR_CTX_NO_CM)) {
    char devs[512];
    int n = sr_probe_devices(ctx->device, devs, sizeof devs);
    if (n <= 0) {
      rc = SR_ENODEV; /* message set by the probe */
      goto fail;
    }
    ctx->ch = rdma_create_event_channel();
    if (!ctx->ch) {
      set_err("rdma_create_event_channel: %s (is rdma_ucm loaded? /dev/infiniband/rdma_cm)",
              strerror(errno));
      rc = SR_ENODEV;
      goto fail;
    }
    fcntl(ctx->ch->fd, F_SETFL, fcntl(ctx->ch->fd, F_GETFL) | O_NONBLOCK);
    struct epoll_event cev = {.events = EPOLLIN, .data.ptr = ctx->ch};
    epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->ch->fd, &cev);
  }
  atomic_fetch_add(&live_objects, 1);
  *out = ctx;
  return SR_OK;
fail:
  if (ctx->epfd >= 0) close(ctx->epfd);
  if (ctx->wakefd >= 0) close(ctx->wakefd);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
  return rc;
}

void sr_ctx_stop(sr_ctx *ctx) {
  atomic_store(&ctx->stop, 1);
  wake(ctx);
}

void sr_ctx_get_stats(sr_ctx *ctx, sr_ctx_stats *out) { *out = ctx->stats; }

void process_requests(sr_ctx *ctx) {
  atomic_store(&ctx->has_requests, 0);
  pthread_mutex_lock(&ctx->lock);
  sr_ep *eps = ctx->ep_reqs;
  ctx->ep_reqs = NULL;
  sr_listener *ls = ctx->lst_reqs;
  ctx->lst_reqs = NULL;
  pthread_mutex_unlock(&ctx->lock);
  while (eps) {
    sr_ep *ep = eps;
    eps = ep->next_req;
    handle_close_request(ep);
    sr_ep_release(ep); /* the queue's reference */
  }
  while (ls) {
    sr_listener *l = ls;
    ls = l->next_req;
    rdma_destroy_id(l->id);
    free(l);
    atomic_fetch_sub(&live_objects, 1);
  }
}
