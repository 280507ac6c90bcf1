package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Bad requests end the command with code 2 and a message before any cluster is contacted (the
 * options' syntax, a missing subcommand or option, is the tools entry point's: StrataToolsTest).
 */
public class PcmToolTest {
  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  /** Runs {@code sub} on table t with the options {@code set} sets; returns standard error. */
  private static String run(int expectedCode, Configuration conf, String sub,
    Consumer<PcmTool.Request> set) throws Exception {
    PcmTool.Request r = new PcmTool.Request();
    r.table = "t";
    set.accept(r);
    PrintStream err = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      assertEquals(expectedCode, PcmTool.run(sub, r, conf));
    } finally {
      System.setErr(err);
    }
    return buf.toString(StandardCharsets.UTF_8);
  }

  @Test
  public void createIsRefusedWithoutWhatItNeeds() throws Exception {
    Configuration conf = new Configuration(false);
    assertTrue(run(2, conf, "apply", r -> r.create = "f").contains("--create needs --class"));
    assertTrue(run(2, conf, "watch", r -> {
      r.workloadClass = "BL";
      r.create = "f";
    }).contains("--create goes with recommend or apply"));
    assertTrue(run(2, conf, "apply", r -> {
      r.workloadClass = "BL";
      r.create = " , ";
    }).contains("at least one column family"));
    assertTrue(run(2, conf, "apply", r -> {
      r.workloadClass = "BL";
      r.create = "f";
      r.keyRange = "user9,user0";
    }).contains("must sort before its end"));
    assertTrue(run(2, conf, "apply", r -> {
      r.workloadClass = "BL";
      r.create = "f";
      r.keyRange = "user0";
    }).contains("--key-range takes START,END"));
    assertTrue(run(2, conf, "apply", r -> r.keyRange = "a,b")
      .contains("--key-range goes with --create"));
  }

  @Test
  public void subcommandAndTableAreRequired() throws Exception {
    Configuration conf = new Configuration(false);
    assertTrue(run(2, conf, "tune", r -> { }).contains("unknown subcommand 'tune'"));
    assertTrue(run(2, conf, "classify", r -> r.table = null).contains("--table is required"));
  }

  @Test
  public void badOptionValuesAreNamed() throws Exception {
    Configuration conf = new Configuration(false);
    assertTrue(run(2, conf, "apply", r -> r.workloadClass = "Writes")
      .contains("--class 'Writes' is not a workload class"));
    assertTrue(run(2, conf, "classify", r -> r.zk = "localhost").contains("--zk takes HOST:PORT"));
    assertTrue(run(2, conf, "watch", r -> {
      r.execute = true;
      r.dryRun = true;
    }).contains("exclude each other"));
    assertTrue(run(2, conf, "classify", r -> r.maxSamples = 0L)
      .contains("--max-samples must be at least 1, not 0"));
    conf.set(PcmKeys.STABLE_WINDOWS, "0");
    assertTrue(run(2, conf, "classify", r -> { }).contains(PcmKeys.STABLE_WINDOWS));
  }

  @Test
  public void aMalformedOperatorPolicyStopsTheCommand() throws Exception {
    File dir = tmp.newFolder("policies");
    Files.write(new File(dir, "WM.properties").toPath(),
      "hbase.hstore.blockingStoreFiles=many\n".getBytes(StandardCharsets.UTF_8));
    Configuration conf = new Configuration(false);
    conf.set(PcmKeys.POLICY_DIR, dir.getPath());
    String err = run(2, conf, "recommend", r -> r.workloadClass = "WM");
    assertTrue(err, err.contains(new File(dir, "WM.properties").getPath()));
    assertTrue(err, err.contains("key hbase.hstore.blockingStoreFiles"));
    assertTrue(err, err.contains("not a number"));
  }
}
