/**
 * An in-process implementation of the RDMA transport seam for hosts without an RDMA device: the
 * RPC above it runs exactly as over verbs (message boundaries, receive credits, receive views
 * valid only during the callback, a busy-polling completion thread, peer-death notification), with
 * a zero-latency wire. Tests use its fault hooks to kill endpoints and listeners.
 */
package io.strata.rdma.loopback;
