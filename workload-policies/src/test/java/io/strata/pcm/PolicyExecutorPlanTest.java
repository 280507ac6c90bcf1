package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Which settings become descriptor changes, which a restart plan, against real descriptors. */
public class PolicyExecutorPlanTest {
  private static final long GIB = 1L << 30;

  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  private static TableDescriptor table() {
    return TableDescriptorBuilder.newBuilder(TableName.valueOf("t"))
      .setValue("MAX_FILESIZE", Long.toString(10 * GIB)) // already what WO asks for
      .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("a"))
        .setConfiguration(PolicyKey.BLOCKING_STORE_FILES, "16").build())
      .setColumnFamily(ColumnFamilyDescriptorBuilder.of("b")).build();
  }

  private static PolicyExecutor.Plan plan(WorkloadClass c) throws IOException {
    Recommendation r = new AdaptationManager(PolicyLoader.load(null)).recommend(c,
      new ClusterFacts(3, 2 * GIB, 0, 0, 1));
    return PolicyExecutor.plan(table(), r);
  }

  @Test
  public void writeOnlyChangesTableAndEveryFamilyButNotTheHeap() throws IOException {
    PolicyExecutor.Plan p = plan(WorkloadClass.WO_INSERT);
    List<String> where = p.changes().stream().map(Change::where).collect(Collectors.toList());
    assertTrue(where.toString(), where.contains("table MEMSTORE_FLUSHSIZE"));
    assertTrue(where.contains("table " + PolicyKey.BLOCK_MULTIPLIER));
    assertTrue(where.contains("table SPLIT_POLICY"));
    assertTrue("unchanged values are no change", !where.contains("table MAX_FILESIZE"));
    for (String f : new String[] { "a", "b" }) {
      assertTrue(where.contains("family " + f + " CONFIGURATION " + PolicyKey.COMPACTION_MIN));
      assertTrue(where.contains("family " + f + " CONFIGURATION " + PolicyKey.COMPACTION_MAX));
      assertTrue(where.contains("family " + f + " strata.compaction.storage.policy.large"));
    }
    Change blocking = p.changes().stream().filter(c -> c.where().equals("family a CONFIGURATION "
      + PolicyKey.BLOCKING_STORE_FILES)).findFirst().orElseThrow();
    assertEquals("16", blocking.before());
    assertEquals("20", blocking.after()); // 10 x X, X = 2
    assertEquals(Long.toString(256L << 20), p.changes().stream()
      .filter(c -> c.key().equals("MEMSTORE_FLUSHSIZE")).findFirst().orElseThrow().after());
    List<String> restart = p.restart().stream().map(Recommendation.Setting::target)
      .collect(Collectors.toList());
    assertEquals(List.of("HBASE_HEAPSIZE", PolicyKey.GLOBAL_MEMSTORE_LOWER), restart);
    assertTrue(p.changes().stream().noneMatch(c -> restart.contains(c.key())));
    // The heap shares and the class go to table values, for PcmHeapTuner on the RegionServers.
    assertEquals("0.6", after(p, PcmKeys.TABLE_MEMSTORE_SHARE));
    assertEquals("0.1", after(p, PcmKeys.TABLE_BLOCKCACHE_SHARE));
    assertEquals("WO-Insert", after(p, PcmKeys.TABLE_CLASS));
  }

  private static String after(PolicyExecutor.Plan p, String tableKey) {
    return p.changes().stream().filter(c -> c.where().equals("table " + tableKey)).findFirst()
      .orElseThrow().after();
  }

  @Test
  public void theRestartPlanHoldsSiteKeysHeapAndReason() throws IOException {
    PolicyExecutor.Plan p = plan(WorkloadClass.RO_READ);
    File out = new File(tmp.getRoot(), "t.restart-plan.txt");
    PolicyExecutor.writeRestartPlan(p, out);
    String text = new String(Files.readAllBytes(out.toPath()), StandardCharsets.UTF_8);
    assertTrue(text, text.contains("<name>" + PolicyKey.GLOBAL_MEMSTORE_LOWER
      + "</name><value>0.8</value>"));
    // The shares are applied online by the tuner; the plan says so and gives the site values for
    // RegionServers without it.
    assertTrue(text, text.contains("Applied online, no restart"));
    assertTrue(text, text.contains("#   hfile.block.cache.size = 0.6 (table value "
      + PcmKeys.TABLE_BLOCKCACHE_SHARE + ")"));
    assertTrue(text, text.contains("#   " + PolicyKey.GLOBAL_MEMSTORE + " = 0.1"));
    assertTrue(text, !text.contains("<name>hfile.block.cache.size</name>"));
    assertTrue(text, text.contains("export HBASE_HEAPSIZE=2048m"));
    // The host's memory is unknown here: the plan says the heap is the current one, not 0.75 x RAM.
    assertTrue(text, text.contains("the current heap: set " + PcmKeys.NODE_RAM_BYTES));
    assertTrue(text, text.contains("Not applied"));
    assertTrue(text, text.contains("rolling-restart"));
  }

  @Test
  public void theInverseSwapsBeforeAndAfter() {
    Change c = new Change(Scope.FAMILY, "a", "BLOCKSIZE", null, "16384");
    assertNull(c.inverse().after());
    assertEquals("16384", c.inverse().before());
  }
}
