package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.EndpointCall;
import java.lang.reflect.Proxy;

/** Call runners as queue entries for tests of call queues: nothing in them runs. */
public final class CallRunners {
  private static final RpcCall ENDPOINT_CALL = (RpcCall) Proxy.newProxyInstance(
    CallRunners.class.getClassLoader(), new Class<?>[] { RpcCall.class, EndpointCall.class },
    (proxy, method, args) -> {
      throw new UnsupportedOperationException(method.getName());
    });

  private CallRunners() {
  }

  /** A call as from a socket connection. */
  public static CallRunner socket() {
    return new CallRunner(null, null);
  }

  /** A call as from an RDMA endpoint. */
  public static CallRunner endpoint() {
    return new CallRunner(null, ENDPOINT_CALL);
  }
}
