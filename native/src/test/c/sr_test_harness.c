/* The shared harness of the C tests (sr_test_harness.h). */
#include "sr_test_harness.h"

char failure[1024];
struct sockaddr_in rdma_addr;
const char *self_exe;

sr_config small_config(void) {
  sr_config c;
  sr_config_defaults(&c);
  c.eager_size = 1024;
  c.credits = 16;
  c.max_message = 1u << 20;
  c.poll_spin_us = 50;
  return c;
}

/* ---------------------------------------------------------------- a client/server pair */

/* Starts a server and a client context with `cfg` and listens on the server. */
int pair_listen(pair *p, const sr_config *cfg) {
  int rc;
  memset(p, 0, sizeof *p);
  p->server = node_start(cfg, 0, &rc);
  if (!p->server) { snprintf(failure, sizeof failure, "server ctx: %s", sr_last_error()); return 1; }
  p->client = node_start(cfg, 0, &rc);
  if (!p->client) { snprintf(failure, sizeof failure, "client ctx: %s", sr_last_error()); return 1; }
  p->addr = rdma_addr;
  if (node_listen(p->server, &p->addr, &p->lst)) {
    snprintf(failure, sizeof failure, "listen: %s", sr_last_error());
    return 1;
  }
  return 0;
}

/* Connects the client of a listening pair and waits for the server to accept. */
int pair_connect(pair *p, const char *pdata) {
  p->ct = tep_new(p->client, MODE_COLLECT);
  int rc = sr_connect(p->client->ctx, (struct sockaddr *)&p->addr, pdata,
                      pdata ? (uint32_t)strlen(pdata) : 0, 5000, p->ct, &p->cep);
  if (rc) { snprintf(failure, sizeof failure, "connect: %d %s", rc, sr_last_error()); return 1; }
  p->ct->ep = p->cep;
  p->st = node_wait_accepted(p->server, 0, 5000);
  if (!p->st) { snprintf(failure, sizeof failure, "server saw no connection"); return 1; }
  return 0;
}

int pair_open(pair *p, const sr_config *cfg, int server_mode, const char *pdata) {
  if (pair_listen(p, cfg)) return 1;
  p->server->accept_mode = server_mode;
  return pair_connect(p, pdata);
}

void pair_close(pair *p) {
  if (p->cep) {
    sr_ep_close(p->cep);
    if (p->ct) tep_wait(p->ct, &p->ct->closed, 1, 5000);
    sr_ep_release(p->cep);
  }
  if (p->lst) sr_listener_close(p->lst);
  node_stop(p->client);
  node_stop(p->server);
  tep_free(p->ct);
}

/* Starts this program as a helper process; returns its pid and a pipe to read from. */
pid_t spawn_child(char *const argv[], FILE **out) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execv(self_exe, argv);
    _exit(127);
  }
  close(fd[1]);
  *out = fdopen(fd[0], "r");
  return pid;
}

/* ---------------------------------------------------------------- hostile peers */

/* Waits up to ms for the rdma_cm event `want` (copying its private data to pdata); a DISCONNECTED
 * on the way is remembered. 0 when it came. */
int hp_event(hpeer *hp, enum rdma_cm_event_type want, int ms, void *pdata, size_t pdlen) {
  uint64_t end = tl_now_ns() + (uint64_t)ms * 1000000ull;
  for (;;) {
    struct rdma_cm_event *ev;
    if (rdma_get_cm_event(hp->ch, &ev) == 0) {
      enum rdma_cm_event_type type = ev->event;
      int status = ev->status;
      if (pdata && type == want) {
        memset(pdata, 0, pdlen);
        size_t n = ev->param.conn.private_data_len < pdlen ? ev->param.conn.private_data_len
                                                           : pdlen;
        if (ev->param.conn.private_data) memcpy(pdata, ev->param.conn.private_data, n);
      }
      rdma_ack_cm_event(ev);
      if (type == RDMA_CM_EVENT_DISCONNECTED) hp->disconnected = 1;
      if (type == want) return 0;
      if (type != RDMA_CM_EVENT_DISCONNECTED && type != RDMA_CM_EVENT_TIMEWAIT_EXIT) {
        snprintf(failure, sizeof failure, "hostile peer: %s (status %d) while waiting for %s",
                 rdma_event_str(type), status, rdma_event_str(want));
        return -1;
      }
      continue;
    }
    if (tl_now_ns() >= end) {
      snprintf(failure, sizeof failure, "hostile peer: no %s within %d ms",
               rdma_event_str(want), ms);
      return -1;
    }
    usleep(1000);
  }
}

