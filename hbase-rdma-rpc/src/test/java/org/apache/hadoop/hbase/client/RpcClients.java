package org.apache.hadoop.hbase.client;

import org.apache.hadoop.hbase.ipc.RpcClient;

/** The RPC client of a blocking connection (package-private upstream), for the RPC tests. */
public final class RpcClients {
  private RpcClients() {
  }

  public static RpcClient of(Connection connection) {
    return ((ConnectionImplementation) connection).getRpcClient();
  }
}
