/*
 * Endpoints: creation and references, the slot table that maps completions back to endpoints,
 * the registered buffers and the queue pair, the parameters exchanged with the peer, posting, and
 * the credit bookkeeping (credits returned in headers, credit messages, the progress thread's
 * queue of sends waiting for credit).
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Encodes the wr_id layout described in sr_internal.h. */
static uint64_t make_wr_id(uint32_t slot, uint32_t gen, uint32_t kind, uint32_t idx) {
  return ((uint64_t)slot << 44) | ((uint64_t)(gen & 0xfff) << 32) | ((uint64_t)kind << 28) |
         (idx & 0xfffffff);
}

/* "peer 10.0.2.15:7000 via rxe0 port 1 GID ::ffff:10.0.2.15" */
const char *ep_where(sr_ep *ep, char *buf, size_t len) {
  char peer[80];
  struct sockaddr *pa = ep->id ? rdma_get_peer_addr(ep->id) : NULL;
  addr_str(pa, peer, sizeof peer);
  if (ep->id && ep->id->verbs) {
    char gid[INET6_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET6, ep->id->route.addr.addr.ibaddr.sgid.raw, gid, sizeof gid);
    snprintf(buf, len, "peer %s via %s port %u GID %s", peer,
             ibv_get_device_name(ep->id->verbs->device), ep->id->port_num, gid);
  } else {
    snprintf(buf, len, "peer %s", peer);
  }
  return buf;
}

static void ep_free_memory(sr_ep *ep) {
  free(ep->recv_pool);
  free(ep->send_pool);
  free(ep->rndv_in);
  free(ep->rndv_out);
  free(ep->free_slots);
  while (ep->pend_head) {
    pending *n = ep->pend_head;
    ep->pend_head = n->next;
    free(n);
  }
  pthread_mutex_destroy(&ep->lock);
  pthread_cond_destroy(&ep->cond);
  free(ep);
  atomic_fetch_sub(&live_objects, 1);
}

void ep_unref_locked_and_unlock(sr_ep *ep) {
  int refs = --ep->refs;
  pthread_mutex_unlock(&ep->lock);
  if (refs == 0) ep_free_memory(ep);
}

void sr_ep_retain(sr_ep *ep) {
  pthread_mutex_lock(&ep->lock);
  ep->refs++;
  pthread_mutex_unlock(&ep->lock);
}

void sr_ep_release(sr_ep *ep) {
  if (!ep) return;
  pthread_mutex_lock(&ep->lock);
  ep_unref_locked_and_unlock(ep);
}

sr_ep *ep_new(sr_ctx *ctx, void *user) {
  sr_ep *ep = calloc(1, sizeof *ep);
  if (!ep) { set_err("out of memory"); return NULL; }
  ep->kind = OBJ_EP;
  ep->ctx = ctx;
  ep->user = user;
  pthread_mutex_init(&ep->lock, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&ep->cond, &ca);
  pthread_condattr_destroy(&ca);
  ep->refs = 1;
  ep->R = ctx->cfg.credits;
  ep->S = ctx->cfg.credits + 2;
  ep->eager = ctx->cfg.eager_size;
  ep->bufsz = HDR_SIZE + ctx->cfg.eager_size;
  ep->max_message = ctx->cfg.max_message;
  ep->threshold = ep->R / 2;
  /* progress-thread sends queue at most one rendezvous message and a window of eager ones */
  ep->pend_limit = (size_t)ctx->cfg.max_message + (size_t)ep->R * ep->eager;
  atomic_fetch_add(&live_objects, 1);
  pthread_mutex_lock(&ctx->lock);
  ep->next_all = ctx->all_eps;
  if (ctx->all_eps) ctx->all_eps->prev_all = ep;
  ctx->all_eps = ep;
  pthread_mutex_unlock(&ctx->lock);
  return ep;
}

