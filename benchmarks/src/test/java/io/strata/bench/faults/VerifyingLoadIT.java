package io.strata.bench.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.local.TestClusters;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * The verifying load against the embedded cluster (real HDFS and HBase), a RegionServer made to
 * answer some writes late: a coprocessor holds one write in eight for longer than the impatient
 * connection's operation timeout after the write was applied, so that calls time out whose
 * writes landed. The ledger must record them ambiguous and resolve every one; the final pass,
 * after the load stopped, must check the writes acknowledged after the last verification; no
 * read may go back or return a value never written.
 */
public class VerifyingLoadIT {
  @ClassRule
  public static final TestClusters.Running CLUSTER =
    TestClusters.running(TestClusters.small("verifying-load"));

  /** The impatient connection's operation and RPC timeout. */
  private static final int IMPATIENT_MS = 400;

  /** Holds one write in eight, already applied, for longer than the impatient timeout. */
  public static final class LateAnswers implements RegionCoprocessor, RegionObserver {
    @Override
    public Optional<RegionObserver> getRegionObserver() {
      return Optional.of(this);
    }

    private static void maybeHold() {
      if (ThreadLocalRandom.current().nextInt(8) == 0) {
        try {
          Thread.sleep(3 * IMPATIENT_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void postPut(ObserverContext<RegionCoprocessorEnvironment> c, Put put, WALEdit edit,
      Durability durability) {
      maybeHold();
    }

    @Override
    public Result postIncrement(ObserverContext<RegionCoprocessorEnvironment> c,
      Increment increment, Result result) {
      maybeHold();
      return result;
    }
  }

  @Test
  public void ambiguousWritesResolveAndTheFinalPassChecksWritesAfterTheLastVerification()
    throws Exception {
    TableName table = TableName.valueOf("verifying_load");
    Connection conn = CLUSTER.hbase().connection();
    try (Admin admin = conn.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(VerifyingLoad.FAMILY))
        .setCoprocessor(LateAnswers.class.getName()).build(),
        new byte[][] { Bytes.toBytes("c"), Bytes.toBytes("i"), Bytes.toBytes("p") });
    }
    Configuration impatientConf = new Configuration(CLUSTER.hbase().configuration());
    impatientConf.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, IMPATIENT_MS);
    impatientConf.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, IMPATIENT_MS);
    try (Connection impatient = ConnectionFactory.createConnection(impatientConf);
      VerifyingLoad load = new VerifyingLoad(conn, impatient, table, 4, 128)) {
      load.start();
      Thread.sleep(10_000);
      Ledger.Verdict last = load.verify(60);
      assertTrue(last.toString(), last.verified());
      Thread.sleep(5_000);
      long ackedBeforeStop = load.ackedWrites();
      Ledger.Verdict fin = load.stopAndVerify();
      System.out.printf("last verification %s%nfinal pass %s%nreads checked %d, problems %d%n",
        last, fin, load.readsChecked(), load.readProblems());
      // The final pass sees what was acknowledged after the last verification.
      assertTrue(fin + " vs " + last, fin.acked() > last.acked());
      assertTrue(fin.toString(), fin.acked() >= ackedBeforeStop);
      assertEquals(fin.toString(), load.ackedWrites(), fin.acked());
      assertEquals(fin.toString(), fin.acked(), fin.checked());
      assertEquals(fin.toString(), 0, fin.lost());
      assertEquals(fin.toString(), 0, fin.duplicated());
      // Calls timed out whose writes had been applied: ambiguous, every one resolved.
      assertEquals(fin.toString(), load.ambiguousWrites(), fin.ambiguous());
      assertTrue(fin.toString(), fin.ambiguous() > 0);
      assertTrue(fin.toString(), fin.ambiguousLanded() > 0);
      assertEquals(fin.toString(), 0, fin.ambiguousUnresolved());
      assertTrue(fin.toString(), fin.verified());
      assertTrue("reads checked: " + load.readsChecked(), load.readsChecked() > 100);
      assertEquals(load.takeReadExamples().toString(), 0, load.readProblems());
    }
  }
}
