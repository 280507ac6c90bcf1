/*
 * Hostile peers (device tests): clients speaking the wire format by hand over verbs that lie
 * in their HELLO or credits, go quiet, fail to be accepted for the locked-memory limit, or RDMA
 * WRITE into another endpoint's memory; the server closes them and keeps serving the others.
 */
#include "sr_test_harness.h"

#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>

/* a) bogus HELLO values over the wire, a HELLO of the wrong size, data before HELLO */
static int lie_hello(hpeer *hp, void *arg) {
  const sr_wire_params *bad = arg;
  sr_wire_params p = hp_params(hp, 16);
  p.magic = bad->magic;
  p.credits = bad->credits;
  if (bad->eager_size) p.eager_size = bad->eager_size;
  if (bad->rndv_size) p.rndv_size = bad->rndv_size;
  if (bad->eager_size == 1) p.eager_size = 0;
  hp_hello(hp, &p);
  return 0;
}

static int lie_hello_short(hpeer *hp, void *arg) {
  (void)arg;
  sr_wire_params p = hp_params(hp, 16);
  uint8_t m[64];
  uint32_t n = hp_msg(m, SR_MSG_HELLO, 0, 0, sizeof p - 8, &p, sizeof p - 8);
  hp_send(hp, m, n);
  return 0;
}

static int lie_data_first(hpeer *hp, void *arg) {
  (void)arg;
  uint8_t m[64];
  uint32_t n = hp_msg(m, SR_MSG_DATA, 0, 0, 8, "12345678", 8);
  hp_send(hp, m, n);
  return 0;
}

