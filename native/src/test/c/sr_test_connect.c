/*
 * The connection manager (device tests): connect with private data and close, reject and no
 * listener, a peer process killed, closing under load, and the cost of setting up an endpoint.
 */
#include "sr_test_harness.h"

int t_connect_private_data(void) {
  pair p;
  long before = sr_live_objects();
  const char *pd = "strata-hello-0123456789-0123456789-0123456789-01234567"; /* 54 bytes */
  if (pair_open(&p, NULL, MODE_COLLECT, pd)) goto fail;
  CHECK(p.server->last_pdata_len == strlen(pd), "pdata length %u", p.server->last_pdata_len);
  CHECK(memcmp(p.server->last_pdata, pd, strlen(pd)) == 0, "pdata differs");
  CHECK(tep_wait(p.st, &p.st->established, 1, 5000), "server never established");
  CHECK(sr_ep_is_open(p.cep), "client endpoint not open");
  struct sockaddr_storage peer;
  CHECK(sr_ep_peer_addr(p.cep, &peer) == 0, "no peer address");
  CHECK(((struct sockaddr_in *)&peer)->sin_port == p.addr.sin_port, "peer port differs");
  /* too much private data is refused before anything is sent */
  char big[60];
  memset(big, 'x', sizeof big);
  sr_ep *e2 = NULL;
  int rc = sr_connect(p.client->ctx, (struct sockaddr *)&p.addr, big, 56, 1000, p.ct, &e2);
  CHECK(rc == SR_EINVAL && strstr(sr_last_error(), "at most 55"), "rc %d: %s", rc,
        sr_last_error());
  /* local close: the client is told with no cause, the server with one */
  sr_ep_close(p.cep);
  sr_ep_close(p.cep); /* twice is fine */
  CHECK(tep_wait(p.ct, &p.ct->closed, 1, 5000), "client on_close missing");
  CHECK(p.ct->cause[0] == 0, "local close has a cause: %s", p.ct->cause);
  CHECK(tep_wait(p.st, &p.st->closed, 1, 5000), "server on_close missing");
  CHECK(strstr(p.st->cause, "disconnected") != NULL, "server cause: %s", p.st->cause);
  rc = sr_ep_send(p.cep, "x", 1);
  CHECK(rc == SR_ECLOSED, "send after close gave %d", rc);
  usleep(100000);
  CHECK(p.ct->closed == 1 && p.st->closed == 1, "on_close called %d/%d times", p.ct->closed,
        p.st->closed);
  pair_close(&p);
  CHECK(sr_live_objects() == before, "leaked %ld objects", sr_live_objects() - before);
  return 0;
fail:
  return 1;
}

