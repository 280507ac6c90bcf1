package io.strata.tools.install;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.tools.StrataTools;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.Before;
import org.junit.Test;
import picocli.CommandLine;

/**
 * install-check on a secure HA cluster's files (AccessController, TokenProvider,
 * VisibilityController, four [DISK] volumes, two NameNodes): everything the cluster had stays,
 * Strata's keys are added or appended, and what cannot be merged safely is refused with a reason.
 * Copying the old full templates over such files (what INSTALL said before) dropped the security
 * coprocessors and replaced the data directories.
 */
public class InstallCheckTest {
  private static final String SAMPLE = "src/test/resources/secure-cluster";
  private File live;
  private File out;
  private StringWriter output;

  @Before
  public void copySample() throws Exception {
    File dir = Files.createTempDirectory("install-check").toFile();
    live = new File(dir, "live");
    out = new File(dir, "merged");
    live.mkdirs();
    for (String f : InstallCheck.FILES) {
      Files.copy(Path.of(SAMPLE, f), new File(live, f).toPath());
    }
  }

  private int run(String... args) {
    output = new StringWriter();
    CommandLine cl = new CommandLine(new StrataTools());
    cl.setOut(new PrintWriter(output));
    cl.setErr(new PrintWriter(output));
    return cl.execute(args);
  }

  private static Map<String, String> props(File f) throws Exception {
    return ConfigMerge.properties(DocumentBuilderFactory.newInstance().newDocumentBuilder()
      .parse(f));
  }

  @Test
  public void aSecureHaClusterKeepsEverythingAndGainsStrata() throws Exception {
    assertEquals(output(), 0, run("install-check", "--conf-dir", live.getPath(), "--out",
      out.getPath(), "--data-dir", "NVDIMM=/mnt/pmem0/dn", "--data-dir", "SSD=/data/ssd1/dn"));
    for (String f : InstallCheck.FILES) {
      Map<String, String> before = props(new File(live, f));
      Map<String, String> after = props(new File(out, f));
      for (Map.Entry<String, String> e : before.entrySet()) {
        String key = e.getKey();
        if (ConfigMerge.LIST_KEYS.contains(key)) {
          // Appended to: what was there stays first, in its order.
          assertTrue(f + " " + key + ": " + after.get(key),
            after.get(key).startsWith(e.getValue().trim() + ","));
        } else {
          assertEquals(f + " " + key + " changed", e.getValue(), after.get(key));
        }
      }
      // The live files are never written.
      assertEquals(Files.readString(Path.of(SAMPLE, f)),
        Files.readString(new File(live, f).toPath()));
    }
    Map<String, String> hbase = props(new File(out, "hbase-site.xml"));
    assertEquals("org.apache.hadoop.hbase.security.access.AccessController,"
      + "org.apache.hadoop.hbase.security.visibility.VisibilityController,"
      + "io.strata.hbase.tiering.TieringValidator", hbase.get("hbase.coprocessor.master.classes"));
    assertEquals("org.apache.hadoop.hbase.security.token.TokenProvider,"
      + "org.apache.hadoop.hbase.security.access.AccessController,"
      + "org.apache.hadoop.hbase.security.visibility.VisibilityController,"
      + "io.strata.hbase.tiering.PlacementOffWarning",
      hbase.get("hbase.coprocessor.region.classes"));
    assertEquals("org.apache.hadoop.hbase.security.access.AccessController,"
      + "io.strata.hbase.tiering.WalDurabilityGuard",
      hbase.get("hbase.coprocessor.regionserver.classes"));
    assertEquals("io.strata.hbase.tiering.TieredStoreEngine", hbase.get("hbase.hstore.engine.class"));
    assertEquals("RAM_SSD", hbase.get("hbase.wal.storage.policy"));
    assertEquals("true", hbase.get("dfs.client.retry.policy.enabled"));
    assertEquals("the hybrid client is opt-in per client", null, hbase.get("hbase.rpc.client.impl"));
    Map<String, String> hdfs = props(new File(out, "hdfs-site.xml"));
    assertEquals("[DISK]/data/1/dn,[DISK]/data/2/dn,[DISK]/data/3/dn,[DISK]/data/4/dn,"
      + "[NVDIMM]/mnt/pmem0/dn,[SSD]/data/ssd1/dn", hdfs.get("dfs.datanode.data.dir"));
    assertEquals("io.strata.hdfs.chooser.LatencyAwareVolumeChoosingPolicy",
      hdfs.get("dfs.datanode.fsdataset.volume.choosing.policy"));
    assertEquals("NVDIMM,SSD,SSD", hdfs.get("strata.storage.policy.RAM_SSD.storage-types"));
    assertEquals(props(new File(live, "core-site.xml")), props(new File(out, "core-site.xml")));
    String report = Files.readString(new File(out, "install-check.txt").toPath());
    assertTrue(report, report.contains("every key merged"));
    assertTrue(report, report.contains("APPENDED hbase.coprocessor.region.classes"));
  }