int t_hostile_hello(void) {
  hsrv h;
  if (hsrv_start(&h)) goto fail;
  static const struct {
    const char *name;
    sr_wire_params p; /* magic, credits; eager and region when not 0 (eager 1: 0) */
    const char *want;
  } bad[] = {
      {"credits 1", {SR_WIRE_MAGIC, 1, 0, 0, 0, 0, 0}, "credits"},
      {"credits 0", {SR_WIRE_MAGIC, 0, 0, 0, 0, 0, 0}, "credits"},
      {"credits 2^32-1", {SR_WIRE_MAGIC, 0xffffffffu, 0, 0, 0, 0, 0}, "credits"},
      {"wrong magic", {0x12345678u, 16, 0, 0, 0, 0, 0}, "another protocol"},
      {"eager 0", {SR_WIRE_MAGIC, 16, 1, 0, 0, 0, 0}, "eager size"},
      {"eager 2^32-1", {SR_WIRE_MAGIC, 16, 0xffffffffu, 0xffffffffu, 0, 0, 0}, "eager size"},
      {"region above 1 GiB", {SR_WIRE_MAGIC, 16, 1024, 0x80000000u, 0, 0, 0}, "rendezvous"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (hsrv_case(&h, bad[i].name, lie_hello, (void *)&bad[i].p, bad[i].want, 1)) goto fail;
  if (hsrv_case(&h, "HELLO of 32 bytes", lie_hello_short, NULL, "HELLO of", 1)) goto fail;
  if (hsrv_case(&h, "data before HELLO", lie_data_first, NULL, "before HELLO", 1)) goto fail;
  printf("  (%d hostile peers closed, the good client echoed %u messages)\n", h.cases, h.seq);
  hsrv_stop(&h);
  return 0;
fail:
  hsrv_stop(&h);
  return 1;
}


/* c) inflated credit returns and rendezvous acknowledgements. The runtime closes the endpoint
 * rather than ignore the excess: a peer can only return credits it was given, so a return above
 * them is a peer that lost count or lies, and trusting it would have the server send past the
 * receives the peer posted (receiver-not-ready retries that stall the QP, rnr_retry 7 being
 * unlimited) or RDMA WRITE into a rendezvous region the peer is still reading. Ignoring it would
 * leave both sides' counts disagreeing for the rest of the connection. */
typedef struct inflate {
  int withhold;     /* data messages sent first, no credit returned */
  uint16_t credits; /* then a credit message returning this many */
  uint8_t acks;     /* and this many rendezvous acknowledgements */
  int max_recvs;    /* the server may have sent at most this many messages */
} inflate;

static int lie_inflate(hpeer *hp, void *arg) {
  inflate *f = arg;
  sr_wire_params p = hp_params(hp, 4); /* 4 credits granted, HP_RECVS receives posted */
  if (hp_hello(hp, &p) != 0) { snprintf(failure, sizeof failure, "HELLO not delivered"); return -1; }
  uint8_t m[256], payload[64];
  for (int i = 0; i < f->withhold; i++) {
    fill_msg(payload, sizeof payload, (uint32_t)i);
    uint32_t n = hp_msg(m, SR_MSG_DATA, 0, 0, sizeof payload, payload, sizeof payload);
    if (hp_send(hp, m, n) != 0) { snprintf(failure, sizeof failure, "data %d not delivered", i); return -1; }
  }
  hp_poll(hp, f->withhold ? 1000 : 0, ~0ull); /* echoes the server could send */
  if (hp->recvs > f->max_recvs || hp->disconnected) {
    snprintf(failure, sizeof failure,
             "the server sent %d messages on %d credits (disconnected %d) before the lie",
             hp->recvs, f->max_recvs, hp->disconnected);
    return -1;
  }
  f->max_recvs = hp->recvs; /* report what was received */
  uint32_t n = hp_msg(m, SR_MSG_CREDIT, f->credits, f->acks, 0, NULL, 0);
  hp_send(hp, m, n);
  return 0;
}

int t_hostile_credits(void) {
  hsrv h;
  if (hsrv_start(&h)) goto fail;
  struct {
    const char *name;
    inflate f;
    const char *want;
  } cases[] = {
      {"8 messages withheld, then 5 credits of 4 returned", {8, 5, 0, 4}, "returned 5 credits"},
      {"65535 credits returned at once", {0, 0xffff, 0, 0}, "returned 65535 credits"},
      {"a rendezvous acknowledged that never was", {0, 0, 1, 0}, "acknowledged 1 rendezvous"},
      {"255 rendezvous acknowledged", {2, 0, 255, 4}, "acknowledged 255 rendezvous"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (hsrv_case(&h, cases[i].name, lie_inflate, &cases[i].f, cases[i].want, 1)) goto fail;
    if (cases[i].f.withhold)
      printf("  (%d data messages on 4 credits: the server sent %d messages before the lie)\n",
             cases[i].f.withhold, cases[i].f.max_recvs);
  }
  hsrv_stop(&h);
  return 0;
fail:
  hsrv_stop(&h);
  return 1;
}

/* c2) a peer that stops returning credits and then goes quiet: the echoes the server's callback
 * queued for it wait at most send_timeout_ms, then its endpoint closes. The queue's age used to be
 * looked at only when another message was queued, so a peer that sent nothing more held its
 * endpoint and the queued bytes for as long as it stayed connected. */
int t_hostile_quiet_after_queue(void) {
  pair p;
  hpeer hp;
  memset(&hp, 0, sizeof hp);
  sr_config c = small_config();
  c.send_timeout_ms = 400;
  if (pair_open(&p, &c, MODE_ECHO, NULL)) return 1;
  int idx = p.server->naccepted;
  CHECK_SUB(hp_connect(&hp, &p.addr) == 0, "quiet peer");
  tep *st = node_wait_accepted(p.server, idx, 5000);
  CHECK(st != NULL, "the server saw no connection");
  sr_wire_params w = hp_params(&hp, 4); /* 4 credits granted (the least allowed), none returned */
  CHECK(hp_hello(&hp, &w) == 0, "HELLO not delivered");
  uint8_t m[256], payload[64];
  for (int i = 0; i < 6; i++) {
    fill_msg(payload, sizeof payload, (uint32_t)i);
    uint32_t n = hp_msg(m, SR_MSG_DATA, 0, 0, sizeof payload, payload, sizeof payload);
    CHECK(hp_send(&hp, m, n) == 0, "data %d not delivered", i);
  }
  uint64_t t0 = tl_now_ns();
  CHECK(hp_wait_disconnected(&hp, 10000) == 0,
        "the server kept the endpoint of a quiet peer owing credits for 10 s (%d messages "
        "received)", hp.recvs);
  double ms = (double)(tl_now_ns() - t0) / 1e6;
  CHECK(tep_wait(st, &st->closed, 1, 5000), "no on_close on the server");
  CHECK(st->close_code == SR_ETIMEDOUT, "close code %d (%s)", st->close_code, st->cause);
  CHECK(strstr(st->cause, "no credit") != NULL, "close cause: %s", st->cause);
  CHECK(ms < 3000, "closed %.0f ms after the peer went quiet, send timeout 400 ms", ms);
  printf("  (the server sent %d of 6 echoes, closed %.0f ms after the peer went quiet: \"%s\")\n",
         hp.recvs, ms, st->cause);
  hp_destroy(&hp);
  pthread_mutex_lock(&p.server->m);
  sr_ep *ep = st->ep;
  st->ep = NULL;
  pthread_mutex_unlock(&p.server->m);
  sr_ep_release(ep);
  pair_close(&p);
  return 0;
fail:
  hp_destroy(&hp);
  pair_close(&p);
  return 1;
}

/* d) accepts that fail for the locked-memory limit give back what they reserved: the CQ entries
 * (ep_teardown returned them only once the QP was created: every failed accept leaked R + S + 2
 * of them until the CQ could not grow and no endpoint could connect). The server is a helper
 * process (--child-memlock-server) that lowers its own RLIMIT_MEMLOCK to 0 once it listens and
 * restores it after `attempts` failed accepts, reporting its CQ entries. The tests run as root in
 * the guest, where CAP_IPC_LOCK overrides the limit: the helper drops it from its effective set
 * before any rdma_cm or verbs call (a process, not a thread: rdma_cm and uverbs take calls only
 * from the credentials that opened their files, and librdmacm opens the devices once per
 * process). */
static int cap_ipc_lock_drop(void) {
  struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct data[2];
  if (syscall(SYS_capget, &hdr, data) != 0) return -1;
  int had = (data[0].effective >> CAP_IPC_LOCK) & 1;
  data[0].effective &= ~(1u << CAP_IPC_LOCK);
  if (syscall(SYS_capset, &hdr, data) != 0) return -1;
  return had;
}

int child_memlock_server(const char *host, const char *count) {
  int attempts = atoi(count), rc;
  int had = cap_ipc_lock_drop();
  sr_config c = small_config();
  c.max_message = 64u << 10;
  tnode *n = node_start(&c, 0, &rc);
  if (!n) { printf("error server ctx: %s\n", sr_last_error()); return 2; }
  n->accept_mode = MODE_ECHO;
  struct sockaddr_in a = {.sin_family = AF_INET};
  inet_pton(AF_INET, host, &a.sin_addr);
  sr_listener *l;
  if (node_listen(n, &a, &l) != 0) { printf("error listen: %s\n", sr_last_error()); return 3; }
  sr_ctx_stats s0, s;
  sr_ctx_get_stats(n->ctx, &s0);
  struct rlimit old, low;
  getrlimit(RLIMIT_MEMLOCK, &old);
  low = old;
  low.rlim_cur = 0;
  if (setrlimit(RLIMIT_MEMLOCK, &low) != 0) { printf("error setrlimit: %s\n", strerror(errno)); return 4; }
  printf("port %d cap_ipc_lock_dropped %d\n", ntohs(a.sin_port), had);
  fflush(stdout);
  tep *last = node_wait_accepted(n, attempts - 1, 60000);
  if (!last || !tep_wait(last, &last->closed, 1, 10000)) {
    printf("error %d failed accepts not seen\n", attempts);
    return 5;
  }
  usleep(20000);
  sr_ctx_get_stats(n->ctx, &s);
  setrlimit(RLIMIT_MEMLOCK, &old);
  printf("failed %llu %llu %s\n", (unsigned long long)s0.cq_entries,
         (unsigned long long)s.cq_entries, last->cause);
  fflush(stdout);
  tep *good = node_wait_accepted(n, attempts, 60000);
  if (!good || !tep_wait_msgs(good, 1, 30000)) {
    printf("error no connection after the limit was restored\n");
    return 6;
  }
  sr_ctx_get_stats(n->ctx, &s);
  printf("served %llu\n", (unsigned long long)s.cq_entries);
  fflush(stdout);
  for (;;) pause(); /* killed by the parent */
}

int t_failed_accept_cq_entries(void) {
  enum { attempts = 6 };
  int rc;
  FILE *cout = NULL;
  pid_t child = -1;
  tnode *client = NULL;
  tep *failed[attempts] = {0}, *ct = NULL;
  sr_ep *feps[attempts] = {0}, *cep = NULL;
  char line[512] = "", host[32], count[16];
  sr_config c = small_config();
  c.max_message = 64u << 10;
  client = node_start(&c, 0, &rc);
  CHECK(client != NULL, "client ctx: %s", sr_last_error());
  inet_ntop(AF_INET, &rdma_addr.sin_addr, host, sizeof host);
  snprintf(count, sizeof count, "%d", attempts);
  char *argv[] = {(char *)self_exe, "--child-memlock-server", host, count, NULL};
  child = spawn_child(argv, &cout);
  CHECK(child > 0 && cout, "fork");
  int port = 0, dropped = -1;
  CHECK(fgets(line, sizeof line, cout) && sscanf(line, "port %d cap_ipc_lock_dropped %d", &port,
                                                   &dropped) == 2,
        "server helper: %.400s", line);
  struct sockaddr_in a = rdma_addr;
  a.sin_port = htons((uint16_t)port);
  for (int i = 0; i < attempts; i++) {
    failed[i] = tep_new(client, MODE_COLLECT);
    rc = sr_connect(client->ctx, (struct sockaddr *)&a, NULL, 0, 5000, failed[i], &feps[i]);
    CHECK(rc != 0, "connect %d succeeded with RLIMIT_MEMLOCK 0 (CAP_IPC_LOCK dropped: %d)", i,
          dropped);
    CHECK(rc == SR_EREJECTED, "connect %d: %d %s", i, rc, sr_last_error());
  }
  unsigned long long before = 0, after = 0;
  int cause_at = 0;
  CHECK(fgets(line, sizeof line, cout) &&
            sscanf(line, "failed %llu %llu %n", &before, &after, &cause_at) == 2 && cause_at,
        "server helper: %.400s", line);
  line[strcspn(line, "\n")] = 0;
  printf("  (%d accepts failed: \"%s\"; CQ entries reserved %llu, %llu before)\n", attempts,
         line + cause_at, after, before);
  CHECK(strstr(line + cause_at, "locked-memory") != NULL, "cause: %s", line + cause_at);
  CHECK(after == before, "%d failed accepts left %llu CQ entries reserved", attempts,
        after - before);
  /* the limit back: a connect succeeds and is served */
  ct = tep_new(client, MODE_COLLECT);
  rc = sr_connect(client->ctx, (struct sockaddr *)&a, NULL, 0, 5000, ct, &cep);
  CHECK(rc == 0, "connect after the limit was restored: %d %s", rc, sr_last_error());
  ct->ep = cep;
  uint8_t buf[100];
  fill_msg(buf, sizeof buf, 0);
  CHECK(sr_ep_send(cep, buf, sizeof buf) == 0, "send: %s", sr_last_error());
  CHECK(tep_wait_msgs(ct, 1, 10000), "no echo after the limit was restored");
  unsigned long long served = 0;
  CHECK(fgets(line, sizeof line, cout) && sscanf(line, "served %llu", &served) == 1,
        "server helper: %.400s", line);
  CHECK(served == before + c.credits * 2 + 4, "CQ entries %llu with one endpoint, %llu before",
        served, before);
  rc = 0;
  goto out;
fail:
  rc = 1;
out:
  if (cep) {
    sr_ep_close(cep);
    tep_wait(ct, &ct->closed, 1, 5000);
    sr_ep_release(cep);
  }
  if (child > 0) {
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
  }
  if (cout) fclose(cout);
  node_stop(client);
  for (int i = 0; i < attempts; i++) tep_free(failed[i]);
  tep_free(ct);
  return rc;
}

/* e) one user's endpoint writing into another's memory. Client B sends a rendezvous message the
 * way the runtime does: it RDMA WRITEs the payload into its server endpoint's incoming region
 * (address and rkey from the accept's private data) and then SENDs the descriptor. Between the
 * two, client A, connected to the same server with an endpoint of its own, RDMA WRITEs over
 * that region with B's address and rkey, as anyone who learnt them (they travel in clear) could.
 * Each endpoint has a protection domain of its own, so B's rkey means nothing on A's queue pair:
 * A's write must complete with an access error (A's queue pair then goes to error and the
 * server closes A's endpoint), and B's message must arrive intact. When the endpoints shared
 * one protection domain the write landed and B's message was delivered with A's bytes. */
int t_hostile_cross_endpoint_write(void) {
  hsrv h;
  hpeer a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  uint8_t msg[3000], junk[3000]; /* above the server's 1 KiB eager size: a rendezvous message */
  if (hsrv_start(&h)) goto fail;
  h.p.server->accept_mode = MODE_COLLECT; /* the hostile clients' messages are kept, not echoed */
  int idx = h.p.server->naccepted;
  CHECK_SUB(hp_connect(&b, &h.p.addr) == 0, "client B");
  tep *sb = node_wait_accepted(h.p.server, idx, 5000);
  CHECK(sb != NULL, "the server saw no connection from client B");
  CHECK_SUB(hp_connect(&a, &h.p.addr) == 0, "client A");
  tep *sa = node_wait_accepted(h.p.server, idx + 1, 5000);
  CHECK(sa != NULL, "the server saw no connection from client A");
  CHECK(a.server.rndv_rkey != b.server.rndv_rkey || a.server.rndv_addr != b.server.rndv_addr,
        "both endpoints announced the same region");
  sr_wire_params pb = hp_params(&b, 16), pa = hp_params(&a, 16);
  CHECK(hp_hello(&b, &pb) == 0, "client B's HELLO not delivered");
  CHECK(hp_hello(&a, &pa) == 0, "client A's HELLO not delivered");

  fill_msg(msg, sizeof msg, 0);
  memset(junk, 0xa5, sizeof junk);
  CHECK(hp_write(&b, msg, sizeof msg, b.server.rndv_addr, b.server.rndv_rkey) == 0,
        "client B's own RDMA WRITE into its region failed: %s",
        ibv_wc_status_str(b.last_status));
  int wrc = hp_write(&a, junk, sizeof junk, b.server.rndv_addr, b.server.rndv_rkey);
  enum ibv_wc_status wst = a.last_status;
  uint8_t m[64];
  uint32_t n = hp_msg(m, SR_MSG_RNDV, 0, 0, sizeof msg, NULL, 0);
  CHECK(hp_send(&b, m, n) == 0, "client B's rendezvous descriptor not delivered");
  int arrived = tep_wait_msgs(sb, 1, 10000);
  pthread_mutex_lock(&sb->m);
  int bad = sb->bad, closed = sb->closed;
  uint64_t bytes = sb->bytes;
  pthread_mutex_unlock(&sb->m);
  CHECK(wrc == 1 && arrived && bad == 0 && bytes == sizeof msg,
        "client A's RDMA WRITE with client B's address and rkey %s; client B's message %s",
        wrc == 0 ? "LANDED (completed successfully)"
                 : wrc < 0 ? "did not complete" : ibv_wc_status_str(wst),
        !arrived ? "never arrived" : bad ? "arrived CORRUPT (overwritten by client A)"
                                         : bytes != sizeof msg ? "arrived with a wrong length"
                                                               : "arrived intact");
  CHECK(wst == IBV_WC_REM_ACCESS_ERR || wst == IBV_WC_REM_INV_REQ_ERR ||
        wst == IBV_WC_REM_OP_ERR, "client A's write failed with %s, not an access error",
        ibv_wc_status_str(wst));
  CHECK(closed == 0, "client B's endpoint closed: %s", sb->cause);
  /* the responder's side of A's queue pair went to error: the server closes A's endpoint */
  CHECK(tep_wait(sa, &sa->closed, 1, 10000), "the server kept client A's endpoint open");
  printf("  (client A's write: %s; the server closed A's endpoint: \"%s\")\n",
         ibv_wc_status_str(wst), sa->cause);
  CHECK_SUB(hsrv_good_echo(&h) == 0, "after the cross-endpoint write");
  hp_destroy(&a);
  hp_destroy(&b);
  hsrv_stop(&h);
  return 0;
fail:
  hp_destroy(&a);
  hp_destroy(&b);
  hsrv_stop(&h);
  return 1;
}

/* g) a peer that ignores disconnect requests: the server closes its endpoint, the peer hears
 * DISCONNECTED and does not answer. The endpoint is closed for the server's user (on_close) but
 * keeps its queue pair, registered memory and completion-queue entries (counted in
 * endpoints_closing, no on_released) until the answer; then on_released comes once, after
 * on_close, and the server is back to the objects, CQ entries and CQ size it had. What the
 * endpoint caps of the RPC server count is this: an endpoint until on_released. */
int t_hostile_withheld_disconnect(void) {
  hsrv h;
  hpeer hp;
  memset(&hp, 0, sizeof hp);
  if (hsrv_start(&h)) goto fail;
  sr_ctx_stats before;
  sr_ctx_get_stats(h.p.server->ctx, &before);
  int idx = h.p.server->naccepted;
  CHECK_SUB(hp_connect(&hp, &h.p.addr) == 0, "the peer's connect");
  tep *st = node_wait_accepted(h.p.server, idx, 5000);
  CHECK(st != NULL, "the server saw no connection");
  sr_wire_params p = hp_params(&hp, 16);
  CHECK_SUB(hp_hello(&hp, &p) == 0, "the peer's HELLO");
  CHECK(tep_wait(st, &st->established, 1, 5000), "the peer's endpoint never opened");
  sr_ctx_stats open;
  sr_ctx_get_stats(h.p.server->ctx, &open);

  sr_ep_close(st->ep); /* the server closes: a disconnect request to the peer */
  CHECK(tep_wait(st, &st->closed, 1, 5000), "no on_close on the server");
  CHECK_SUB(hp_event(&hp, RDMA_CM_EVENT_DISCONNECTED, 5000, NULL, 0) == 0,
            "the peer heard no disconnect request");
  usleep(300000); /* the peer does not answer */
  sr_ctx_stats held;
  sr_ctx_get_stats(h.p.server->ctx, &held);
  CHECK(st->released == 0, "on_released before the peer answered the disconnect request");
  CHECK(held.endpoints_closing == before.endpoints_closing + 1,
        "%llu endpoints closing, %llu before", (unsigned long long)held.endpoints_closing,
        (unsigned long long)before.endpoints_closing);
  CHECK(held.cq_entries == open.cq_entries, "CQ entries %llu while closing, %llu open: given back "
        "before the teardown", (unsigned long long)held.cq_entries,
        (unsigned long long)open.cq_entries);

  rdma_disconnect(hp.id); /* the answer */
  CHECK(tep_wait(st, &st->released, 1, 10000), "no on_released after the peer's answer");
  usleep(20000);
  CHECK(st->released == 1 && st->released_before_close == 0,
        "on_released %d times, %d before on_close", st->released, st->released_before_close);
  sr_ctx_stats after;
  sr_ctx_get_stats(h.p.server->ctx, &after);
  CHECK(after.endpoints_closing == before.endpoints_closing, "%llu endpoints still closing",
        (unsigned long long)(after.endpoints_closing - before.endpoints_closing));
  CHECK(after.cq_entries == before.cq_entries && after.cq_size == before.cq_size,
        "CQ entries %llu (before %llu), size %llu (before %llu)",
        (unsigned long long)after.cq_entries, (unsigned long long)before.cq_entries,
        (unsigned long long)after.cq_size, (unsigned long long)before.cq_size);
  CHECK_SUB(hsrv_good_echo(&h) == 0, "after the withheld disconnect");
  printf("  (closed endpoint held %llu CQ entries until the peer answered)\n",
         (unsigned long long)(open.cq_entries - before.cq_entries));
  hp_destroy(&hp);
  hsrv_stop(&h);
  return 0;
fail:
  hp_destroy(&hp);
  hsrv_stop(&h);
  return 1;
}
