package io.strata.bench.rpc;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One client thread's 1 KiB Get and Put, timed call by call, with the RPC {@code mode} as a JMH
 * parameter: {@code netty} (HBase's socket client) or {@code rdma-loopback} (the hybrid client,
 * whose Gets and Puts go over the RegionServer's loopback RDMA endpoint).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RpcBenchmarks {
  @Param({ RpcBench.NETTY, RpcBench.RDMA })
  public String mode;

  private Table table;
  private int next;
  private byte[] value;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    table = RpcBenchCluster.get().connection(mode).getTable(RpcBenchCluster.TABLE);
    value = RpcBenchCluster.value(7);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    table.close();
  }

  private byte[] nextRow() {
    next = (next + 7919) % RpcBenchCluster.ROWS;
    return RpcBenchCluster.row(next);
  }

  @Benchmark
  public Result get() throws IOException {
    return table.get(new Get(nextRow()));
  }

  @Benchmark
  public void put() throws IOException {
    table.put(new Put(nextRow()).addColumn(RpcBenchCluster.FAMILY, RpcBenchCluster.QUALIFIER,
      value));
  }
}
