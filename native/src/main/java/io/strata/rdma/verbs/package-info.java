/**
 * The verbs transport: {@link io.strata.rdma.transport.RdmaTransport} over Strata's native
 * endpoint runtime (rdma-core through JNI), in the strata-native jar beside the C sources whose
 * natives these classes declare ({@code libstrata_rdma.so}, packaged at
 * {@code native/linux-x86_64/}). Created by {@link io.strata.rdma.verbs.VerbsTransportFactory},
 * which {@link io.strata.rdma.transport.SupportedTransport#VERBS} names. Native handles live only
 * in {@link io.strata.rdma.verbs.NativeReference}s that free them exactly once (and a
 * {@link java.lang.ref.Cleaner} closes a transport that is dropped unclosed); received messages
 * are read-only views of registered memory.
 */
package io.strata.rdma.verbs;