  @Test
  public void aSecondRunChangesNothing() throws Exception {
    assertEquals(0, run("install-check", "--conf-dir", live.getPath(), "--out", out.getPath(),
      "--data-dir", "SSD=/data/ssd1/dn"));
    File again = new File(out.getParentFile(), "again");
    assertEquals(output(), 0, run("install-check", "--conf-dir", out.getPath(), "--out",
      again.getPath(), "--data-dir", "SSD=/data/ssd1/dn"));
    for (String f : InstallCheck.FILES) {
      assertEquals(f, props(new File(out, f)), props(new File(again, f)));
    }
    assertTrue(output(), !output().contains("ADDED") && !output().contains("APPENDED"));
  }

  @Test
  public void whatCannotBeMergedSafelyIsRefusedWithAReason() throws Exception {
    File hbase = new File(live, "hbase-site.xml");
    Files.writeString(hbase.toPath(), Files.readString(hbase.toPath()).replace("</configuration>",
      "  <property><name>hbase.hstore.engine.class</name>"
        + "<value>com.example.OurStoreEngine</value></property>\n</configuration>"));
    assertEquals(output(), 1, run("install-check", "--conf-dir", live.getPath(), "--out",
      out.getPath(), "--data-dir", "SSD=/data/2/dn"));
    String report = output();
    assertTrue(report, report.contains("REFUSED  hbase.hstore.engine.class: the live file sets "
      + "com.example.OurStoreEngine, Strata needs io.strata.hbase.tiering.TieredStoreEngine"));
    assertTrue(report, report.contains("REFUSED  dfs.datanode.data.dir: /data/2/dn is already a "
      + "[DISK] volume"));
    Map<String, String> merged = props(new File(out, "hbase-site.xml"));
    assertEquals("com.example.OurStoreEngine", merged.get("hbase.hstore.engine.class"));
    assertEquals(props(new File(live, "hdfs-site.xml")).get("dfs.datanode.data.dir"),
      props(new File(out, "hdfs-site.xml")).get("dfs.datanode.data.dir"));
  }

  @Test
  public void dataDirectoriesAreNeverListedWhereTheClusterHadItsDefault() throws Exception {
    File hdfs = new File(live, "hdfs-site.xml");
    Files.writeString(hdfs.toPath(), Files.readString(hdfs.toPath()).replaceAll(
      "(?s)  <property>\\s*<name>dfs.datanode.data.dir</name>.*?</property>\n", ""));
    assertEquals(1, run("install-check", "--conf-dir", live.getPath(), "--out", out.getPath(),
      "--data-dir", "SSD=/data/ssd1/dn"));
    assertTrue(output(), output().contains("REFUSED  dfs.datanode.data.dir: the live file does "
      + "not set it"));
    assertEquals(null, props(new File(out, "hdfs-site.xml")).get("dfs.datanode.data.dir"));
  }

  @Test
  public void badInputIsRefusedBeforeAnythingIsWritten() throws Exception {
    assertEquals(2, run("install-check", "--conf-dir", live.getPath(), "--out", live.getPath()));
    assertTrue(output(), output().contains("is a live configuration directory"));
    assertEquals(2, run("install-check", "--conf-dir", live.getPath(), "--out", out.getPath(),
      "--data-dir", "FLASH=/x"));
    assertTrue(output(), output().contains("TYPE one of"));
    new File(live, "hbase-site.xml").delete();
    assertEquals(2, run("install-check", "--conf-dir", live.getPath(), "--out", out.getPath()));
    assertTrue(output(), output().contains("no hbase-site.xml in"));
  }

  private String output() {
    return output == null ? "" : output.toString();
  }
}
