package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Usage errors end the command with code 2 and a message before any cluster is contacted. */
public class PcmToolTest {
  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  private static String run(int expectedCode, Configuration conf, String... args)
    throws Exception {
    PrintStream err = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      assertEquals(expectedCode, PcmTool.run(args, conf));
    } finally {
      System.setErr(err);
    }
    return buf.toString(StandardCharsets.UTF_8);
  }

  @Test
  public void createIsRefusedWithoutWhatItNeeds() throws Exception {
    Configuration conf = new Configuration(false);
    assertTrue(run(2, conf, "apply", "--table", "t", "--create", "f").contains("--create needs "
      + "--class"));
    assertTrue(run(2, conf, "watch", "--table", "t", "--class", "BL", "--create", "f")
      .contains("--create goes with recommend or apply"));
    assertTrue(run(2, conf, "apply", "--table", "t", "--class", "BL", "--create", " , ")
      .contains("at least one column family"));
    assertTrue(run(2, conf, "apply", "--table", "t", "--class", "BL", "--create", "f",
      "--key-range", "user9,user0").contains("must sort before its end"));
    assertTrue(run(2, conf, "apply", "--table", "t", "--class", "BL", "--create", "f",
      "--key-range", "user0").contains("--key-range takes START,END"));
    assertTrue(run(2, conf, "apply", "--table", "t", "--key-range", "a,b")
      .contains("--key-range goes with --create"));
  }

  @Test
  public void subcommandAndTableAreRequired() throws Exception {
    Configuration conf = new Configuration(false);
    assertTrue(run(2, conf).contains("a subcommand first"));
    assertTrue(run(2, conf, "tune", "--table", "t").contains("unknown subcommand 'tune'"));
    assertTrue(run(2, conf, "classify").contains("--table is required"));
  }

  @Test
  public void badOptionValuesAreNamed() throws Exception {
    Configuration conf = new Configuration(false);
    assertTrue(run(2, conf, "apply", "--table", "t", "--class", "Writes")
      .contains("--class 'Writes' is not a workload class"));
    assertTrue(run(2, conf, "classify", "--table", "t", "--zk", "localhost")
      .contains("--zk takes HOST:PORT"));
    assertTrue(run(2, conf, "watch", "--table", "t", "--execute", "--dry-run")
      .contains("exclude each other"));
    conf.set(PcmKeys.STABLE_WINDOWS, "0");
    assertTrue(run(2, conf, "classify", "--table", "t").contains(PcmKeys.STABLE_WINDOWS));
  }

  @Test
  public void aMalformedOperatorPolicyStopsTheCommand() throws Exception {
    File dir = tmp.newFolder("policies");
    Files.write(new File(dir, "WM.properties").toPath(),
      "hbase.hstore.blockingStoreFiles=many\n".getBytes(StandardCharsets.UTF_8));
    Configuration conf = new Configuration(false);
    conf.set(PcmKeys.POLICY_DIR, dir.getPath());
    String err = run(2, conf, "recommend", "--table", "t", "--class", "WM");
    assertTrue(err, err.contains(new File(dir, "WM.properties").getPath()));
    assertTrue(err, err.contains("key hbase.hstore.blockingStoreFiles"));
    assertTrue(err, err.contains("not a number"));
  }
}
