/*
 * Configuration and devices: the configuration's defaults and limits, the probe of the RDMA
 * devices and their ports, and the devices a context opens (completion channel and the completion
 * queue its endpoints share, grown with them; protection domains are per endpoint, sr_endpoint.c).
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

void sr_config_defaults(sr_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->device = NULL;
  cfg->eager_size = 8192;
  cfg->credits = 64;
  cfg->max_message = 4u << 20;
  cfg->poll_spin_us = 100;
  cfg->send_timeout_ms = 10000;
}

int check_config(const sr_config *cfg) {
  if (cfg->eager_size < 64 || cfg->eager_size > (1u << 20)) {
    set_err("eager size %u out of range [64, 1048576]", cfg->eager_size);
    return SR_EINVAL;
  }
  if (cfg->credits < 4 || cfg->credits > 4096) {
    set_err("credits %u out of range [4, 4096]", cfg->credits);
    return SR_EINVAL;
  }
  if (cfg->max_message < cfg->eager_size || cfg->max_message > (1u << 30)) {
    set_err("max message %u out of range [eager size %u, 1073741824]", cfg->max_message,
            cfg->eager_size);
    return SR_EINVAL;
  }
  /* The receive pool is one region whose offsets reach Java as signed 32-bit ints. */
  if ((uint64_t)cfg->credits * (cfg->eager_size + HDR_SIZE) > INT32_MAX) {
    set_err("credits %u x (eager size %u + %u) = %llu bytes of receive buffers per endpoint, "
            "above 2147483647", cfg->credits, cfg->eager_size, HDR_SIZE,
            (unsigned long long)cfg->credits * (cfg->eager_size + HDR_SIZE));
    return SR_EINVAL;
  }
  if (cfg->send_timeout_ms < 1 || cfg->send_timeout_ms > 86400000) {
    set_err("send timeout %u ms out of range [1, 86400000]", cfg->send_timeout_ms);
    return SR_EINVAL;
  }
  if (cfg->poll_spin_us > 10000000) {
    set_err("poll spin %u us above 10 s", cfg->poll_spin_us);
    return SR_EINVAL;
  }
  return SR_OK;
}

int sr_probe_devices(const char *want, char *buf, size_t buflen) {
  int num = 0, found = 0, active = 0;
  size_t used = 0;
  if (buflen) buf[0] = 0;
  struct ibv_device **list = ibv_get_device_list(&num);
  if (list == NULL) { /* no devices or no uverbs: never pass NULL to ibv_free_device_list */
    int err = errno ? errno : ENODEV;
    if (want && *want) /* the operator configured a device: name it */
      set_err("RDMA device '%s' not found: no RDMA device (ibv_get_device_list: %s)", want,
              strerror(err));
    else
      set_err("no RDMA device (ibv_get_device_list: %s)", strerror(err));
    return 0;
  }
  for (int i = 0; i < num; i++) {
    const char *name = ibv_get_device_name(list[i]);
    if (want && *want && strcmp(want, name) != 0) continue;
    found++;
    struct ibv_context *c = ibv_open_device(list[i]);
    if (c == NULL) {
      used += snprintf(buf + used, used < buflen ? buflen - used : 0, "%s%s:open-failed(%s)",
                       used ? "," : "", name, strerror(errno));
      continue;
    }
    struct ibv_device_attr da;
    int ports = ibv_query_device(c, &da) == 0 ? da.phys_port_cnt : 1;
    for (int p = 1; p <= ports; p++) {
      struct ibv_port_attr pa;
      if (ibv_query_port(c, (uint8_t)p, &pa) != 0) continue;
      if (pa.state == IBV_PORT_ACTIVE) active++;
      used += snprintf(buf + used, used < buflen ? buflen - used : 0, "%s%s:%d=%s",
                       used ? "," : "", name, p, ibv_port_state_str(pa.state));
    }
    ibv_close_device(c);
  }
  ibv_free_device_list(list);
  if (found == 0) {
    if (want && *want)
      set_err("RDMA device '%s' not found (%d other device(s))", want, num);
    else
      set_err("no RDMA device (ibv_get_device_list found none)");
    return 0;
  }
  if (active == 0) set_err("no active port on RDMA device(s): %s", buf);
  return active ? found : -found;
}