int t_reject_and_no_listener(void) {
  pair p;
  int rc;
  if (pair_listen(&p, NULL)) goto fail;
  p.server->reject = 1;
  sr_ep *ep = NULL;
  rc = sr_connect(p.client->ctx, (struct sockaddr *)&p.addr, "no", 2, 5000, (void *)1, &ep);
  CHECK(rc == SR_EREJECTED, "rejected connect gave %d: %s", rc, sr_last_error());
  CHECK(strstr(sr_last_error(), "rejected") != NULL, "message: %s", sr_last_error());
  sr_listener_close(p.lst);
  p.lst = NULL;
  usleep(50000);
  rc = sr_connect(p.client->ctx, (struct sockaddr *)&p.addr, NULL, 0, 5000, (void *)1, &ep);
  CHECK(rc == SR_EREJECTED || rc == SR_EUNREACHABLE, "connect to a closed port gave %d: %s", rc,
        sr_last_error());
  char port[16];
  snprintf(port, sizeof port, ":%d", ntohs(p.addr.sin_port));
  CHECK(strstr(sr_last_error(), port) != NULL, "message does not name the peer: %s",
        sr_last_error());
  printf("  (no listener: \"%s\")\n", sr_last_error());
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

int t_peer_death(void) {
  pair p;
  int rc;
  memset(&p, 0, sizeof p);
  FILE *cout = NULL;
  pid_t child = -1;
  /* 1. the connecting peer dies: the accepting side is told, with a cause */
  if (pair_listen(&p, NULL)) goto fail;
  char host[32], port[16];
  inet_ntop(AF_INET, &rdma_addr.sin_addr, host, sizeof host);
  snprintf(port, sizeof port, "%d", ntohs(p.addr.sin_port));
  char *argv1[] = {(char *)self_exe, "--child-connect", host, port, NULL};
  child = spawn_child(argv1, &cout);
  CHECK(child > 0, "fork");
  p.st = node_wait_accepted(p.server, 0, 10000);
  CHECK(p.st, "child never connected");
  CHECK(tep_wait_msgs(p.st, 1, 10000), "child's message never arrived");
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  child = -1;
  fclose(cout);
  cout = NULL;
  uint64_t t0 = tl_now_ns();
  CHECK(tep_wait(p.st, &p.st->closed, 1, 30000), "no on_close 30 s after the peer died");
  printf("  (accepting side told %.0f ms after the peer was killed: \"%s\")\n",
         (double)(tl_now_ns() - t0) / 1e6, p.st->cause);
  CHECK(p.st->cause[0] != 0, "no cause");
  rc = sr_ep_send(p.st->ep, "late", 4);
  CHECK(rc == SR_ECLOSED, "send to a dead peer gave %d", rc);
  CHECK(strstr(sr_last_error(), "closed") != NULL, "message: %s", sr_last_error());

  /* 2. the accepting peer dies: the connected side is told, and sends fail cleanly */
  char *argv2[] = {(char *)self_exe, "--child-listen", host, NULL};
  child = spawn_child(argv2, &cout);
  CHECK(child > 0, "fork");
  int cport = 0;
  CHECK(fscanf(cout, "%d", &cport) == 1 && cport > 0, "child did not print its port");
  struct sockaddr_in ca = rdma_addr;
  ca.sin_port = htons((uint16_t)cport);
  p.ct = tep_new(p.client, MODE_COLLECT);
  rc = sr_connect(p.client->ctx, (struct sockaddr *)&ca, NULL, 0, 10000, p.ct, &p.cep);
  CHECK(rc == 0, "connect to the child: %s", sr_last_error());
  CHECK(sr_ep_send(p.cep, "ping", 4) == 0, "send: %s", sr_last_error());
  usleep(100000);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  child = -1;
  t0 = tl_now_ns();
  CHECK(tep_wait(p.ct, &p.ct->closed, 1, 30000), "no on_close 30 s after the peer died");
  printf("  (connecting side told %.0f ms after the peer was killed: \"%s\")\n",
         (double)(tl_now_ns() - t0) / 1e6, p.ct->cause);
  rc = sr_ep_send(p.cep, "late", 4);
  CHECK(rc == SR_ECLOSED, "send to a dead peer gave %d", rc);
  pair_close(&p);
  if (cout) fclose(cout);
  return 0;
fail:
  if (child > 0) {
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
  }
  if (cout) fclose(cout);
  pair_close(&p);
  return 1;
}

int child_connect(const char *host, const char *port) {
  int rc;
  tnode *n = node_start(NULL, 0, &rc);
  if (!n) return 2;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
  inet_pton(AF_INET, host, &a.sin_addr);
  tep *t = tep_new(n, MODE_COLLECT);
  sr_ep *ep;
  if (sr_connect(n->ctx, (struct sockaddr *)&a, NULL, 0, 10000, t, &ep) != 0) {
    fprintf(stderr, "child connect: %s\n", sr_last_error());
    return 3;
  }
  uint8_t msg[64];
  fill_msg(msg, sizeof msg, 0);
  sr_ep_send(ep, msg, sizeof msg);
  for (;;) pause(); /* killed by the parent */
}

int child_listen(const char *host) {
  int rc;
  tnode *n = node_start(NULL, 0, &rc);
  if (!n) return 2;
  struct sockaddr_in a = {.sin_family = AF_INET};
  inet_pton(AF_INET, host, &a.sin_addr);
  sr_listener *l;
  if (node_listen(n, &a, &l) != 0) return 3;
  printf("%d\n", ntohs(a.sin_port));
  fflush(stdout);
  for (;;) pause();
}

struct sender {
  sr_ep *ep;
  volatile int sent;
  int failed_at, rc;
};

static void *sender_thread(void *arg) {
  struct sender *sd = arg;
  uint8_t buf[64];
  memset(buf, 0, sizeof buf);
  for (int i = 0; i < 50; i++) {
    int rc = sr_ep_send(sd->ep, buf, sizeof buf);
    if (rc) {
      sd->failed_at = i;
      sd->rc = rc;
      break;
    }
    sd->sent = i + 1;
  }
  return NULL;
}

int t_close_under_load(void) {
  /* closing while another thread is blocked sending (no credits) wakes it with an error */
  pair p;
  sr_config c = small_config();
  c.credits = 4;
  if (pair_listen(&p, &c)) goto fail;
  p.server->accept_sleep_us = 300000; /* very slow receiver */
  if (pair_connect(&p, NULL)) goto fail;
  struct sender sd = {.ep = p.cep, .failed_at = -1};
  pthread_t th;
  pthread_create(&th, NULL, sender_thread, &sd);
  usleep(300000); /* the sender is blocked on credits by now */
  int blocked_at = sd.sent;
  uint64_t t0 = tl_now_ns();
  sr_ep_close(p.cep);
  pthread_join(th, NULL);
  double ms = (double)(tl_now_ns() - t0) / 1e6;
  CHECK(blocked_at < 50, "the sender never blocked (%d sent)", blocked_at);
  CHECK(sd.failed_at >= 0 && sd.rc == SR_ECLOSED, "blocked send ended with %d at %d", sd.rc,
        sd.failed_at);
  CHECK(ms < 2000, "the blocked sender took %.0f ms to notice the close", ms);
  CHECK(tep_wait(p.ct, &p.ct->closed, 1, 5000), "no on_close");
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* What setting up an endpoint costs: N connects one after another (each sr_connect until it
 * returns open: address and route resolution, both sides' protection domain, registrations and
 * queue pair, the connection manager's handshake), each closed before the next, and the
 * protection domain alone (ibv_alloc_pd + ibv_dealloc_pd on the device). Every connect must
 * succeed and every endpoint be freed; the figures are printed for docs/testing.md. */
int t_connect_setup_cost(void) {
  enum { N = 20, PDS = 200 };
  pair p;
  uint64_t ns[N];
  struct ibv_device **list = NULL;
  struct ibv_context *dc = NULL;
  long before = sr_live_objects();
  sr_config c = small_config();
  if (pair_listen(&p, &c)) goto fail;
  for (int i = 0; i < N; i++) {
    tep *t = tep_new(p.client, MODE_COLLECT);
    sr_ep *ep;
    uint64_t t0 = tl_now_ns();
    int rc = sr_connect(p.client->ctx, (struct sockaddr *)&p.addr, NULL, 0, 5000, t, &ep);
    ns[i] = tl_now_ns() - t0;
    if (rc) {
      tep_free(t);
      CHECK(0, "connect %d: %d %s", i, rc, sr_last_error());
    }
    t->ep = ep;
    tep *st = node_wait_accepted(p.server, i, 5000);
    int ok = st && tep_wait(st, &st->established, 1, 5000);
    sr_ep_close(ep);
    int closed = tep_wait(t, &t->closed, 1, 5000);
    sr_ep_release(ep);
    /* on_released (the teardown, after the peer's answer) may come after the release: t is
     * the callback's user pointer and must outlive it. Not released: t is left allocated. */
    int released = closed && tep_wait(t, &t->released, 1, 10000);
    if (released) tep_free(t);
    CHECK(ok, "connect %d: the server's endpoint never opened", i);
    CHECK(closed, "connect %d: no on_close after sr_ep_close", i);
    CHECK(released, "connect %d: no on_released within 10 s of on_close", i);
  }
  qsort(ns, N, sizeof ns[0], cmp_u64);
  uint64_t sum = 0;
  for (int i = 0; i < N; i++) sum += ns[i];
  /* the protection domain alone, on the device the connections used */
  int num = 0;
  list = ibv_get_device_list(&num);
  CHECK(list && num > 0, "ibv_get_device_list: %s", strerror(errno));
  dc = ibv_open_device(list[0]);
  CHECK(dc != NULL, "ibv_open_device %s: %s", ibv_get_device_name(list[0]), strerror(errno));
  uint64_t t0 = tl_now_ns();
  for (int i = 0; i < PDS; i++) {
    struct ibv_pd *pd = ibv_alloc_pd(dc);
    CHECK(pd != NULL, "ibv_alloc_pd: %s", strerror(errno));
    ibv_dealloc_pd(pd);
  }
  double pd_us = (double)(tl_now_ns() - t0) / PDS / 1e3;
  printf("  (%d connects: median %.0f us, mean %.0f us, min %.0f us, max %.0f us per endpoint "
         "set up; ibv_alloc_pd + ibv_dealloc_pd on %s: %.1f us)\n", N,
         (double)ns[N / 2] / 1e3, (double)sum / N / 1e3, (double)ns[0] / 1e3,
         (double)ns[N - 1] / 1e3, ibv_get_device_name(list[0]), pd_us);
  ibv_close_device(dc);
  dc = NULL;
  ibv_free_device_list(list);
  list = NULL;
  p.cep = NULL;
  pair_close(&p);
  CHECK(sr_live_objects() == before, "%ld runtime objects left", sr_live_objects() - before);
  return 0;
fail:
  if (dc) ibv_close_device(dc);
  if (list) ibv_free_device_list(list);
  pair_close(&p);
  return 1;
}
