/*
 * Endpoint queries: open or not, the message limit, the peer's address, the receive regions the
 * Java side views, statistics.
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <string.h>

int sr_ep_is_open(sr_ep *ep) {
  pthread_mutex_lock(&ep->lock);
  int open = ep->state == EP_OPEN && !ep->local_close && !ep->fail_code && ep->ctx != NULL;
  pthread_mutex_unlock(&ep->lock);
  return open;
}

uint32_t sr_ep_max_message(sr_ep *ep) {
  pthread_mutex_lock(&ep->lock);
  uint32_t limit = ep->have_peer && ep->peer_rndv_size < ep->max_message ? ep->peer_rndv_size
                                                                         : ep->max_message;
  pthread_mutex_unlock(&ep->lock);
  return limit;
}

int sr_ep_peer_addr(sr_ep *ep, struct sockaddr_storage *out) {
  int rc = SR_ECLOSED;
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&ep->lock);
  if (ep->id) {
    struct sockaddr *sa = rdma_get_peer_addr(ep->id);
    memcpy(out, sa, addr_len(sa));
    rc = SR_OK;
  }
  pthread_mutex_unlock(&ep->lock);
  return rc;
}

int sr_ep_region(sr_ep *ep, int region, void **base, uint32_t *size) {
  pthread_mutex_lock(&ep->lock);
  int rc = SR_OK;
  if (region == 0 && ep->recv_pool) {
    *base = ep->recv_pool;
    *size = ep->R * ep->bufsz;
  } else if (region == 1 && ep->rndv_in) {
    *base = ep->rndv_in;
    *size = ep->max_message;
  } else {
    set_err("endpoint has no region %d (closed?)", region);
    rc = SR_ECLOSED;
  }
  pthread_mutex_unlock(&ep->lock);
  return rc;
}

void sr_ep_get_stats(sr_ep *ep, sr_ep_stats *out) {
  pthread_mutex_lock(&ep->lock);
  *out = ep->stats;
  pthread_mutex_unlock(&ep->lock);
}
