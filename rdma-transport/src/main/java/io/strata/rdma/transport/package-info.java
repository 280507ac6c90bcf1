/**
 * The transport seam of the RDMA RPC: connection-oriented, credit flow-controlled messages with
 * zero-copy receive views. The hybrid RPC in {@code io.strata.hbase.rdma} depends only on these
 * interfaces; the verbs transport (native runtime through JNI, module strata-native) and the
 * loopback transport implement them. {@link io.strata.rdma.transport.SupportedTransport} names
 * each transport's {@link io.strata.rdma.transport.TransportFactory}; settings come through the
 * read-only {@link io.strata.rdma.transport.TransportConf}, checked by
 * {@link io.strata.rdma.transport.RdmaTransportKeys}. No HBase or Hadoop dependency.
 */
package io.strata.rdma.transport;
