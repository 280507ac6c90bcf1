/*
 * The data path (device tests): eager and rendezvous messages echoed, sends from callbacks,
 * credits withheld and send timeouts, a slow receiver.
 */
#include "sr_test_harness.h"

/* Sends `count` messages of sizes from `sizes`, `window` outstanding, each echoed back. */
static int echo_run(pair *p, const uint32_t *sizes, int nsizes, int count, int window) {
  uint8_t *buf = malloc(8u << 20);
  for (int i = 0; i < count; i++) {
    while ((int)(i - (int)p->ct->msgs) >= window)
      if (!tep_wait_msgs(p->ct, p->ct->msgs + 1, 10000)) {
        snprintf(failure, sizeof failure, "echo %d never came back", (int)p->ct->msgs);
        free(buf);
        return 1;
      }
    uint32_t len = sizes[i % nsizes];
    fill_msg(buf, len, (uint32_t)i);
    int rc = sr_ep_send(p->cep, buf, len);
    if (rc) {
      snprintf(failure, sizeof failure, "send %d (%u B): %s", i, len, sr_last_error());
      free(buf);
      return 1;
    }
  }
  free(buf);
  if (!tep_wait_msgs(p->ct, (uint64_t)count, 20000)) {
    snprintf(failure, sizeof failure, "%llu of %d echoes", (unsigned long long)p->ct->msgs,
             count);
    return 1;
  }
  return 0;
}

