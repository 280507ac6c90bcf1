/*
 * Ping-pong round-trip time of the endpoint runtime: two contexts in one process (each with its
 * progress thread), the server echoing from its callback and the client sending the next ping
 * from its callback, so the figure is the runtime's own (no thread hand-off). Each message size
 * runs once per poll-spin setting: 0 = arm the CQ and wait on the completion channel after every
 * completion (event wait), a large value = busy-poll.
 *
 *   strata_rdma_pingpong [--sizes 64,1024,65536] [--spins 0,1000] [--iters N] [--eager B]
 *
 * Prints one line per (size, spin): mean, p50 and p99 round trip in microseconds, and whether
 * the size went eager (SEND) or by RDMA WRITE.
 */
#include "sr_testlib.h"

typedef struct pp {
  sr_ep *ep;
  uint8_t *buf;
  uint32_t len;
  int iters, done;
  uint64_t last;
  double *rtt_us;
  pthread_mutex_t m;
  pthread_cond_t c;
  int failed;
} pp;

static void client_hook(tep *t, const void *data, uint32_t len) {
  pp *p = t->hook_arg;
  uint64_t now = tl_now_ns();
  p->rtt_us[p->done++] = (double)(now - p->last) / 1000.0;
  if (p->done < p->iters) {
    p->last = tl_now_ns();
    if (sr_ep_send(p->ep, p->buf, p->len) != 0) p->failed = 1;
    else return;
  }
  pthread_mutex_lock(&p->m);
  pthread_cond_signal(&p->c);
  pthread_mutex_unlock(&p->m);
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int parse_list(const char *s, uint32_t *out, int max) {
  int n = 0;
  char *copy = strdup(s), *save, *tok;
  for (tok = strtok_r(copy, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
    out[n++] = (uint32_t)strtoul(tok, NULL, 10);
  free(copy);
  return n;
}

int main(int argc, char **argv) {
  uint32_t sizes[16] = {64, 1024, 65536}, spins[8] = {0, 1000};
  int nsizes = 3, nspins = 2, iters = 2000;
  uint32_t eager = 8192;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--sizes")) nsizes = parse_list(argv[i + 1], sizes, 16);
    else if (!strcmp(argv[i], "--spins")) nspins = parse_list(argv[i + 1], spins, 8);
    else if (!strcmp(argv[i], "--iters")) iters = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--eager")) eager = (uint32_t)atoi(argv[i + 1]);
    else { fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
  }
  struct sockaddr_in addr;
  if (find_rdma_addr(&addr) != 0) {
    fprintf(stderr, "no RDMA device address (set STRATA_RDMA_ADDR)\n");
    return 1;
  }
  printf("%-8s %-6s %8s %8s %10s %10s %10s\n", "bytes", "path", "spin_us", "iters", "mean_us",
         "p50_us", "p99_us");
  for (int si = 0; si < nspins; si++) {
    sr_config cfg;
    sr_config_defaults(&cfg);
    cfg.poll_spin_us = spins[si];
    cfg.eager_size = eager;
    int rc;
    tnode *server = node_start(&cfg, 0, &rc), *client = node_start(&cfg, 0, &rc);
    if (!server || !client) { fprintf(stderr, "context: %s\n", sr_last_error()); return 1; }
    server->accept_mode = MODE_ECHO;
    sr_listener *lst;
    struct sockaddr_in la = addr;
    if (node_listen(server, &la, &lst)) {
      fprintf(stderr, "listen: %s\n", sr_last_error());
      return 1;
    }
    tep *ct = tep_new(client, MODE_COLLECT);
    pp p = {0};
    pthread_mutex_init(&p.m, NULL);
    pthread_cond_init(&p.c, NULL);
    ct->hook = client_hook;
    ct->hook_arg = &p;
    if (sr_connect(client->ctx, (struct sockaddr *)&la, NULL, 0, 5000, ct, &p.ep)) {
      fprintf(stderr, "connect: %s\n", sr_last_error());
      return 1;
    }
    for (int z = 0; z < nsizes; z++) {
      for (int round = 0; round < 2; round++) { /* warm-up, then measured */
        int n = round == 0 ? (iters / 10 > 10 ? iters / 10 : 10) : iters;
        if (sizes[z] > 65536 && round == 1) n = iters / 4 > 10 ? iters / 4 : 10;
        p.buf = calloc(1, sizes[z]);
        p.len = sizes[z];
        p.iters = n;
        p.done = 0;
        p.rtt_us = calloc((size_t)n, sizeof(double));
        pthread_mutex_lock(&p.m);
        p.last = tl_now_ns();
        if (sr_ep_send(p.ep, p.buf, p.len) != 0) {
          fprintf(stderr, "send: %s\n", sr_last_error());
          return 1;
        }
        while (p.done < n && !p.failed) pthread_cond_wait(&p.c, &p.m);
        pthread_mutex_unlock(&p.m);
        if (p.failed) { fprintf(stderr, "send failed: %s\n", sr_last_error()); return 1; }
        if (round == 1) {
          double sum = 0;
          for (int i = 0; i < n; i++) sum += p.rtt_us[i];
          qsort(p.rtt_us, (size_t)n, sizeof(double), cmp_d);
          printf("%-8u %-6s %8u %8d %10.1f %10.1f %10.1f\n", sizes[z],
                 sizes[z] > eager ? "write" : "send", spins[si], n, sum / n, p.rtt_us[n / 2],
                 p.rtt_us[(int)(n * 0.99)]);
          fflush(stdout);
        }
        free(p.rtt_us);
        free(p.buf);
      }
    }
    sr_ep_close(p.ep);
    tep_wait(ct, &ct->closed, 1, 5000);
    sr_ep_release(p.ep);
    sr_listener_close(lst);
    node_stop(client);
    node_stop(server);
    tep_free(ct);
  }
  return 0;
}
