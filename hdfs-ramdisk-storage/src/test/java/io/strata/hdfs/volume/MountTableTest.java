package io.strata.hdfs.volume;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import org.junit.Test;

public class MountTableTest {
  private static final MountTable TABLE = MountTable.parse(Arrays.asList(
    "22 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro",
    "43 22 7:0 / /data/ssd rw,noatime shared:30 - ext4 /dev/loop0 rw,errors=remount-ro,emergency_ro",
    "44 22 7:1 / /data/disk rw,noatime - ext4 /dev/loop1 rw",
    "45 44 7:2 / /data/disk/archive ro,noatime - ext4 /dev/loop2 ro",
    "46 22 7:3 / /data/with\\040space rw - xfs /dev/loop3 rw,attr2",
    "47 22 0:50 / /data/ram rw,nosuid shared:9 master:2 - tmpfs tmpfs rw,size=1g",
    "a line the kernel would never write"));

  @Test
  public void findsTheLongestMountPointHoldingADirectory() {
    assertEquals("/data/disk/archive",
      TABLE.mountOf(Paths.get("/data/disk/archive/dn/current")).mountPoint());
    assertEquals("/data/disk", TABLE.mountOf(Paths.get("/data/disk/dn")).mountPoint());
    assertEquals("/data/disk", TABLE.mountOf(Paths.get("/data/disk")).mountPoint());
    // A sibling whose name starts like a mount point is not under it.
    assertEquals("/", TABLE.mountOf(Paths.get("/data/diskette/dn")).mountPoint());
    assertEquals(6, TABLE.mounts().size());
  }

  @Test
  public void readsEscapedMountPoints() {
    assertEquals("/data/with space", TABLE.mountOf(Paths.get("/data/with space/dn")).mountPoint());
    assertEquals("/a\\b c", MountTable.unescape("/a\\134b\\040c"));
    assertEquals("/no\\escape", MountTable.unescape("/no\\escape"));
  }

  @Test
  public void readOnlyFromMountOrSuperblockOptions() {
    assertTrue(TABLE.mountOf(Paths.get("/data/ssd/dn")).readOnlyReason().contains("emergency_ro"));
    assertTrue(TABLE.mountOf(Paths.get("/data/disk/archive/dn")).readOnlyReason()
      .contains("mount option ro"));
    assertNull(TABLE.mountOf(Paths.get("/data/disk/dn")).readOnlyReason());
    // errors=remount-ro is a setting, not the state.
    assertNull(TABLE.mountOf(Paths.get("/home")).readOnlyReason());
    assertNull(TABLE.mountOf(Paths.get("/data/ram/dn")).readOnlyReason());
  }

  @Test
  public void onlyReadOnlyAndIoErrorsCount() {
    assertTrue(ReadOnlyVolumeWatcher.isReadOnly(
      new FileSystemException("/v/x", null, "Read-only file system")));
    // A full volume or an exhausted quota is not a failed disk (HDFS-13538).
    assertFalse(ReadOnlyVolumeWatcher.isReadOnly(
      new FileSystemException("/v/x", null, "No space left on device")));
    assertFalse(ReadOnlyVolumeWatcher.isReadOnly(
      new FileSystemException("/v/x", null, "Disk quota exceeded")));
    assertFalse(ReadOnlyVolumeWatcher.isReadOnly(new AccessDeniedException("/v/x")));
    assertFalse(ReadOnlyVolumeWatcher.isReadOnly(new IOException("Read-only file system")));
    assertTrue(ReadOnlyVolumeWatcher.isIoError(
      new FileSystemException("/v/x", null, "Input/output error")));
    assertFalse(ReadOnlyVolumeWatcher.isIoError(
      new FileSystemException("/v/x", null, "No space left on device")));
  }

  @Test
  public void theProbeLeavesNothingBehindOnAWritableDirectory() throws IOException {
    Path dir = Files.createTempDirectory("probe");
    try {
      assertNull(ReadOnlyVolumeWatcher.probe(dir));
      try (java.util.stream.Stream<Path> s = Files.list(dir)) {
        assertEquals(0, s.count());
      }
    } finally {
      Files.delete(dir);
    }
  }

  @Test
  public void thisProcessTableHasTheRoot() throws IOException {
    assertEquals("/", MountTable.read().mountOf(Paths.get("/")).mountPoint());
  }
}
