package io.strata.hdfs.sps;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.strata.hdfs.HdfsKeys;
import org.apache.hadoop.conf.Configuration;
import org.junit.Test;

/** The satisfier journal's directory: an absolute HDFS path, refused otherwise naming the key. */
public class SatisfierJournalDirTest {
  @Test
  public void defaultsUnderSystem() {
    assertEquals("/system/strata-sps/held", HdfsKeys.spsJournalDir(new Configuration(false)));
  }

  @Test
  public void takesAnAbsolutePath() {
    Configuration conf = new Configuration(false);
    conf.set(HdfsKeys.SPS_JOURNAL_DIR, " /ops/sps-journal ");
    assertEquals("/ops/sps-journal", HdfsKeys.spsJournalDir(conf));
  }

  @Test
  public void refusesARelativePathOrTheRoot() {
    for (String bad : new String[] { "sps/held", "/", "" }) {
      Configuration conf = new Configuration(false);
      conf.set(HdfsKeys.SPS_JOURNAL_DIR, bad);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> HdfsKeys.spsJournalDir(conf));
      assertTrue(e.getMessage(), e.getMessage().contains(HdfsKeys.SPS_JOURNAL_DIR));
      assertTrue(e.getMessage(), e.getMessage().contains("'" + bad + "'"));
    }
  }
}