static int table_add(sr_ctx *ctx, sr_ep *ep) {
  uint32_t i;
  for (i = 0; i < ctx->nslots; i++)
    if (ctx->slots[i] == NULL) break;
  if (i == ctx->nslots) {
    uint32_t n = ctx->nslots ? ctx->nslots * 2 : 64;
    if (n > (1u << 20)) { set_err("too many endpoints"); return SR_ENOMEM; }
    sr_ep **s = realloc(ctx->slots, n * sizeof *s);
    if (!s) { set_err("out of memory"); return SR_ENOMEM; }
    ctx->slots = s;
    uint32_t *g = realloc(ctx->gens, n * sizeof *g);
    if (!g) { set_err("out of memory"); return SR_ENOMEM; }
    ctx->gens = g;
    for (uint32_t j = ctx->nslots; j < n; j++) { ctx->slots[j] = NULL; ctx->gens[j] = 0; }
    ctx->nslots = n;
  }
  ctx->slots[i] = ep;
  ep->slot = i;
  ep->gen = ++ctx->gens[i] & 0xfff;
  ep->in_table = 1;
  return SR_OK;
}

static void *alloc_region(size_t size) {
  void *p = NULL;
  if (posix_memalign(&p, 4096, size) != 0) return NULL;
  memset(p, 0, size);
  return p;
}

int post_recv(sr_ep *ep, uint32_t idx) {
  struct ibv_sge sge = {.addr = (uintptr_t)(ep->recv_pool + (size_t)idx * ep->bufsz),
                        .length = ep->bufsz, .lkey = ep->recv_mr->lkey};
  struct ibv_recv_wr wr = {.wr_id = make_wr_id(ep->slot, ep->gen, WR_RECV, idx),
                           .sg_list = &sge, .num_sge = 1};
  struct ibv_recv_wr *bad;
  int rc = ibv_post_recv(ep->qp, &wr, &bad);
  if (rc) {
    char w[256];
    set_err("ibv_post_recv failed for %s: %s", ep_where(ep, w, sizeof w), strerror(rc));
    return SR_EIO;
  }
  return SR_OK;
}

