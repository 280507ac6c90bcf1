package io.strata.hbase.placement;

import static io.strata.hbase.placement.HBaseRootLayout.Location.ARCHIVED_STORE_FILE;
import static io.strata.hbase.placement.HBaseRootLayout.Location.OLDWAL;
import static io.strata.hbase.placement.HBaseRootLayout.Location.OTHER;
import static io.strata.hbase.placement.HBaseRootLayout.Location.STORE_FILE;
import static io.strata.hbase.placement.HBaseRootLayout.Location.WAL;
import static io.strata.hbase.placement.HBaseRootLayout.locate;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.apache.hadoop.fs.Path;
import org.junit.Test;

public class HBaseRootLayoutTest {
  private static final String REGION = "d4a5c9e2f0b1c3d5e7f9a1b3c5d7e9f1";
  private static final String HFILE = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";

  @Test
  public void walsAndRecoveredEdits() {
    assertEquals(WAL, locate("WALs/rs1,16020,1700000000000/rs1%2C16020%2C1700000000000.1"));
    assertEquals(WAL, locate("WALs/rs1,16020,1700000000000-splitting/wal.1"));
    assertEquals(WAL, locate("data/default/t/" + REGION + "/recovered.edits/0000000000000000012"));
    assertEquals(OLDWAL, locate("oldWALs/rs1%2C16020%2C1700000000000.1700000000001"));
  }

  @Test
  public void storeFilesInFamilyDirectories() {
    assertEquals(STORE_FILE, locate("data/default/t/" + REGION + "/cf/" + HFILE));
    assertEquals(STORE_FILE, locate("data/hbase/meta/1588230740/info/" + HFILE));
    assertEquals(ARCHIVED_STORE_FILE,
      locate("archive/data/default/t/" + REGION + "/cf/" + HFILE));
  }

  @Test
  public void everythingElseIsOther() {
    assertEquals(OTHER, locate("hbase.version"));
    assertEquals(OTHER, locate("data/default/t/.tabledesc/.tableinfo.0000000001.500"));
    assertEquals(OTHER, locate("data/default/t/" + REGION + "/.regioninfo"));
    // compaction output before its commit
    assertEquals(OTHER, locate("data/default/t/" + REGION + "/.tmp/cf/" + HFILE));
    // references of a split daughter and links of a clone
    assertEquals(OTHER, locate("data/default/t/" + REGION + "/cf/" + HFILE + "." + REGION));
    assertEquals(OTHER, locate("data/default/t/" + REGION + "/cf/t=" + REGION + "-" + HFILE));
    // the master's local store and its WAL
    assertEquals(OTHER, locate("MasterData/WALs/m1,16000,1/m1%2C16000%2C1.1"));
    assertEquals(OTHER, locate("MasterData/data/master/store/" + REGION + "/proc/" + HFILE));
    assertEquals(OTHER, locate("archive/data/default/t/" + REGION + "/cf/" + HFILE + "." + REGION));
    assertEquals(OTHER, locate(".hbase-snapshot/s1/.snapshotinfo"));
    assertEquals(OTHER, locate("mobdir/data/default/t/" + REGION + "/cf/" + HFILE));
  }

  @Test
  public void relativize() {
    assertEquals("WALs/a/b", HBaseRootLayout.relativize(new Path("hdfs://nn:8020/hbase"),
      new Path("/hbase/WALs/a/b")));
    assertEquals("x", HBaseRootLayout.relativize(new Path("/hbase/"), new Path("/hbase/x")));
    assertNull(HBaseRootLayout.relativize(new Path("/hbase"), new Path("/hbase2/x")));
  }
}
