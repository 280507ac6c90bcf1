package io.strata.hdfs.ramdisk;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.List;
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
      int code = RamDiskTool.prepare(64, dir, new PrintStream(out, true, StandardCharsets.UTF_8));
      assertEquals(0, code);
      assertTrue(dir.isDirectory());
      assertTrue(out.toString(), out.toString().contains("[NVDIMM]" + dir.getAbsolutePath()));
      assertTrue(RamDiskDirectory.prepare(dir, 1).isRamBacked());
      // /dev/shm is tmpfs: said to be volatile, with the WAL consequence
      assertTrue(out.toString(), out.toString().contains("(tmpfs, ")
        && out.toString().contains("volatile memory, replicas on it are lost when the host "
          + "reboots"));
    } finally {
      dir.delete();
    }
  }

  @Test
  public void refusesMoreThanTheMachineHasAndLeavesNothingBehind() throws Exception {
    File dir = dir();
    long tooMuch = Math.max(RamDiskTool.availableMemoryBytes(), dir.getParentFile()
      .getUsableSpace()) / (1 << 20) + 1024;
    int code = RamDiskTool.prepare(tooMuch, dir,
      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertEquals(1, code);
    assertFalse(dir.exists());
  }

  @Test
  public void sizeMustBePositive() throws Exception {
    assertEquals(2, RamDiskTool.prepare(0, dir(),
      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
  }

  @Test
  public void tellsTmpfsFromADaxMountByProcMounts() {
    List<String> mounts = List.of(
      "/dev/sda1 / ext4 rw,relatime 0 0",
      "tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0",
      "/dev/pmem0 /mnt/pmem ext4 rw,relatime,dax=always 0 0",
      "/dev/pmem1 /mnt/pmem1 xfs rw,dax 0 0",
      "/dev/pmem2 /mnt/pmem2 ext4 rw,dax=never 0 0",
      "none /mnt/ram ramfs rw 0 0");
    assertEquals(RamDiskDirectory.Durability.VOLATILE,
      RamDiskDirectory.mountOf(Paths.get("/dev/shm/strata"), mounts).durability());
    assertEquals(RamDiskDirectory.Durability.VOLATILE,
      RamDiskDirectory.mountOf(Paths.get("/mnt/ram/x"), mounts).durability());
    RamDiskDirectory.Mount pmem = RamDiskDirectory.mountOf(Paths.get("/mnt/pmem/dn0"), mounts);
    assertEquals("/mnt/pmem", pmem.mountPoint());
    assertEquals(RamDiskDirectory.Durability.PERSISTENT_MEMORY, pmem.durability());
    assertEquals(RamDiskDirectory.Durability.PERSISTENT_MEMORY,
      RamDiskDirectory.mountOf(Paths.get("/mnt/pmem1/dn0"), mounts).durability());
    assertEquals(RamDiskDirectory.Durability.BLOCK_DEVICE,
      RamDiskDirectory.mountOf(Paths.get("/mnt/pmem2/dn0"), mounts).durability());
    assertEquals(RamDiskDirectory.Durability.BLOCK_DEVICE,
      RamDiskDirectory.mountOf(Paths.get("/data/dn0"), mounts).durability());
    String line = RamDiskTool.durabilityLine(new File("/mnt/pmem/dn0"), pmem);
    assertTrue(line, line.contains("(ext4, rw,relatime,dax=always): persistent memory (DAX "
      + "mount)") && line.contains("strata.ram.tier.persistent=true"));
  }
}
