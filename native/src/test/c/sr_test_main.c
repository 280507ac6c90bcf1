/*
 * Tests of the endpoint runtime. Tests marked "device" need an RDMA device (SoftRoCE rxe0 in the
 * guest of dev-support/softroce-test, or real hardware); without one they are reported as
 * skipped, unless --require-device makes that a failure. Prints one line per test and a final
 * "N passed, N failed" line; exits 1 on any failure.
 *
 *   strata_rdma_tests [--require-device] [TEST...]
 *   strata_rdma_tests --child-connect ADDR PORT     (helper process of the peer-death tests)
 *   strata_rdma_tests --child-listen                (helper: listens, prints its port)
 *   strata_rdma_tests --child-memlock-server ADDR N (helper of failed_accept_cq_entries)
 */
#include "sr_test_harness.h"

typedef struct test {
  const char *name;
  int (*fn)(void);
  int device;
} test;

static const test tests[] = {
    {"config_validation", t_config_validation, 0},
    {"wire_protocol", t_wire_protocol, 0},
    {"unknown_device", t_unknown_device, 0},
    {"no_device_clear_error", t_no_device_clear_error, 0},
    {"context_lifecycle", t_context_lifecycle, 0},
    {"cq_sizing", t_cq_sizing, 0},
    {"connect_private_data_close", t_connect_private_data, 1},
    {"reject_and_no_listener", t_reject_and_no_listener, 1},
    {"send_recv_echo", t_send_recv_echo, 1},
    {"rdma_write_path", t_rdma_write_path, 1},
    {"flow_control_slow_receiver", t_flow_control_slow_receiver, 1},
    {"callback_sends_queue", t_callback_sends_queue, 1},
    {"send_timeout_withheld_credits", t_send_timeout_withheld_credits, 1},
    {"callback_queue_bounded", t_callback_queue_bounded, 1},
    {"close_under_load", t_close_under_load, 1},
    {"connect_setup_cost", t_connect_setup_cost, 1},
    {"peer_death", t_peer_death, 1},
    {"hostile_hello", t_hostile_hello, 1},
    {"hostile_fuzz", t_hostile_fuzz, 1},
    {"hostile_credits", t_hostile_credits, 1},
    {"hostile_quiet_after_queue", t_hostile_quiet_after_queue, 1},
    {"failed_accept_cq_entries", t_failed_accept_cq_entries, 1},
    {"hostile_cross_endpoint_write", t_hostile_cross_endpoint_write, 1},
    {"hostile_withheld_disconnect", t_hostile_withheld_disconnect, 1},
};

int main(int argc, char **argv) {
  static char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  self_exe = n > 0 ? (exe[n] = 0, exe) : argv[0];
  signal(SIGPIPE, SIG_IGN);
  if (argc >= 4 && strcmp(argv[1], "--child-connect") == 0) return child_connect(argv[2], argv[3]);
  if (argc >= 3 && strcmp(argv[1], "--child-listen") == 0) return child_listen(argv[2]);
  if (argc >= 4 && strcmp(argv[1], "--child-memlock-server") == 0)
    return child_memlock_server(argv[2], argv[3]);
  setvbuf(stdout, NULL, _IOLBF, 0);
  int require = 0, first = 1;
  if (argc > 1 && strcmp(argv[1], "--require-device") == 0) {
    require = 1;
    first = 2;
  }
  char devs[512];
  int have_dev = sr_probe_devices(NULL, devs, sizeof devs) > 0 && find_rdma_addr(&rdma_addr) == 0;
  if (have_dev) {
    char a[32];
    inet_ntop(AF_INET, &rdma_addr.sin_addr, a, sizeof a);
    printf("RDMA device(s) %s; testing on %s\n", devs, a);
  } else {
    printf("no usable RDMA device (%s): device tests %s\n", sr_last_error(),
           require ? "FAIL" : "are skipped");
  }
  int passed = 0, failed = 0, skipped = 0;
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
    const test *t = &tests[i];
    if (argc > first) {
      int want = 0;
      for (int a = first; a < argc; a++) want |= strcmp(argv[a], t->name) == 0;
      if (!want) continue;
    }
    if (t->device && !have_dev) {
      if (require) {
        printf("FAIL %s: no RDMA device\n", t->name);
        failed++;
      } else {
        printf("SKIP %s (needs an RDMA device)\n", t->name);
        skipped++;
      }
      continue;
    }
    failure[0] = 0;
    uint64_t t0 = tl_now_ns();
    int r = t->fn();
    double ms = (double)(tl_now_ns() - t0) / 1e6;
    if (r == 0) {
      printf("PASS %s (%.0f ms)\n", t->name, ms);
      passed++;
    } else {
      printf("FAIL %s (%.0f ms): %s\n", t->name, ms, failure);
      failed++;
    }
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}