int hp_post_recv(hpeer *hp, uint32_t i) {
  struct ibv_sge sge = {.addr = (uintptr_t)(hp->buf + (size_t)i * HP_BUF), .length = HP_BUF,
                        .lkey = hp->mr->lkey};
  struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1}, *bad;
  return ibv_post_recv(hp->id->qp, &wr, &bad);
}

/* Handles completions for up to ms (0: what is there); returns when the send `want_send`
 * (wr_id) completed: 0 on success, 1 on an error status, -1 when it did not complete. */
int hp_poll(hpeer *hp, int ms, uint64_t want_send) {
  uint64_t end = tl_now_ns() + (uint64_t)ms * 1000000ull;
  for (;;) {
    struct ibv_wc wc[16];
    int n = ibv_poll_cq(hp->cq, 16, wc);
    for (int i = 0; i < n; i++) {
      if (wc[i].status != IBV_WC_SUCCESS) hp->qp_failed = 1;
      if (wc[i].wr_id < HP_RECVS) {
        if (wc[i].status == IBV_WC_SUCCESS) {
          hp->recvs++;
          hp_post_recv(hp, (uint32_t)wc[i].wr_id);
        }
      } else if (wc[i].wr_id == want_send) {
        hp->last_status = wc[i].status;
        return wc[i].status == IBV_WC_SUCCESS ? 0 : 1;
      }
    }
    if (n == 0) {
      if (tl_now_ns() >= end) return -1;
      usleep(500);
    }
  }
}

