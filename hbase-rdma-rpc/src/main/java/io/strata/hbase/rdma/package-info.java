/**
 * Hybrid HBase RPC: Get and Put (Mutate/Multi) over an RDMA endpoint served by the native runtime
 * in {@code native/} through JNI, every other call over HBase's Netty sockets, with a clean
 * fallback to sockets when the native library or an RDMA device is missing.
 */
package io.strata.hbase.rdma;
