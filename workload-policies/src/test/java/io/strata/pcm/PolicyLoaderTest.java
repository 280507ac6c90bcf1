package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Every shipped policy parses; a malformed one is refused naming its file, key and reason. */
public class PolicyLoaderTest {
  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void everyShippedPolicyParses() throws IOException {
    Map<WorkloadClass, Policy> all = PolicyLoader.load(null);
    assertEquals(WorkloadClass.values().length, all.size());
    for (Policy p : all.values()) {
      assertTrue(p.source(), p.source().startsWith("classpath:io/strata/pcm/policies/"));
      assertNotNull(p.workload() + " heap", p.get(PolicyKey.HEAP_RAM_FRACTION));
      assertNotNull(p.workload() + " memstore", p.get(PolicyKey.GLOBAL_MEMSTORE));
      assertNotNull(p.workload() + " cache", p.get(PolicyKey.BLOCK_CACHE));
    }
  }

  @Test
  public void shippedPoliciesCarryThePapersValues() throws IOException {
    Map<WorkloadClass, Policy> all = PolicyLoader.load(null);
    // Table IV: BL/WO/WM memstore 0.6/0.6/0.5, cache 0.1/0.1/0.2.
    assertEquals("0.6", all.get(WorkloadClass.BL).get(PolicyKey.GLOBAL_MEMSTORE).raw());
    assertEquals("0.1", all.get(WorkloadClass.WO_UPDATE).get(PolicyKey.BLOCK_CACHE).raw());
    assertEquals("0.2", all.get(WorkloadClass.WM).get(PolicyKey.BLOCK_CACHE).raw());
    // Table V: RO cache 0.6, RM 0.5; point reads small blocks, scans big ones.
    assertEquals("0.6", all.get(WorkloadClass.RO_SCAN).get(PolicyKey.BLOCK_CACHE).raw());
    assertEquals("0.5", all.get(WorkloadClass.RM).get(PolicyKey.BLOCK_CACHE).raw());
    assertEquals("16KB", all.get(WorkloadClass.RO_READ).get(PolicyKey.BLOCKSIZE).raw());
    assertEquals("128KB", all.get(WorkloadClass.RO_SCAN).get(PolicyKey.BLOCKSIZE).raw());
    // Table VI: MixRW/MixR/MixW memstore 0.4/0.3/0.5.
    assertEquals("0.4", all.get(WorkloadClass.MIX_RW).get(PolicyKey.GLOBAL_MEMSTORE).raw());
    assertEquals("0.3", all.get(WorkloadClass.MIX_R).get(PolicyKey.GLOBAL_MEMSTORE).raw());
    assertEquals("0.5", all.get(WorkloadClass.MIX_W).get(PolicyKey.GLOBAL_MEMSTORE).raw());
    // Only the bulk load pre-splits and keeps its regions.
    assertEquals("org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy",
      all.get(WorkloadClass.BL).get(PolicyKey.SPLIT_POLICY).raw());
    assertEquals(null, all.get(WorkloadClass.WO_INSERT).get(PolicyKey.PRESPLIT_PER_SERVER));
  }

  private File write(String name, String body) throws IOException {
    File dir = tmp.getRoot();
    File f = new File(dir, name);
    Files.write(f.toPath(), body.getBytes(StandardCharsets.UTF_8));
    return dir;
  }

  private void assertRefused(String name, String body, String... inMessage) throws IOException {
    File dir = write(name, body);
    try {
      PolicyLoader.load(dir);
      fail("loaded " + name);
    } catch (PolicyLoader.PolicyException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(new File(dir, name).toString()));
      for (String s : inMessage) {
        assertTrue(e.getMessage() + " lacks " + s, e.getMessage().contains(s));
      }
    }
  }

  @Test
  public void anOperatorFileReplacesTheShippedPolicy() throws IOException {
    File dir = write("RO-Read.properties", "# point reads, smaller still\nBLOCKSIZE = 8KB\n"
      + "hfile.block.cache.size=0.5\n" + "hbase.regionserver.global.memstore.size=0.2\n");
    Map<WorkloadClass, Policy> all = PolicyLoader.load(dir);
    Policy p = all.get(WorkloadClass.RO_READ);
    assertEquals(new File(dir, "RO-Read.properties").toString(), p.source());
    assertEquals("8KB", p.get(PolicyKey.BLOCKSIZE).raw());
    assertEquals("0.2", p.get(PolicyKey.GLOBAL_MEMSTORE).raw());
    assertEquals(null, p.get(PolicyKey.HEAP_RAM_FRACTION)); // replaced whole, not merged
    assertTrue(all.get(WorkloadClass.BL).source().startsWith("classpath:"));
  }

  @Test
  public void unknownKeyIsRefused() throws IOException {
    assertRefused("BL.properties", "hbase.hregion.memstore.flush.sise=128MB*X\n",
      "key hbase.hregion.memstore.flush.sise", "unknown key", "line 1");
  }

  @Test
  public void wrongValuesAreRefused() throws IOException {
    assertRefused("WM.properties", "hfile.block.cache.size=1.2\n", "key hfile.block.cache.size",
      "fraction");
    tmp.delete();
    tmp.create();
    assertRefused("WM.properties", "hbase.hregion.memstore.flush.size=lots\n",
      "key hbase.hregion.memstore.flush.size", "not a number");
    tmp.delete();
    tmp.create();
    assertRefused("MixR.properties", "hbase.regionserver.region.split.policy=SplitAlways\n",
      "key hbase.regionserver.region.split.policy", "split policies");
    tmp.delete();
    tmp.create();
    assertRefused("RM.properties", "strata.flush.storage.policy=FAST\n",
      "key strata.flush.storage.policy", "storage policy");
    tmp.delete();
    tmp.create();
    assertRefused("RO-Scan.properties", "BLOCKSIZE=64MB\n", "key BLOCKSIZE", "16MB");
  }

  @Test
  public void repeatedKeyIsRefused() throws IOException {
    assertRefused("MixW.properties", "BLOCKSIZE=32KB\n\nBLOCKSIZE=64KB\n", "key BLOCKSIZE",
      "set twice", "line 3");
  }

  @Test
  public void lineWithoutValueIsRefused() throws IOException {
    assertRefused("MixW.properties", "BLOCKSIZE\n", "line 1", "not key=value");
    tmp.delete();
    tmp.create();
    assertRefused("MixW.properties", "BLOCKSIZE=\n", "key BLOCKSIZE", "no value");
  }

  @Test
  public void fileForNoClassIsRefused() throws IOException {
    assertRefused("ReadHeavy.properties", "BLOCKSIZE=32KB\n", "not a workload class", "RO-Read");
  }

  @Test
  public void heapSharesHBaseWouldRefuseAreRefused() throws IOException {
    assertRefused("BL.properties", "hbase.regionserver.global.memstore.size=0.6\n"
      + "hfile.block.cache.size=0.3\n", "key hbase.regionserver.global.memstore.size", "0.8");
  }

  @Test
  public void emptyFileIsRefused() throws IOException {
    assertRefused("BL.properties", "# nothing\n", "sets nothing");
  }
}