int t_send_recv_echo(void) {
  pair p;
  sr_config c = small_config();
  if (pair_open(&p, &c, MODE_ECHO, NULL)) goto fail;
  static const uint32_t sizes[] = {4, 64, 1000, 1024, 17, 512};
  if (echo_run(&p, sizes, 6, 2000, 4)) goto fail;
  CHECK(p.ct->bad == 0, "%d echoes out of order or corrupt", p.ct->bad);
  CHECK(p.st->bad == 0, "%d requests out of order or corrupt", p.st->bad);
  CHECK(p.st->echo_failures == 0, "%d echo sends failed", p.st->echo_failures);
  sr_ep_stats s;
  sr_ep_get_stats(p.cep, &s);
  CHECK(s.msgs_sent == 2000 && s.msgs_received == 2000, "stats %llu/%llu",
        (unsigned long long)s.msgs_sent, (unsigned long long)s.msgs_received);
  CHECK(s.rdma_writes == 0, "eager messages went by RDMA WRITE");
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

int t_rdma_write_path(void) {
  pair p;
  sr_config c = small_config(); /* eager 1 KiB, max 1 MiB */
  if (pair_open(&p, &c, MODE_ECHO, NULL)) goto fail;
  static const uint32_t sizes[] = {1025, 65536, 100, 1u << 20, 300000, 8};
  if (echo_run(&p, sizes, 6, 60, 3)) goto fail;
  CHECK(p.ct->bad == 0 && p.st->bad == 0, "%d/%d large messages corrupt or out of order",
        p.ct->bad, p.st->bad);
  sr_ep_stats s;
  sr_ep_get_stats(p.cep, &s);
  CHECK(s.rdma_writes == 40, "%llu RDMA writes for 40 large messages",
        (unsigned long long)s.rdma_writes);
  uint8_t *big = calloc(1, (1u << 20) + 1);
  int rc = sr_ep_send(p.cep, big, (1u << 20) + 1);
  free(big);
  CHECK(rc == SR_EMSGSIZE && strstr(sr_last_error(), "exceeds the maximum"), "rc %d: %s", rc,
        sr_last_error());
  CHECK(sr_ep_is_open(p.cep), "a refused message closed the endpoint");
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

int t_callback_sends_queue(void) {
  /* the echo server sends from its callback; with 4 credits and no window it runs out of credits
   * and must queue, never fail, never reorder */
  pair p;
  sr_config c = small_config();
  c.credits = 4;
  if (pair_open(&p, &c, MODE_ECHO, NULL)) goto fail;
  static const uint32_t sizes[] = {64, 2000, 8, 1024, 70000};
  if (echo_run(&p, sizes, 5, 300, 300)) goto fail;
  CHECK(p.ct->bad == 0 && p.st->bad == 0, "%d/%d messages corrupt or out of order", p.ct->bad,
        p.st->bad);
  CHECK(p.st->echo_failures == 0, "%d echo sends failed", p.st->echo_failures);
  sr_ep_stats s;
  sr_ep_get_stats(p.st->ep, &s);
  printf("  (server queued %llu of 300 echoes for lack of credits)\n",
         (unsigned long long)s.credit_waits);
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

/* A client that stops returning credits (its progress thread stuck in a callback: a GC pause, a
 * blocking callback) must not hold the server's sending thread: the send fails with SR_ETIMEDOUT
 * after send_timeout_ms, that endpoint closes with the cause, and the server serves a new peer. */
int t_send_timeout_withheld_credits(void) {
  pair p;
  tnode *c2 = NULL;
  tep *t2 = NULL;
  sr_ep *e2 = NULL;
  sr_config c = small_config();
  c.credits = 4;
  c.send_timeout_ms = 300;
  if (pair_open(&p, &c, MODE_COLLECT, NULL)) goto fail;
  p.ct->sleep_us = 2000000; /* the client's callback holds its progress thread for 2 s */
  uint8_t buf[200];
  int rc = 0;
  uint32_t sent = 0;
  uint64_t t0 = tl_now_ns(), t_block = 0;
  for (; sent < 10; sent++) {
    fill_msg(buf, sizeof buf, sent);
    t_block = tl_now_ns();
    rc = sr_ep_send(p.st->ep, buf, sizeof buf);
    if (rc) break;
  }
  double waited_ms = (double)(tl_now_ns() - t_block) / 1e6;
  CHECK(rc == SR_ETIMEDOUT, "send %u to a peer returning no credit gave %d (%s)", sent, rc,
        sr_last_error());
  CHECK(strstr(sr_last_error(), "strata.rdma.send.timeout.ms"), "message: %s", sr_last_error());
  CHECK(waited_ms >= 250 && waited_ms < 1500, "the send waited %.0f ms, not ~300", waited_ms);
  CHECK(tep_wait(p.st, &p.st->closed, 1, 5000), "the server's endpoint did not close");
  CHECK(strstr(p.st->cause, "no credit"), "close cause: %s", p.st->cause);
  CHECK(sr_ep_send(p.st->ep, buf, sizeof buf) == SR_ECLOSED, "send after the timeout");
  /* the server keeps serving others: a second client of its own (the first one's progress
   * thread is still held by its callback) */
  c2 = node_start(&c, 0, &rc);
  CHECK(c2 != NULL, "second client ctx: %d %s", rc, sr_last_error());
  t2 = tep_new(c2, MODE_COLLECT);
  rc = sr_connect(c2->ctx, (struct sockaddr *)&p.addr, NULL, 0, 5000, t2, &e2);
  CHECK(rc == 0, "a second client cannot connect: %d %s", rc, sr_last_error());
  t2->ep = e2;
  tep *s2 = node_wait_accepted(p.server, 1, 5000);
  CHECK(s2 != NULL, "server saw no second connection");
  fill_msg(buf, sizeof buf, 0);
  CHECK(sr_ep_send(s2->ep, buf, sizeof buf) == 0, "send to the second client: %s",
        sr_last_error());
  CHECK(tep_wait_msgs(t2, 1, 10000), "second client got nothing");
  printf("  (%u sends went out, the next failed after %.0f ms; %.0f ms in all)\n", sent,
         waited_ms, (double)(tl_now_ns() - t0) / 1e6);
  sr_ep_close(e2);
  tep_wait(t2, &t2->closed, 1, 5000);
  sr_ep_release(e2);
  node_stop(c2);
  tep_free(t2);
  pair_close(&p);
  return 0;
fail:
  if (e2) { sr_ep_close(e2); tep_wait(t2, &t2->closed, 1, 5000); sr_ep_release(e2); }
  if (c2) node_stop(c2);
  tep_free(t2);
  pair_close(&p);
  return 1;
}

/* Sends from a callback never wait, they queue; a peer whose credits do not come back closes
 * its endpoint once the queue would pass max_message + credits x eager bytes, instead of the
 * queue growing without bound (20,000 x 64 KiB would be 1.25 GiB). */
static void flood_hook(tep *t, const void *data, uint32_t len) {
  static uint8_t big[64 << 10];
  for (int i = 0; i < 20000; i++) {
    int rc = sr_ep_send(t->ep, big, sizeof big);
    if (rc) {
      pthread_mutex_lock(&t->m);
      t->echo_failures = i + 1; /* the failing send's number */
      snprintf(t->cause, sizeof t->cause, "%d %s", rc, sr_last_error());
      pthread_mutex_unlock(&t->m);
      break;
    }
  }
  pthread_mutex_lock(&t->m);
  t->msgs++;
  pthread_cond_broadcast(&t->c);
  pthread_mutex_unlock(&t->m);
}

int t_callback_queue_bounded(void) {
  pair p;
  sr_config c = small_config(); /* 16 credits, 1 KiB eager, 1 MiB messages */
  if (pair_open(&p, &c, MODE_COLLECT, NULL)) goto fail;
  p.st->hook = flood_hook;
  uint8_t buf[16];
  fill_msg(buf, sizeof buf, 0);
  CHECK(sr_ep_send(p.cep, buf, sizeof buf) == 0, "send: %s", sr_last_error());
  CHECK(tep_wait_msgs(p.st, 1, 10000), "the flood callback did not run");
  int failed_at = p.st->echo_failures;
  CHECK(failed_at > 0 && failed_at <= 40, "the queue took %d 64 KiB messages (%s)", failed_at,
        p.st->cause);
  CHECK(strstr(p.st->cause, "queued"), "failure: %s", p.st->cause);
  CHECK(tep_wait(p.ct, &p.ct->closed, 1, 5000), "the flooded peer's endpoint stayed open");
  printf("  (send %d from the callback closed the endpoint: %s)\n", failed_at, p.st->cause);
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}

int t_flow_control_slow_receiver(void) {
  pair p;
  sr_config c = small_config();
  c.credits = 8;
  if (pair_listen(&p, &c)) goto fail;
  p.server->accept_sleep_us = 2000; /* 2 ms per message on the receiver */
  if (pair_connect(&p, NULL)) goto fail;
  uint8_t buf[3000];
  uint64_t t0 = tl_now_ns();
  for (uint32_t i = 0; i < 200; i++) {
    uint32_t len = i % 5 == 4 ? 3000 : 200; /* some through the RDMA WRITE path */
    fill_msg(buf, len, i);
    CHECK(sr_ep_send(p.cep, buf, len) == 0, "send %u: %s", i, sr_last_error());
  }
  double send_ms = (double)(tl_now_ns() - t0) / 1e6;
  CHECK(tep_wait_msgs(p.st, 200, 20000), "received %llu of 200",
        (unsigned long long)p.st->msgs);
  CHECK(p.st->bad == 0, "%d messages out of order or corrupt", p.st->bad);
  sr_ep_stats cs, ss2;
  sr_ep_get_stats(p.cep, &cs);
  sr_ep_get_stats(p.st->ep, &ss2);
  CHECK(cs.credit_waits > 0, "the sender never waited for credits");
  CHECK(ss2.credit_msgs > 0, "the receiver returned no credits by credit message");
  CHECK(send_ms > 200 * 2 * 0.5, "200 sends to a 2 ms/message receiver took only %.1f ms",
        send_ms);
  printf("  (sender waited %llu times; receiver sent %llu credit messages; %.0f ms)\n",
         (unsigned long long)cs.credit_waits, (unsigned long long)ss2.credit_msgs, send_ms);
  pair_close(&p);
  return 0;
fail:
  pair_close(&p);
  return 1;
}
