/**
 * {@code strata bench rpc}: latency, CPU and allocation per call of 1 KiB Gets and Puts through
 * an in-process tiered cluster, HBase's Netty sockets against the hybrid RPC's RDMA path on the
 * loopback transport, in one run (JMH underneath).
 */
package io.strata.bench.rpc;