/* Connects to addr as a client of the runtime would, up to the ESTABLISHED event. */
int hp_connect(hpeer *hp, const struct sockaddr_in *addr) {
  memset(hp, 0, sizeof *hp);
  hp->ch = rdma_create_event_channel();
  if (!hp->ch) { snprintf(failure, sizeof failure, "hostile peer: event channel"); return -1; }
  fcntl(hp->ch->fd, F_SETFL, fcntl(hp->ch->fd, F_GETFL) | O_NONBLOCK);
  if (rdma_create_id(hp->ch, &hp->id, hp, RDMA_PS_TCP) != 0 ||
      rdma_resolve_addr(hp->id, NULL, (struct sockaddr *)addr, 2000) != 0) {
    snprintf(failure, sizeof failure, "hostile peer: resolve: %s", strerror(errno));
    return -1;
  }
  if (hp_event(hp, RDMA_CM_EVENT_ADDR_RESOLVED, 5000, NULL, 0)) return -1;
  if (rdma_resolve_route(hp->id, 2000) != 0) {
    snprintf(failure, sizeof failure, "hostile peer: route: %s", strerror(errno));
    return -1;
  }
  if (hp_event(hp, RDMA_CM_EVENT_ROUTE_RESOLVED, 5000, NULL, 0)) return -1;
  hp->pd = ibv_alloc_pd(hp->id->verbs);
  hp->cq = hp->pd ? ibv_create_cq(hp->id->verbs, HP_RECVS + HP_SENDS + 8, NULL, NULL, 0) : NULL;
  if (!hp->cq) { snprintf(failure, sizeof failure, "hostile peer: pd/cq: %s", strerror(errno)); return -1; }
  struct ibv_qp_init_attr qa = {.send_cq = hp->cq, .recv_cq = hp->cq, .qp_type = IBV_QPT_RC,
                                .cap = {.max_send_wr = HP_SENDS, .max_recv_wr = HP_RECVS,
                                        .max_send_sge = 1, .max_recv_sge = 1}};
  if (rdma_create_qp(hp->id, hp->pd, &qa) != 0) {
    snprintf(failure, sizeof failure, "hostile peer: qp: %s", strerror(errno));
    return -1;
  }
  size_t size = (size_t)(HP_RECVS + HP_SENDS) * HP_BUF;
  if (posix_memalign((void **)&hp->buf, 4096, size) != 0) { hp->buf = NULL; return -1; }
  memset(hp->buf, 0, size);
  hp->mr = ibv_reg_mr(hp->pd, hp->buf, size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  if (!hp->mr) { snprintf(failure, sizeof failure, "hostile peer: reg_mr: %s", strerror(errno)); return -1; }
  for (uint32_t i = 0; i < HP_RECVS; i++)
    if (hp_post_recv(hp, i) != 0) { snprintf(failure, sizeof failure, "hostile peer: post_recv"); return -1; }
  uint8_t pd0 = 0; /* no private data for the server's application */
  struct rdma_conn_param cp = {.private_data = &pd0, .private_data_len = 1,
                               .responder_resources = 1, .initiator_depth = 1,
                               .retry_count = 3, .rnr_retry_count = 3};
  if (rdma_connect(hp->id, &cp) != 0) {
    snprintf(failure, sizeof failure, "hostile peer: connect: %s", strerror(errno));
    return -1;
  }
  if (hp_event(hp, RDMA_CM_EVENT_ESTABLISHED, 10000, &hp->server, sizeof hp->server)) return -1;
  if (hp->server.magic != SR_WIRE_MAGIC) {
    snprintf(failure, sizeof failure, "hostile peer: accept without the server's parameters");
    return -1;
  }
  return 0;
}

/* Sends `len` bytes as one SEND and waits (bounded) for its completion: 0 when it completed,
 * 1 when it failed (the server's QP is in error or gone), -1 when it did not complete. */
int hp_send(hpeer *hp, const void *msg, uint32_t len) {
  uint32_t slot = HP_RECVS + hp->next_send++ % HP_SENDS;
  uint8_t *p = hp->buf + (size_t)slot * HP_BUF;
  if (len > HP_BUF) len = HP_BUF;
  memcpy(p, msg, len);
  struct ibv_sge sge = {.addr = (uintptr_t)p, .length = len, .lkey = hp->mr->lkey};
  struct ibv_send_wr wr = {.wr_id = slot, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                           .send_flags = IBV_SEND_SIGNALED}, *bad;
  if (ibv_post_send(hp->id->qp, &wr, &bad) != 0) return 1;
  return hp_poll(hp, 5000, slot);
}

int hp_write(hpeer *hp, const void *data, uint32_t len, uint64_t addr, uint32_t rkey) {
  enum { WRITE_WR_ID = 1000 }; /* neither a receive nor a send slot */
  uint8_t *p = hp->buf + (size_t)(HP_RECVS + HP_SENDS - 1) * HP_BUF;
  if (len > HP_BUF) len = HP_BUF;
  memcpy(p, data, len);
  struct ibv_sge sge = {.addr = (uintptr_t)p, .length = len, .lkey = hp->mr->lkey};
  struct ibv_send_wr wr = {.wr_id = WRITE_WR_ID, .sg_list = &sge, .num_sge = 1,
                           .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED}, *bad;
  wr.wr.rdma.remote_addr = addr;
  wr.wr.rdma.rkey = rkey;
  if (ibv_post_send(hp->id->qp, &wr, &bad) != 0) return 1;
  return hp_poll(hp, 5000, WRITE_WR_ID);
}

/* A header (and payload bytes after it) as the runtime lays it out. */
uint32_t hp_msg(uint8_t *out, uint8_t type, uint16_t credits, uint8_t acks,
                       uint32_t len_field, const void *payload, uint32_t payload_len) {
  sr_wire_hdr h = {.type = type, .rndv_acks = acks, .credits = credits, .len = len_field};
  memcpy(out, &h, sizeof h);
  if (payload_len) memcpy(out + sizeof h, payload, payload_len);
  return (uint32_t)sizeof h + payload_len;
}

sr_wire_params hp_params(hpeer *hp, uint32_t credits) {
  sr_wire_params p = {.magic = SR_WIRE_MAGIC, .credits = credits, .eager_size = HP_BUF - 16,
                      .rndv_size = HP_BUF - 16, .rndv_addr = (uintptr_t)hp->buf,
                      .rndv_rkey = hp->mr->rkey};
  return p;
}

int hp_hello(hpeer *hp, const sr_wire_params *p) {
  uint8_t m[64];
  uint32_t n = hp_msg(m, SR_MSG_HELLO, 0, 0, sizeof *p, p, sizeof *p);
  return hp_send(hp, m, n);
}

/* Waits (bounded) until the server disconnected, then answers it. 0 when it did. */
int hp_wait_disconnected(hpeer *hp, int ms) {
  if (!hp->disconnected && hp_event(hp, RDMA_CM_EVENT_DISCONNECTED, ms, NULL, 0)) return -1;
  rdma_disconnect(hp->id);
  return 0;
}

void hp_destroy(hpeer *hp) {
  if (hp->id) {
    if (!hp->disconnected) rdma_disconnect(hp->id);
    if (hp->id->qp) rdma_destroy_qp(hp->id);
  }
  if (hp->mr) ibv_dereg_mr(hp->mr);
  if (hp->cq) ibv_destroy_cq(hp->cq);
  if (hp->pd) ibv_dealloc_pd(hp->pd);
  if (hp->id) rdma_destroy_id(hp->id);
  if (hp->ch) rdma_destroy_event_channel(hp->ch);
  free(hp->buf);
  memset(hp, 0, sizeof *hp);
}

int hsrv_good_echo(hsrv *h) {
  uint8_t buf[300];
  fill_msg(buf, sizeof buf, h->seq);
  int rc = sr_ep_send(h->p.cep, buf, sizeof buf);
  if (rc) {
    snprintf(failure, sizeof failure, "the good client's send %u: %s", h->seq, sr_last_error());
    return 1;
  }
  h->seq++;
  if (!tep_wait_msgs(h->p.ct, h->seq, 10000)) {
    snprintf(failure, sizeof failure, "the good client got no echo of message %u", h->seq - 1);
    return 1;
  }
  if (h->p.ct->bad || h->p.st->bad) {
    snprintf(failure, sizeof failure, "the good client's messages corrupt or out of order");
    return 1;
  }
  return 0;
}

int hsrv_start(hsrv *h) {
  memset(h, 0, sizeof *h);
  sr_config c = small_config(); /* eager 1 KiB, 16 credits, max 1 MiB */
  c.max_message = 64u << 10;
  if (pair_open(&h->p, &c, MODE_ECHO, NULL)) return 1;
  if (hsrv_good_echo(h)) return 1;
  h->live = sr_live_objects();
  sr_ctx_stats s;
  sr_ctx_get_stats(h->p.server->ctx, &s);
  h->cq = s.cq_entries;
  h->violations = s.protocol_violations;
  return 0;
}

int hsrv_case(hsrv *h, const char *name, hp_lie lie, void *arg, const char *want,
                     int counted) {
  hpeer hp;
  tep *st = NULL;
  memset(&hp, 0, sizeof hp);
  int idx = h->p.server->naccepted;
  CHECK_SUB(hp_connect(&hp, &h->p.addr) == 0, name);
  st = node_wait_accepted(h->p.server, idx, 5000);
  CHECK(st != NULL, "%s: the server saw no connection", name);
  int lied = lie(&hp, arg);
  CHECK_SUB(lied == 0, name);
  if (hp_wait_disconnected(&hp, 15000) != 0) {
    /* both sides' view, so that a failure says which side stopped */
    char cause[sizeof st->cause];
    pthread_mutex_lock(&st->m);
    int closed = st->closed;
    snprintf(cause, sizeof cause, "%s", st->cause);
    pthread_mutex_unlock(&st->m);
    sr_ep_stats es;
    sr_ep_get_stats(st->ep, &es);
    CHECK(0, "%s: no disconnect within 15 s (peer: %d messages received, QP %s, %u sends; "
          "server endpoint: on_close %d \"%s\", %llu messages received, %llu sent, %llu "
          "RDMA writes, %llu credit waits)", name, hp.recvs, hp.qp_failed ? "failed" : "fine",
          hp.next_send, closed, cause, (unsigned long long)es.msgs_received,
          (unsigned long long)es.msgs_sent, (unsigned long long)es.rdma_writes,
          (unsigned long long)es.credit_waits);
  }
  CHECK(tep_wait(st, &st->closed, 1, 5000), "%s: no on_close on the server", name);
  if (want) CHECK(strstr(st->cause, want) != NULL, "%s: close cause: %s", name, st->cause);
  CHECK(st->close_code == SR_EIO, "%s: close code %d (%s)", name, st->close_code, st->cause);
  CHECK_SUB(hsrv_good_echo(h) == 0, name);
  usleep(20000);
  CHECK(st->closed == 1, "%s: on_close delivered %d times", name, st->closed);
  sr_ctx_stats s;
  sr_ctx_get_stats(h->p.server->ctx, &s);
  if (counted)
    CHECK(s.protocol_violations == h->violations + 1, "%s: %llu violations counted, not 1", name,
          (unsigned long long)(s.protocol_violations - h->violations));
  h->violations = s.protocol_violations;
  sr_ep_stats es;
  sr_ep_get_stats(st->ep, &es);
  printf("  (%s: \"%s\"; the server sent it %llu messages, %llu credit messages)\n", name,
         st->cause, (unsigned long long)es.msgs_sent, (unsigned long long)es.credit_msgs);
  hp_destroy(&hp);
  /* memory stays bounded: the hostile endpoint, released, is freed with its CQ entries */
  pthread_mutex_lock(&h->p.server->m);
  sr_ep *ep = st->ep;
  st->ep = NULL;
  pthread_mutex_unlock(&h->p.server->m);
  sr_ep_release(ep);
  uint64_t end = tl_now_ns() + 10000000000ull;
  while ((sr_live_objects() != h->live || s.cq_entries != h->cq) && tl_now_ns() < end) {
    usleep(2000);
    sr_ctx_get_stats(h->p.server->ctx, &s);
  }
  CHECK(sr_live_objects() == h->live, "%s: %ld runtime objects more than before",
        name, sr_live_objects() - h->live);
  CHECK(s.cq_entries == h->cq, "%s: %llu CQ entries reserved, %llu before", name,
        (unsigned long long)s.cq_entries, (unsigned long long)h->cq);
  h->cases++;
  return 0;
fail:
  hp_destroy(&hp);
  return 1;
}

void hsrv_stop(hsrv *h) { pair_close(&h->p); }
