/**
 * The verbs transport: {@link io.strata.rdma.transport.RdmaTransport} over Strata's native
 * endpoint runtime ({@code native/}, rdma-core through JNI). Native handles live only inside
 * objects that close them ({@code close()}, and a {@link java.lang.ref.Cleaner} for a transport
 * that is dropped unclosed); received messages are read-only views of registered memory.
 */
package io.strata.rdma.verbs;