sr_dev *get_dev(sr_ctx *ctx, struct ibv_context *verbs) {
  for (sr_dev *d = ctx->devs; d; d = d->next)
    if (d->verbs == verbs) return d;
  const char *name = ibv_get_device_name(verbs->device);
  if (ctx->device[0] && strcmp(ctx->device, name) != 0) {
    set_err("address resolved to RDMA device %s but %s is configured", name, ctx->device);
    return NULL;
  }
  sr_dev *d = calloc(1, sizeof *d);
  if (!d) { set_err("out of memory"); return NULL; }
  d->verbs = verbs;
  d->ch = ibv_create_comp_channel(verbs);
  if (!d->ch) { set_err("ibv_create_comp_channel on %s: %s", name, strerror(errno)); goto fail; }
  fcntl(d->ch->fd, F_SETFL, fcntl(d->ch->fd, F_GETFL) | O_NONBLOCK);
  struct ibv_device_attr da;
  d->max_cqe = ibv_query_device(verbs, &da) == 0 && da.max_cqe > 0 ? da.max_cqe : 1 << 22;
  d->cq_size = SR_CQ_MIN < d->max_cqe ? SR_CQ_MIN : d->max_cqe;
  d->cq = ibv_create_cq(verbs, d->cq_size, d, d->ch, 0);
  if (!d->cq) { set_err("ibv_create_cq(%d) on %s: %s", d->cq_size, name, strerror(errno)); goto fail; }
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = d};
  if (epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, d->ch->fd, &ev) != 0) {
    set_err("epoll_ctl for %s completion channel: %s", name, strerror(errno));
    goto fail;
  }
  d->next = ctx->devs;
  ctx->devs = d;
  ctx->stats.cq_size += (uint64_t)d->cq_size;
  return d;
fail:
  if (d->cq) ibv_destroy_cq(d->cq);
  if (d->ch) ibv_destroy_comp_channel(d->ch);
  free(d);
  return NULL;
}

int cq_target_size(int size, int used, int max) {
  if (used > max) return 0;
  long want = size < 1 ? 1 : size;
  while (want < used) want *= 2;
  if (want > max) want = max; /* used <= max: it fits */
  while (want / 2 >= SR_CQ_MIN && used <= want / 4) want /= 2;
  return (int)want;
}

/* Makes room in the shared CQ for `more` entries, doubling it as needed up to the device's
 * max_cqe. Every work request of every endpoint has its entry reserved before its QP exists, so
 * the CQ can never overflow (an overflow would lose completions and break the CQ): an endpoint
 * that does not fit is refused instead. */
int dev_reserve_cq(sr_ctx *ctx, sr_dev *d, int more) {
  int used = d->cq_used + more;
  if (used <= d->cq_size) {
    d->cq_used = used;
    return SR_OK;
  }
  int want = cq_target_size(d->cq_size, used, d->max_cqe);
  if (want == 0) {
    set_err("the completion queue of %s would need %d entries for one more endpoint, above the "
            "device's max_cqe %d: endpoint refused (too many endpoints on this device; lower "
            "strata.rdma.credits or the endpoint caps)", ibv_get_device_name(d->verbs->device),
            used, d->max_cqe);
    return SR_ENOMEM;
  }
  if (ibv_resize_cq(d->cq, want) != 0) {
    set_err("ibv_resize_cq(%d) on %s: %s (too many endpoints for the device's CQ): endpoint "
            "refused", want, ibv_get_device_name(d->verbs->device), strerror(errno));
    return SR_ENOMEM;
  }
  ctx->stats.cq_size += (uint64_t)(want - d->cq_size);
  d->cq_size = want;
  d->cq_used = used;
  return SR_OK;
}

void dev_unreserve_cq(sr_ctx *ctx, sr_dev *d, int less) {
  d->cq_used -= less;
  if (d->cq_used < 0) d->cq_used = 0;
  int want = cq_target_size(d->cq_size, d->cq_used, d->max_cqe);
  if (want > 0 && want < d->cq_size) ctx->cq_shrink = 1;
}

/* Not in the teardown itself: the torn-down queue pair's flushed completions may still sit in
 * the CQ, and with them a smaller CQ could fill up with the live endpoints' completions. Here
 * every CQ was found empty by the caller's poll just before, so whatever enters the resized CQ
 * comes from work requests whose entries are reserved. A resize that fails (a provider that
 * cannot shrink, or completions that arrived meanwhile outnumbering the smaller size: the verbs
 * refuse rather than drop one) leaves the CQ as it is, to be tried again after the next
 * teardown. */
void shrink_cqs(sr_ctx *ctx) {
  ctx->cq_shrink = 0;
  for (sr_dev *d = ctx->devs; d; d = d->next) {
    int want = cq_target_size(d->cq_size, d->cq_used, d->max_cqe);
    if (want > 0 && want < d->cq_size && ibv_resize_cq(d->cq, want) == 0) {
      ctx->stats.cq_size -= (uint64_t)(d->cq_size - want);
      d->cq_size = want;
    }
  }
}
