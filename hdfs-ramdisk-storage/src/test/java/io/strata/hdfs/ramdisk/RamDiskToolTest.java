package io.strata.hdfs.ramdisk;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.Test;

public class RamDiskToolTest {

  private static File dir() {
    return new File("/dev/shm/strata-ramdisk-test-" + UUID.randomUUID());
  }

  @Test
  public void preparesTheDirectoryAndPrintsTheDataDirEntry() throws Exception {
    File dir = dir();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      int code = RamDiskTool.run(new String[] { "--size-mb", "64", "--dir", dir.getPath() },
        new PrintStream(out, true, StandardCharsets.UTF_8));
      assertEquals(0, code);
      assertTrue(dir.isDirectory());
      assertTrue(out.toString(), out.toString().contains("[NVDIMM]" + dir.getAbsolutePath()));
      assertTrue(RamDiskDirectory.prepare(dir, 1).isRamBacked());
    } finally {
      dir.delete();
    }
  }

  @Test
  public void refusesMoreThanTheMachineHasAndLeavesNothingBehind() throws Exception {
    File dir = dir();
    long tooMuch = Math.max(RamDiskTool.availableMemoryBytes(), dir.getParentFile()
      .getUsableSpace()) / (1 << 20) + 1024;
    int code = RamDiskTool.run(new String[] { "--size-mb", Long.toString(tooMuch), "--dir",
      dir.getPath() }, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertEquals(1, code);
    assertFalse(dir.exists());
  }

  @Test
  public void sizeIsRequired() throws Exception {
    assertEquals(2, RamDiskTool.run(new String[0],
      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
  }
}