/* Protection domain, QP, registered pools, posted receives. Progress thread. */
int ep_setup_resources(sr_ep *ep) {
  sr_ctx *ctx = ep->ctx;
  char w[256];
  sr_dev *d = get_dev(ctx, ep->id->verbs);
  if (!d) return SR_ENODEV;
  if (dev_reserve_cq(ctx, d, (int)(ep->R + ep->S + 2)) != SR_OK) return SR_ENOMEM;
  ep->dev = d;
  ctx->stats.cq_entries += ep->R + ep->S + 2;
  ep->cq_reserved = 1; /* returned by ep_teardown whether or not the QP is ever created */
  int rc = table_add(ctx, ep);
  if (rc) return rc;

  size_t rpool = (size_t)ep->R * ep->bufsz, spool = (size_t)ep->S * ep->bufsz;
  ep->recv_pool = alloc_region(rpool);
  ep->send_pool = alloc_region(spool);
  ep->rndv_in = alloc_region(ep->max_message);
  ep->rndv_out = alloc_region(ep->max_message);
  ep->free_slots = calloc(ep->S, sizeof(uint32_t));
  if (!ep->recv_pool || !ep->send_pool || !ep->rndv_in || !ep->rndv_out || !ep->free_slots) {
    set_err("out of memory allocating %zu bytes of buffers for %s",
            rpool + spool + 2 * (size_t)ep->max_message, ep_where(ep, w, sizeof w));
    return SR_ENOMEM;
  }
  for (uint32_t i = 0; i < ep->S; i++) ep->free_slots[i] = ep->S - 1 - i;
  ep->nfree = ep->S;
  /* A protection domain of its own (see sr_ep.pd): the rendezvous region stays writable by this
   * endpoint's queue pair alone. Freed in ep_teardown after the QP and the registrations. */
  ep->pd = ibv_alloc_pd(d->verbs);
  if (!ep->pd) {
    set_err("ibv_alloc_pd on %s failed for %s: %s", ibv_get_device_name(d->verbs->device),
            ep_where(ep, w, sizeof w), strerror(errno));
    return SR_ENOMEM;
  }
  ep->recv_mr = ibv_reg_mr(ep->pd, ep->recv_pool, rpool, IBV_ACCESS_LOCAL_WRITE);
  ep->send_mr = ibv_reg_mr(ep->pd, ep->send_pool, spool, IBV_ACCESS_LOCAL_WRITE);
  ep->rndv_in_mr = ibv_reg_mr(ep->pd, ep->rndv_in, ep->max_message,
                              IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  ep->rndv_out_mr = ibv_reg_mr(ep->pd, ep->rndv_out, ep->max_message, IBV_ACCESS_LOCAL_WRITE);
  if (!ep->recv_mr || !ep->send_mr || !ep->rndv_in_mr || !ep->rndv_out_mr) {
    set_err("ibv_reg_mr of %zu bytes failed for %s: %s (raise the locked-memory limit, "
            "ulimit -l)", rpool + spool + 2 * (size_t)ep->max_message,
            ep_where(ep, w, sizeof w), strerror(errno));
    return SR_ENOMEM;
  }
  struct ibv_qp_init_attr qa = {
      .send_cq = d->cq, .recv_cq = d->cq, .qp_type = IBV_QPT_RC, .sq_sig_all = 0,
      .cap = {.max_send_wr = ep->S + 2, .max_recv_wr = ep->R, .max_send_sge = 1,
              .max_recv_sge = 1}};
  if (rdma_create_qp(ep->id, ep->pd, &qa) != 0) {
    set_err("rdma_create_qp failed for %s: %s", ep_where(ep, w, sizeof w), strerror(errno));
    return SR_EIO;
  }
  ep->qp = ep->id->qp;
  for (uint32_t i = 0; i < ep->R; i++)
    if ((rc = post_recv(ep, i)) != SR_OK) return rc;
  return SR_OK;
}

void ep_fill_params(sr_ep *ep, wire_params *p) {
  memset(p, 0, sizeof *p);
  p->magic = WIRE_MAGIC;
  p->credits = ep->R;
  p->eager_size = ep->eager;
  p->rndv_size = ep->max_message;
  p->rndv_addr = (uintptr_t)ep->rndv_in;
  p->rndv_rkey = ep->rndv_in_mr->rkey;
}

/* Takes the peer's parameters; lock held. */
int ep_take_params(sr_ep *ep, const wire_params *p) {
  char why[160];
  if (sr_wire_check_params(p, why, sizeof why) != 0) {
    char w[256];
    set_err("protocol violation by %s: %s", ep_where(ep, w, sizeof w), why);
    return SR_EIO;
  }
  ep->peer_credits = p->credits;
  ep->peer_eager = p->eager_size;
  ep->peer_rndv_size = p->rndv_size;
  ep->peer_rndv_addr = p->rndv_addr;
  ep->peer_rndv_rkey = p->rndv_rkey;
  ep->send_credits += (int32_t)p->credits;
  ep->rndv_tokens = 1;
  ep->have_peer = 1;
  pthread_cond_broadcast(&ep->cond);
  return SR_OK;
}

/* Posts a header-only or data message from send slot `slot`; lock held. */
int ep_post_slot(sr_ep *ep, uint32_t slot, uint32_t bytes, int rndv_len) {
  struct ibv_sge sge = {.addr = (uintptr_t)(ep->send_pool + (size_t)slot * ep->bufsz),
                        .length = bytes, .lkey = ep->send_mr->lkey};
  struct ibv_send_wr send = {.wr_id = make_wr_id(ep->slot, ep->gen, WR_SEND, slot),
                             .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                             .send_flags = IBV_SEND_SIGNALED};
  struct ibv_sge wsge;
  struct ibv_send_wr write, *first = &send, *bad;
  if (rndv_len >= 0) {
    wsge = (struct ibv_sge){.addr = (uintptr_t)ep->rndv_out, .length = (uint32_t)rndv_len,
                            .lkey = ep->rndv_out_mr->lkey};
    memset(&write, 0, sizeof write);
    write.wr_id = make_wr_id(ep->slot, ep->gen, WR_SEND, 0xfffffff);
    write.sg_list = &wsge;
    write.num_sge = 1;
    write.opcode = IBV_WR_RDMA_WRITE;
    write.wr.rdma.remote_addr = ep->peer_rndv_addr;
    write.wr.rdma.rkey = ep->peer_rndv_rkey;
    write.next = &send;
    first = &write;
  }
  int rc = ibv_post_send(ep->qp, first, &bad);
  if (rc) {
    char w[256];
    set_err("ibv_post_send failed for %s: %s", ep_where(ep, w, sizeof w), strerror(rc));
    return SR_EIO;
  }
  return SR_OK;
}

wire_hdr *slot_hdr(sr_ep *ep, uint32_t slot) {
  return (wire_hdr *)(ep->send_pool + (size_t)slot * ep->bufsz);
}

/* Fills in the piggy-backed credits and acks of an outgoing header; lock held. */
void take_owed(sr_ep *ep, wire_hdr *h) {
  uint32_t c = ep->owed > 0xffff ? 0xffff : ep->owed;
  h->credits = (uint16_t)c;
  ep->owed -= c;
  uint32_t a = ep->rndv_owed > 0xff ? 0xff : ep->rndv_owed;
  h->rndv_acks = (uint8_t)a;
  ep->rndv_owed -= a;
}

int ep_can_send(sr_ep *ep, uint32_t len, int *rndv) {
  uint32_t eager_max = ep->eager < ep->peer_eager ? ep->eager : ep->peer_eager;
  *rndv = len > eager_max;
  return ep->send_credits >= 2 && ep->nfree > 0 && (!*rndv || ep->rndv_tokens > 0);
}

/* Sends queued messages while credits allow; lock held. */
static void drain_pending(sr_ep *ep) {
  int rndv;
  while (ep->pend_head && ep->state == EP_OPEN && ep->have_peer && !ep->sending &&
         ep_can_send(ep, ep->pend_head->len, &rndv)) {
    pending *n = ep->pend_head;
    uint32_t slot = ep->free_slots[--ep->nfree];
    ep->send_credits--;
    if (rndv) ep->rndv_tokens--;
    memcpy(rndv ? ep->rndv_out : ep->send_pool + (size_t)slot * ep->bufsz + HDR_SIZE, n->data,
           n->len);
    ep->pend_head = n->next;
    ep->pend_bytes -= n->len;
    if (!ep->pend_head) {
      ep->pend_tail = NULL;
      if (ep->waiters) pthread_cond_broadcast(&ep->cond);
    }
    int rc = ep_post_message(ep, slot, n->len, rndv);
    free(n);
    if (rc != SR_OK) return;
  }
}

/* Sends a credit message if credits or a rendezvous ack are owed and it can; lock held. */
void maybe_send_credit(sr_ep *ep) {
  if (ep->state != EP_OPEN && ep->state != EP_ACCEPTING) return;
  drain_pending(ep);
  if (!ep->have_peer || ep->sending) return;
  if (ep->owed < ep->threshold && ep->rndv_owed == 0) return;
  if (ep->send_credits < 1 || ep->nfree == 0) return;
  uint32_t slot = ep->free_slots[--ep->nfree];
  wire_hdr *h = slot_hdr(ep, slot);
  memset(h, 0, HDR_SIZE);
  h->type = MSG_CREDIT;
  take_owed(ep, h);
  ep->send_credits--;
  if (ep_post_slot(ep, slot, HDR_SIZE, -1) != SR_OK) {
    ep->free_slots[ep->nfree++] = slot;
    return; /* the QP is failing; the completion error closes the endpoint */
  }
  ep->stats.credit_msgs++;
}
