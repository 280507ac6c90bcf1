/**
 * The transport seam of the RDMA RPC: connection-oriented, credit flow-controlled messages with
 * zero-copy receive views. The hybrid RPC in {@code io.strata.hbase.rdma} depends only on these
 * interfaces; the verbs transport (native runtime through JNI) and the loopback transport
 * implement them.
 */
package io.strata.rdma.transport;
