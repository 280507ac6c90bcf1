package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.Test;

/** The bench's command line: what runs by default and what it refuses before starting a cluster. */
public class YcsbBenchTest {
  private static YcsbBench.Settings settings(String... args) throws Exception {
    return YcsbBench.settings(args);
  }

  @Test
  public void defaults() throws Exception {
    YcsbBench.Settings s = settings();
    assertEquals(MultiPhaseRun.parse(YcsbBench.DEFAULT_PHASES), s.phases());
    assertEquals(1, s.clients());
    assertEquals(1000, s.monitorMs());
    assertEquals(0, settings("--monitor-ms", "0").monitorMs());
    assertEquals(List.of(0L, 64L << 10, 1024L << 10), s.rawBuffers());
    // an experiment alone runs without the default phases, unless they are asked for
    assertTrue(settings("--raw-lag").phases().isEmpty());
    assertEquals(2, settings("--presplit-compare", "--phases", "load,a").phases().size());
  }

  @Test
  public void rpcCompareDefaults() throws Exception {
    YcsbBench.Settings s = settings("--rpc-compare");
    assertTrue(s.phases().isEmpty());
    RpcCompare.Settings rc = s.rpcCompare();
    assertEquals(List.of(1, 2, 4, 8, 16), rc.threads());
    assertEquals(List.of("read", "write", "read-write"), rc.workloads());
    assertEquals(YcsbBench.RPC_RECORDS_DEFAULT, rc.records());
    assertEquals(YcsbBench.RPC_OPERATIONS_DEFAULT, rc.operations());
    assertEquals(6, rc.runTime().toSeconds());
    assertEquals(2, rc.rounds());
    rc = settings("--rpc-compare", "--rpc-threads", "1,4", "--rpc-workloads", "write",
      "--records", "500", "--operations", "300").rpcCompare();
    assertEquals(List.of(1, 4), rc.threads());
    assertEquals(List.of("write"), rc.workloads());
    assertEquals(500, rc.records());
    assertEquals(300, rc.operations());
    assertEquals(null, settings().rpcCompare());
  }

  @Test
  public void aclCompareDefaults() throws Exception {
    YcsbBench.Settings s = settings("--acl-compare");
    assertTrue(s.phases().isEmpty());
    AclComparison.Settings a = s.acl();
    assertEquals(List.of(4, 11), a.entries());
    assertEquals(2, a.rounds());
    assertEquals(100_000, a.records());
    assertEquals(100_000, a.scanRows());
    assertEquals(1000, a.scanLength());
    assertEquals(100 << 10, a.bufferBytes());
    assertEquals(10, a.fieldCount());
    a = settings("--acl-compare", "--acl-entries", "1,3", "--records", "500", "--rounds", "1",
      "--acl-scan-rows", "700", "--ycsb", "fieldcount=2").acl();
    assertEquals(List.of(1, 3), a.entries());
    assertEquals(1, a.rounds());
    assertEquals(700, a.scanRows());
    assertEquals(2, a.fieldCount());
    assertEquals(null, settings().acl());
    assertEquals(List.of("ycsb", "acl_user1", "acl_user2"), AclComparison.aclUsers(3));
  }

  @Test
  public void badInputIsRefusedWithExitCode2() throws Exception {
    for (String[] args : new String[][] { { "--phases", "load,nope" }, { "--clients", "0" },
      { "--raw-buffers-kb", "64,-1" }, { "--ycsb", "recordcount=5" }, { "--ycsb", "novalue" },
      { "--presplit-compare", "--ycsb", "insertorder=ordered" }, { "extra" },
      { "--rpc-compare", "--rpc-threads", "0" }, { "--rpc-compare", "--rpc-threads", "1,x" },
      { "--rpc-compare", "--rpc-threads", "" }, { "--rpc-compare", "--rpc-workloads", "scan" },
      { "--rpc-compare", "--rpc-workloads", "read,read" }, { "--rpc-threads", "1,2" },
      { "--monitor-ms", "50" }, { "--monitor-ms", "-1" },
      { "--rpc-compare", "--ycsb", "clientbuffering=true" },
      { "--rpc-compare", "--rpc-seconds", "0" }, { "--rpc-compare", "--rpc-rounds", "0" },
      { "--filter-lengths", "10" }, { "--filter-compare", "--filter-lengths", "0" },
      { "--filter-compare", "--filter-selectivities", "101" },
      { "--filter-compare", "--ycsb", "fieldcount=150" },
      { "--filter-compare", "--ycsb", "fieldlength=3" },
      { "--filter-compare", "--ycsb", "fieldcount=x" },
      { "--acl-entries", "4" }, { "--acl-compare", "--acl-entries", "0" },
      { "--acl-compare", "--acl-scan-length", "0" },
      { "--acl-compare", "--ycsb", "fieldcount=x" },
      { "--acl-compare", "--hbase", "hbase.security.authorization=false" } }) {
      PrintStream err = System.err;
      ByteArrayOutputStream captured = new ByteArrayOutputStream();
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      try {
        assertEquals(String.join(" ", args), 2, YcsbBench.run(args, System.out));
      } finally {
        System.setErr(err);
      }
      assertTrue(captured.toString(StandardCharsets.UTF_8),
        captured.toString(StandardCharsets.UTF_8).startsWith("strata bench ycsb: "));
    }
  }

  /** Every option the bench has had keeps its name (the docs and the launcher's help use them). */
  @Test
  public void theUsageNamesEveryOption() throws Exception {
    ByteArrayOutputStream usage = new ByteArrayOutputStream();
    assertEquals(0, YcsbBench.run(new String[] { "--help" },
      new PrintStream(usage, true, StandardCharsets.UTF_8)));
    String text = usage.toString(StandardCharsets.UTF_8);
    for (String o : List.of("phases", "presplit-compare", "bulkload-compare", "acl-compare",
      "acl-entries", "acl-scan-length", "acl-scan-rows", "acl-buffer-kb", "raw-lag", "clients",
      "threads", "records", "operations", "regions", "rounds", "settle-quiet-s", "settle-max-s",
      "settle-fixed-s", "raw-records", "raw-buffers-kb", "raw-target", "raw-sample",
      "rpc-compare", "rpc-transport", "rpc-threads", "rpc-workloads", "rpc-seconds",
      "rpc-rounds", "rpc-warmup-ops", "filter-compare", "filter-lengths",
      "filter-selectivities", "filter-reps", "filter-seed", "out", "monitor-ms", "stagger-ms",
      "ycsb", "json", "work-dir", "ram-mb", "datanodes", "regionservers", "hbase", "dfs",
      "help")) {
      assertTrue("--" + o + " in " + text, text.contains("--" + o + "=")
        || text.contains("--" + o + " ") || text.contains("--" + o + "]"));
    }
    assertTrue(text, text.contains("100% Get"));
  }

  @Test
  public void helpExitsZero() throws Exception {
    assertEquals(0, YcsbBench.run(new String[] { "--help" },
      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
  }
}
