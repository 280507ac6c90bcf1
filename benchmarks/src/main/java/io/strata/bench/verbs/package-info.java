/**
 * Measurements of the RDMA path run on an RDMA device (the SoftRoCE guest of
 * {@code dev-support/softroce-test --bench}, entries of {@code dev-support/softroce-bench.list}):
 * the runtime's round trip through JNI ({@link io.strata.bench.verbs.VerbsPingPong}) and Get and
 * Put through an HBase RegionServer over sockets and over the verbs endpoint
 * ({@link io.strata.bench.verbs.HybridRpcLatency}).
 */
package io.strata.bench.verbs;
