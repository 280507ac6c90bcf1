package io.strata.hbase.rdma;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.ipc.RpcServer;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Records, per row read, the user a Get ran as on the RegionServer and the kind of call that
 * carried it — the server-side view of "which user, which transport".
 */
public class CallRecorder implements RegionCoprocessor, RegionObserver {
  static final Map<String, String> GETS = new ConcurrentHashMap<>();

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void preGetOp(ObserverContext<RegionCoprocessorEnvironment> c, Get get,
    List<Cell> result) {
    String user = RpcServer.getRequestUserName().orElse("(none)");
    String call = RpcServer.getCurrentCall().map(x -> x.getClass().getSimpleName()).orElse("");
    GETS.put(Bytes.toString(get.getRow()), user + " via " + call);
  }
}
