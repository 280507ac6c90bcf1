/**
 * {@code strata bench rpc}: the RDMA HBase paper's micro-benchmarks through an in-process tiered
 * cluster, HBase's Netty sockets against the hybrid RPC's endpoint on the loopback transport, in
 * one run: latency per value size, the stages of a 1 KiB call, many client threads, AsyncTable.
 */
package io.strata.bench.rpc;
