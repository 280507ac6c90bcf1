package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.EndpointCall;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.security.HBaseSaslRpcServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WALEdit;

/**
 * Records, per row read or written, how the RegionServer's connection that carried the call was
 * authenticated: "SASL {@code <method>} qop={@code <negotiated QOP>} user={@code <short name>}"
 * for a socket connection, "endpoint user=..." for an RDMA endpoint call, "simple user=..." for
 * a socket connection without SASL. In HBase's ipc package for the connection's SASL state.
 */
public class SaslCallRecorder implements RegionCoprocessor, RegionObserver {
  public static final Map<String, String> GETS = new ConcurrentHashMap<>();
  public static final Map<String, String> PUTS = new ConcurrentHashMap<>();

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void preGetOp(ObserverContext<RegionCoprocessorEnvironment> c, Get get,
    List<Cell> result) {
    GETS.put(Bytes.toString(get.getRow()), describeCurrentCall());
  }

  @Override
  public void prePut(ObserverContext<RegionCoprocessorEnvironment> c, Put put, WALEdit edit,
    Durability durability) {
    PUTS.put(Bytes.toString(put.getRow()), describeCurrentCall());
  }

  /** How the call this handler runs now came in; "(no call)" outside an RPC. */
  static String describeCurrentCall() {
    Optional<RpcCall> current = RpcServer.getCurrentCall();
    if (!current.isPresent()) {
      return "(no call)";
    }
    RpcCall call = current.get();
    String user = call.getRequestUser().map(u -> u.getShortName()).orElse("(none)");
    if (call instanceof EndpointCall) {
      return "endpoint user=" + user;
    }
    if (!(call instanceof ServerCall)) {
      return call.getClass().getSimpleName() + " user=" + user;
    }
    ServerRpcConnection connection = ((ServerCall<?>) call).connection;
    if (!connection.useSasl) {
      return "simple user=" + user;
    }
    HBaseSaslRpcServer sasl = connection.saslServer;
    String method = connection.provider == null ? "(no provider)"
      : connection.provider.getSaslAuthMethod().getName();
    String qop = sasl == null ? "(disposed)" : sasl.getNegotiatedQop();
    return "SASL " + method + " qop=" + qop + " user=" + user;
  }
}
