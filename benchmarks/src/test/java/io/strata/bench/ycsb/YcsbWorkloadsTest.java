package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.Test;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/** The shipped workload files are YCSB core workloads YCSB 0.17.0 accepts. */
public class YcsbWorkloadsTest {

  private static Properties load(String name) throws Exception {
    Properties p = new Properties();
    try (InputStream in = YcsbWorkloads.open(name)) {
      p.load(in);
    }
    return p;
  }

  private static double proportion(Properties p, String key) {
    return Double.parseDouble(p.getProperty(key, "0"));
  }

  @Test
  public void everyWorkloadIsAValidCoreWorkload() throws Exception {
    for (String name : YcsbWorkloads.ALL) {
      Properties p = load(name);
      assertEquals(name, CoreWorkload.class.getName(), p.getProperty("workload"));
      double sum = 0;
      for (String op : new String[] { "read", "update", "insert", "scan", "readmodifywrite" }) {
        sum += proportion(p, op + "proportion");
      }
      assertEquals(name, 1.0, sum, 1e-9);
      Measurements.setProperties(p);
      new CoreWorkload().init(p);
    }
  }

  @Test
  public void updateOnlyIsWorkloadAWithoutReads() throws Exception {
    Properties a = load(YcsbWorkloads.A);
    Properties u = load(YcsbWorkloads.UPDATE_ONLY);
    assertEquals(0.0, proportion(u, "readproportion"), 0);
    assertEquals(1.0, proportion(u, "updateproportion"), 0);
    for (String key : new String[] { "requestdistribution", "readallfields", "recordcount" }) {
      assertEquals(key, a.getProperty(key), u.getProperty(key));
    }
  }

  @Test
  public void writeCopiesTheFile() throws Exception {
    Path dir = Files.createTempDirectory("ycsb-workloads");
    Path f = YcsbWorkloads.write(YcsbWorkloads.C, dir);
    assertTrue(Files.readString(f).contains("readproportion=1"));
    assertTrue(Files.readString(f).startsWith("# From YCSB 0.17.0"));
  }
}
