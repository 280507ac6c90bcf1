/*
 * Errors: the calling thread's last error message (sr_last_error) and the codes' texts, the count
 * of live objects the tests check for leaks, and the small helpers the messages and timeouts use
 * (an address as text, the monotonic clock).
 */
#define _GNU_SOURCE
#include "sr_internal.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

__thread char tls_err[512];
atomic_long live_objects;

void set_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tls_err, sizeof tls_err, fmt, ap);
  va_end(ap);
}

const char *sr_last_error(void) { return tls_err; }
long sr_live_objects(void) { return atomic_load(&live_objects); }

const char *sr_strerror(int code) {
  switch (code) {
    case SR_OK: return "ok";
    case SR_EINVAL: return "invalid argument";
    case SR_ENODEV: return "no usable RDMA device";
    case SR_ENOMEM: return "out of memory or memory registration failed";
    case SR_ECLOSED: return "endpoint closed";
    case SR_ETIMEDOUT: return "timed out";
    case SR_EREJECTED: return "connection rejected";
    case SR_EUNREACHABLE: return "peer unreachable";
    case SR_EWOULDBLOCK: return "not allowed on the progress thread";
    case SR_EAGAIN: return "no credit within the caller's wait";
    case SR_EMSGSIZE: return "message too large for the endpoint";
    default: return "RDMA error";
  }
}

const char *addr_str(const struct sockaddr *sa, char *buf, size_t len) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (sa == NULL) {
    snprintf(buf, len, "?");
    return buf;
  }
  if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    port = ntohs(in->sin_port);
  } else if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    port = ntohs(in6->sin6_port);
  }
  snprintf(buf, len, "%s:%d", host, port);
  return buf;
}

socklen_t addr_len(const struct sockaddr *sa) {
  return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
