package io.strata.hbase.rdma;

/**
 * Marks a RegionServer call that arrived over an RDMA endpoint, so that server-side polling
 * ({@link PollingCallQueue}) can follow endpoint traffic and leave socket traffic as HBase has it.
 */
public interface EndpointCall {
}
