package io.strata.bench.common;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/**
 * Every bench's Result record carries the four labels of a kept result (docs/benchmarks.md):
 * components {@code commit}, {@code date}, {@code transport} and {@code emulation}, Strings
 * written under those JSON names, in that order, and no ignore list that would read them and drop
 * them. The records are listed by name: a bench whose record is added here is checked.
 */
public class ResultLabelsTest {
  /** The Result records that label themselves. */
  static final List<String> RESULTS = List.of("io.strata.bench.ycsb.YcsbResult",
    "io.strata.bench.walsync.WalSyncResult", "io.strata.bench.media.MediaResult",
    "io.strata.bench.rpc.RpcResult", "io.strata.bench.chooser.ChooserResult",
    "io.strata.bench.dnlocks.DnLocksResult", "io.strata.bench.writetail.WriteTailResult",
    "io.strata.bench.verbs.HybridRpcResult", "io.strata.bench.compare.CompareResult",
    "io.strata.bench.faults.ChaosResult", "io.strata.bench.pcm.PcmResult");

  static final List<String> LABELS = List.of("commit", "date", "transport", "emulation");

  @Test
  public void everyResultRecordHasTheFourLabels() throws Exception {
    for (String name : RESULTS) {
      Class<?> type = Class.forName(name);
      assertTrue(name + " is not a record", type.isRecord());
      List<String> jsonNames = new ArrayList<>();
      for (RecordComponent c : type.getRecordComponents()) {
        // @JsonProperty does not target record components: javac puts it on the field.
        JsonProperty p = type.getDeclaredField(c.getName()).getAnnotation(JsonProperty.class);
        String json = p != null ? p.value() : c.getName();
        jsonNames.add(json);
        assertNotNull(name + "." + c.getName() + " has no @JsonProperty", p);
        if (LABELS.contains(json)) {
          assertEquals(name + "." + c.getName(), String.class, c.getType());
          assertEquals(name + "." + c.getName() + " is written as " + json, json, c.getName());
        }
      }
      int last = -1;
      for (String label : LABELS) {
        int at = jsonNames.indexOf(label);
        assertTrue(name + " has no " + label + ": " + jsonNames, at >= 0);
        assertTrue(name + " has " + label + " out of order: " + jsonNames, at > last);
        last = at;
      }
      JsonIgnoreProperties ignored = type.getAnnotation(JsonIgnoreProperties.class);
      if (ignored != null) {
        for (String label : LABELS) {
          assertTrue(name + " ignores " + label, !Arrays.asList(ignored.value()).contains(label));
        }
      }
    }
  }

  /**
   * The commit comes from the tree ./strata names in strata.source.dir, the same for every bench;
   * without it (a bench run otherwise) it is unknown.
   */
  @Test
  public void theCommitIsTheLaunchersSourceTrees() throws Exception {
    String before = System.getProperty(RunLabels.SOURCE_DIR_PROPERTY);
    try {
      System.clearProperty(RunLabels.SOURCE_DIR_PROPERTY);
      assertNull(RunLabels.sourceDir());
      assertEquals(RunLabels.UNKNOWN, RunLabels.launcherCommit());
      assertEquals(RunLabels.UNKNOWN, RunLabels.now("netty", "none").commit());
      String tree = LabelAssertions.sourceTree().getPath();
      System.setProperty(RunLabels.SOURCE_DIR_PROPERTY, tree);
      assertNotNull(RunLabels.sourceDir());
      assertEquals(RunLabels.commit(LabelAssertions.sourceTree()), RunLabels.launcherCommit());
      assertEquals(RunLabels.launcherCommit(), LabelAssertions.asLaunched(
        RunLabels::launcherCommit));
    } finally {
      if (before == null) {
        System.clearProperty(RunLabels.SOURCE_DIR_PROPERTY);
      } else {
        System.setProperty(RunLabels.SOURCE_DIR_PROPERTY, before);
      }
    }
  }

  @Test
  public void transportsAreNamedInTheDocsVocabulary() {
    assertEquals("loopback vs netty", RunLabels.versusNetty("loopback"));
    assertEquals("verbs-softroce vs netty", RunLabels.versusNetty("verbs"));
    assertEquals("netty", RunLabels.clientTransport(k -> null));
    assertEquals("netty", RunLabels.clientTransport(k -> k.equals("strata.rdma.transport")
      ? "loopback" : null));
    assertEquals("loopback", RunLabels.clientTransport(k -> k.equals("strata.rdma.transport")
      ? "loopback" : "org.apache.hadoop.hbase.ipc.HybridRpcClient"));
    assertEquals("in-process", RunLabels.inProcessIf(true));
    assertEquals("none", RunLabels.inProcessIf(false));
  }
}
