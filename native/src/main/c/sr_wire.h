/*
 * The runtime's wire protocol checks, as pure functions over an endpoint's protocol state: what
 * the progress thread applies to every received message before it trusts any field of it. Kept
 * apart from the verbs code so that the C tests check them on hosts without an RDMA device
 * (fuzzed headers, bogus HELLO, inflated credits and rendezvous acknowledgements).
 */
#ifndef SR_WIRE_H
#define SR_WIRE_H

#include <stddef.h>
#include <stdint.h>

enum { SR_MSG_DATA = 1, SR_MSG_RNDV = 2, SR_MSG_CREDIT = 3, SR_MSG_HELLO = 4 };

/* Every SEND starts with this header. */
typedef struct sr_wire_hdr {
  uint8_t type;
  uint8_t rndv_acks;  /* rendezvous regions of the receiver of this message now free */
  uint16_t credits;   /* credits returned */
  uint32_t len;       /* payload bytes */
  uint64_t reserved;
} sr_wire_hdr;

#define SR_WIRE_MAGIC 0x53524431u /* "SRD1" */
/* A side's parameters: the accepting side's in the accept's private data, the connecting
 * side's in its HELLO. */
typedef struct sr_wire_params {
  uint32_t magic;
  uint32_t credits;    /* receives posted for the peer */
  uint32_t eager_size; /* payload bytes per receive buffer */
  uint32_t rndv_size;  /* bytes of the rendezvous region */
  uint64_t rndv_addr;
  uint32_t rndv_rkey;
  uint32_t reserved;
} sr_wire_params;

/* The smallest number of credits the protocol works with: data needs two (the last is kept for
 * a credit message), and with four neither side can wait for credits the other owes. */
#define SR_MIN_CREDITS 4u
#define SR_MAX_CREDITS 4096u
#define SR_MIN_EAGER 64u
#define SR_MAX_EAGER (1u << 20)
#define SR_MAX_MESSAGE (1u << 30)

/* One endpoint's protocol state as the receive path sees it. */
typedef struct sr_wire_state {
  int accepted;          /* this side accepted the connection: the peer's HELLO is expected */
  int have_peer;         /* the peer's parameters are known */
  uint32_t peer_credits; /* credits the peer granted (its posted receives) */
  int32_t send_credits;  /* credits held now */
  uint32_t rndv_tokens;  /* the peer's rendezvous region is free (0 or 1) */
  uint32_t eager;        /* payload bytes of this side's receive buffers */
  uint32_t max_message;  /* bytes of this side's rendezvous region */
} sr_wire_state;

/* Checks peer parameters; 0 when acceptable, else -1 with the reason in `why`. */
int sr_wire_check_params(const sr_wire_params *p, char *why, size_t whylen);

/* Checks one received message of `byte_len` bytes (header first) against `s`; 0 when the
 * message follows the protocol, else -1 with the violation in `why`. Reads at most byte_len
 * bytes of `msg`. A HELLO's parameters are checked too. */
int sr_wire_check(const sr_wire_state *s, const void *msg, uint32_t byte_len, char *why,
                  size_t whylen);

#endif
