/*
 * Connection manager (rdma_cm) events, on the progress thread: connect requests to a listener,
 * address and route resolution, establishment with the exchange of parameters, rejection,
 * errors, disconnects and device removal.
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct cm_evt {
  enum rdma_cm_event_type type;
  struct rdma_cm_id *id, *listen_id;
  int status;
  uint8_t pdata[256];
  uint32_t pdata_len;
} cm_evt;

static void on_connect_request(sr_ctx *ctx, cm_evt *e) {
  sr_listener *lst = e->listen_id ? e->listen_id->context : NULL;
  if (!lst || lst->kind != OBJ_LISTENER || lst->closing) {
    rdma_reject(e->id, NULL, 0);
    rdma_destroy_id(e->id);
    return;
  }
  uint32_t len = e->pdata_len ? e->pdata[0] : 0;
  if (len > SR_MAX_PRIVATE_DATA || len + 1 > e->pdata_len) len = 0;
  sr_ep *ep = ep_new(ctx, NULL);
  if (!ep) {
    rdma_reject(e->id, NULL, 0);
    rdma_destroy_id(e->id);
    return;
  }
  ep->id = e->id;
  ep->id->context = ep;
  ep->accepted = 1;
  ep->state = EP_ACCEPTING;
  void *user = ctx->cb.on_connect_request
                   ? ctx->cb.on_connect_request(lst, lst->user, ep, rdma_get_peer_addr(e->id),
                                                e->pdata + 1, len)
                   : NULL;
  if (user == NULL) {
    rdma_reject(e->id, NULL, 0);
    pthread_mutex_lock(&ep->lock);
    ep->state = EP_CLOSED;
    pthread_mutex_unlock(&ep->lock);
    ep_teardown(ep);
    return;
  }
  ep->user = user;
  char w[256];
  int rc = ep_setup_resources(ep);
  if (rc == SR_OK) {
    wire_params p;
    ep_fill_params(ep, &p);
    struct rdma_conn_param cp = {.private_data = &p, .private_data_len = sizeof p,
                                 .responder_resources = 1, .initiator_depth = 1,
                                 .rnr_retry_count = 7};
    if (rdma_accept(ep->id, &cp) != 0) {
      set_err("rdma_accept for %s: %s", ep_where(ep, w, sizeof w), strerror(errno));
      rc = SR_EIO;
    }
  }
  if (rc != SR_OK) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", sr_last_error());
    rdma_reject(ep->id, NULL, 0);
    ep_mark_closed(ep, rc, msg);
    ep_teardown(ep);
  }
}

void connect_failed(sr_ep *ep, int code, const char *fmt, ...) {
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&ep->lock);
  if (ep->connect_code == 0) ep->connect_code = code;
  if (ep->cause[0] == 0) snprintf(ep->cause, sizeof ep->cause, "%s", msg);
  ep->state = EP_CLOSED;
  pthread_cond_broadcast(&ep->cond);
  pthread_mutex_unlock(&ep->lock);
  ep_teardown(ep);
}

static void handle_cm_event(sr_ctx *ctx, cm_evt *e) {
  if (e->type == RDMA_CM_EVENT_CONNECT_REQUEST) {
    on_connect_request(ctx, e);
    return;
  }
  sr_ep *ep = e->id ? e->id->context : NULL;
  if (!ep || ep->kind != OBJ_EP) return; /* listener events: nothing to do */
  char w[256];
  ep_where(ep, w, sizeof w);
  int closing;
  pthread_mutex_lock(&ep->lock);
  closing = ep->local_close;
  pthread_mutex_unlock(&ep->lock);
  switch (e->type) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
      if (closing) { connect_failed(ep, SR_ECLOSED, "closed while connecting"); break; }
      if (rdma_resolve_route(ep->id, ep->resolve_ms) != 0)
        connect_failed(ep, SR_EUNREACHABLE, "rdma_resolve_route to %s: %s", w, strerror(errno));
      break;
    case RDMA_CM_EVENT_ROUTE_RESOLVED: {
      if (closing) { connect_failed(ep, SR_ECLOSED, "closed while connecting"); break; }
      int rc = ep_setup_resources(ep);
      if (rc != SR_OK) { connect_failed(ep, rc, "%s", sr_last_error()); break; }
      uint8_t pd[56] = {0};
      pd[0] = (uint8_t)ep->pdata_len;
      memcpy(pd + 1, ep->pdata, ep->pdata_len);
      struct rdma_conn_param cp = {.private_data = pd, .private_data_len = 1 + ep->pdata_len,
                                   .responder_resources = 1, .initiator_depth = 1,
                                   .retry_count = 7, .rnr_retry_count = 7};
      if (rdma_connect(ep->id, &cp) != 0)
        connect_failed(ep, SR_EIO, "rdma_connect to %s: %s", ep_where(ep, w, sizeof w),
                       strerror(errno));
      break;
    }
    case RDMA_CM_EVENT_ESTABLISHED:
      if (ep->accepted) {
        pthread_mutex_lock(&ep->lock);
        ep->cm_established = 1;
        pthread_mutex_unlock(&ep->lock);
        mark_established(ep);
        /* The peer's first messages can complete before this event is handled: a protocol
         * violation among them closed the endpoint (accepting, or opened by those messages)
         * when rdma_disconnect could not tell the peer yet (the connection manager disconnects
         * only an established connection). Disconnect now, or the endpoint and its resources
         * would stay until the peer itself leaves. */
        pthread_mutex_lock(&ep->lock);
        int late = ep->state == EP_CLOSED && !ep->disconnect_sent && ep->id != NULL;
        pthread_mutex_unlock(&ep->lock);
        if (late) {
          ep->disconnect_sent = 1;
          rdma_disconnect(ep->id);
        }
      } else {
        wire_params p;
        pthread_mutex_lock(&ep->lock);
        int rc = SR_EIO;
        if (e->pdata_len >= sizeof p) {
          memcpy(&p, e->pdata, sizeof p);
          rc = ep_take_params(ep, &p);
        } else {
          set_err("%s sent no parameters with its accept", w);
        }
        if (rc == SR_OK) {
          /* HELLO: our parameters, the first message (takes one of the peer's credits) */
          uint32_t slot = ep->free_slots[--ep->nfree];
          wire_hdr *h = slot_hdr(ep, slot);
          memset(h, 0, HDR_SIZE);
          h->type = MSG_HELLO;
          h->len = sizeof p;
          ep_fill_params(ep, &p);
          memcpy((char *)h + HDR_SIZE, &p, sizeof p);
          ep->send_credits--;
          rc = ep_post_slot(ep, slot, HDR_SIZE + sizeof p, -1);
        }
        if (rc == SR_OK && !ep->local_close) {
          ep->state = EP_OPEN;
          ep->established_notified = 1;
          pthread_cond_broadcast(&ep->cond);
          pthread_mutex_unlock(&ep->lock);
        } else {
          char msg[512];
          snprintf(msg, sizeof msg, "%s", rc ? sr_last_error() : "closed while connecting");
          pthread_mutex_unlock(&ep->lock);
          rdma_disconnect(ep->id);
          connect_failed(ep, rc ? rc : SR_ECLOSED, "%s", msg);
        }
      }
      break;
    case RDMA_CM_EVENT_REJECTED:
      connect_failed(ep, SR_EREJECTED,
                     "connection to %s rejected (%s, status %d: the peer refused or nothing "
                     "listens there)", w, rdma_event_str(e->type), e->status);
      break;
    case RDMA_CM_EVENT_ADDR_ERROR:
    case RDMA_CM_EVENT_ROUTE_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_CONNECT_ERROR:
      if (ep->state == EP_RESOLVING)
        connect_failed(ep, SR_EUNREACHABLE, "cannot connect to %s: %s (status %d)", w,
                       rdma_event_str(e->type), e->status);
      else {
        ep_fail(ep, SR_EUNREACHABLE, "connection to %s failed: %s (status %d)", w,
                rdma_event_str(e->type), e->status);
        ep_teardown(ep);
      }
      break;
    case RDMA_CM_EVENT_DISCONNECTED:
      ep->disconnect_sent = 1; /* nothing more to send: the connection is gone */
      ep_fail(ep, SR_ECLOSED, "%s disconnected", w);
      ep_teardown(ep);
      break;
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
      ep_fail(ep, SR_ENODEV, "RDMA device removed under the connection to %s", w);
      ep_teardown(ep);
      break;
    default:
      break;
  }
}

void drain_cm_events(sr_ctx *ctx) {
  if (!ctx->ch) return;
  struct rdma_cm_event *ev;
  while (rdma_get_cm_event(ctx->ch, &ev) == 0) {
    cm_evt e = {.type = ev->event, .id = ev->id, .listen_id = ev->listen_id,
                .status = ev->status};
    if (ev->param.conn.private_data && ev->param.conn.private_data_len) {
      e.pdata_len = ev->param.conn.private_data_len;
      if (e.pdata_len > sizeof e.pdata) e.pdata_len = sizeof e.pdata;
      memcpy(e.pdata, ev->param.conn.private_data, e.pdata_len);
    }
    rdma_ack_cm_event(ev); /* before handling: rdma_destroy_id waits for unacked events */
    handle_cm_event(ctx, &e);
  }
}
