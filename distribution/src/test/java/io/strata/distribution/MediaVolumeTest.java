package io.strata.distribution;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.Assume;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The block-layer media of {@code strata-cluster up --media blkio}, through the functions the
 * cluster script itself sources ({@code bin/strata-media.sh}), without a cluster:
 * <ul>
 * <li>one loop volume set up with a small write throttle (20 MB/s) is an ext4 file system
 * mounted under a shared mount root, and a direct write through it runs within 15% of the
 * throttle; after {@code media_down} nothing is left: no mount (neither the volume nor its root),
 * no loop device over the backing file (even with a slave copy of the mounts alive in another
 * mount namespace, as another cluster's {@code ip netns exec} daemons make), no throttle line
 * for its device, no state file; the data written survives a second up;</li>
 * <li>a profile line that is not {@code KIND.KEY=N}, or lacks a key, is refused naming the line
 * or the key; the shipped profile carries the storage-media study's Table 13 rates;</li>
 * <li>a machine without the blkio cgroup is refused with one line naming the file that is
 * missing (what {@code up} logs before it falls back to no emulation).</li>
 * </ul>
 * The first needs root, a free loop device, cgroup v1 blkio throttling, mkfs.ext4 and unshare; without
 * them it is skipped, the reason printed.
 */
public class MediaVolumeTest {
  private static final Path DIST = Paths.get("src/main/dist").toAbsolutePath();
  private static final Path MEDIA = DIST.resolve("bin/strata-media.sh");
  private static final Path PROFILE = DIST.resolve("conf/media-profile.properties");
  /** The test's write throttle, MB/s: slow enough to measure in a few seconds. */
  private static final int WRITE_MBPS = 20;

  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  /** Runs a bash script after sourcing strata-media.sh; returns exit code and output. */
  private static String[] bash(String script, int timeoutSeconds) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", "-c",
      "set -euo pipefail\n. '" + MEDIA + "'\n" + script).redirectErrorStream(true);
    Process p = pb.start();
    byte[] out;
    try {
      out = p.getInputStream().readAllBytes();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        throw new AssertionError("script did not end within " + timeoutSeconds + " s");
      }
    } finally {
      p.destroyForcibly();
    }
    String text = new String(out, StandardCharsets.UTF_8);
    System.out.print(text);
    return new String[] { Integer.toString(p.exitValue()), text };
  }

  private Path profile(int writeMbps) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (String kind : new String[] { "ssd", "disk", "archive" }) {
      sb.append(kind).append(".read.mbps=").append(writeMbps).append('\n')
        .append(kind).append(".write.mbps=").append(writeMbps).append('\n')
        .append(kind).append(".read.iops=1000\n")
        .append(kind).append(".write.iops=1000\n")
        .append(kind).append(".size.gb=1\n")
        .append(kind).append(".delay.us=100\n");
    }
    Path p = tmp.newFile("profile.properties").toPath();
    Files.write(p, sb.toString().getBytes(StandardCharsets.UTF_8));
    return p;
  }

  @Test
  public void throttledLoopVolumeWritesAtItsRateAndLeavesNothingBehind() throws Exception {
    String[] pre = bash("media_preflight || { echo \"REFUSED $MEDIA_REFUSED\"; exit 0; }\n"
      + "command -v unshare >/dev/null || { echo 'REFUSED unshare is not installed'; exit 0; }\n"
      + "echo READY", 30);
    String reason = pre[1].contains("REFUSED") ? pre[1].trim() : "";
    Assume.assumeTrue("no throttled loop volumes on this machine: " + reason, reason.isEmpty());

    File dir = tmp.newFolder("media");
    String state = dir + "/volumes";
    String root = dir + "/mnt";
    String mnt = root + "/datanode-1-disk";
    String backing = dir + "/images/datanode-1-disk.img";
    String up = "media_profile_load '" + profile(WRITE_MBPS) + "'\n"
      + "media_shared_root '" + state + "' '" + root + "'\n"
      + "media_volume_up '" + state + "' '" + mnt + "' '" + backing + "' disk\n";
    String[] r;
    try {
      r = bash(up
        + "findmnt -n -o FSTYPE --mountpoint '" + mnt + "' | sed 's/^/FSTYPE /'\n"
        + "read -r _ _ dev majmin _ < <(grep '^" + mnt + " ' '" + state + "')\n"
        + "echo \"DEV $dev $majmin\"\n"
        + "grep -h \"^$majmin \" " + "$MEDIA_BLKIO/blkio.throttle.write_bps_device"
        + " | sed 's/^/THROTTLE /'\n"
        + "t0=$(date +%s%N)\n"
        + "dd if=/dev/zero of='" + mnt + "/f' bs=1M count=80 oflag=direct status=none\n"
        + "t1=$(date +%s%N)\n"
        + "echo \"RATE $(awk -v ns=$((t1 - t0)) 'BEGIN { printf \"%.2f\", 80 * 1048576 / 1e6 "
        + "/ (ns / 1e9) }')\"\n"
        + "echo kept >'" + mnt + "/kept'\n", 120);
      assertEquals(r[1], "0", r[0]);
      assertTrue(r[1], r[1].contains("FSTYPE ext4"));
      String dev = field(r[1], "DEV", 1);
      String majmin = field(r[1], "DEV", 2);
      assertTrue(r[1], dev.startsWith("/dev/loop"));
      assertEquals(r[1], majmin + " " + WRITE_MBPS * 1_000_000L,
        r[1].lines().filter(l -> l.startsWith("THROTTLE ")).findFirst().orElse("")
          .substring("THROTTLE ".length()));
      double rate = Double.parseDouble(field(r[1], "RATE", 1));
      assertTrue("direct write at " + rate + " MB/s, throttle " + WRITE_MBPS + " MB/s",
        rate >= 0.85 * WRITE_MBPS && rate <= 1.15 * WRITE_MBPS);

      // A mount namespace copied from this one while the volume is mounted, made a slave (as
      // `ip netns exec` makes one for another cluster's daemons): it must not keep the file
      // system, and so the loop device, open after down.
      Process copy = new ProcessBuilder("unshare", "-m", "--propagation", "slave", "sleep", "120")
        .redirectErrorStream(true).start();
      try {
        Thread.sleep(1000);
        assertTrue("unshare did not start", copy.isAlive());
        r = bash("media_down '" + state + "'\n", 60);
        assertEquals(r[1], "0", r[0]);
        assertNothingLeft(state, root, mnt, backing, majmin);
      } finally {
        copy.destroyForcibly();
      }

      // Up again on the same backing file: the data is there, then down leaves nothing again.
      r = bash(up + "cat '" + mnt + "/kept'\n"
        + "read -r _ _ _ majmin _ < <(grep '^" + mnt + " ' '" + state + "')\n"
        + "echo \"DEV x $majmin\"\n"
        + "media_down '" + state + "'\n", 60);
      assertEquals(r[1], "0", r[0]);
      assertTrue(r[1], r[1].contains("kept"));
      assertNothingLeft(state, root, mnt, backing, field(r[1], "DEV", 2));
    } finally {
      bash("media_down '" + state + "' || true", 60);
    }
  }

  private static void assertNothingLeft(String state, String root, String mnt, String backing,
    String majmin) throws Exception {
    String[] r = bash("findmnt -n --mountpoint '" + mnt + "' | sed 's/^/MOUNTED /' || true\n"
      + "findmnt -n --mountpoint '" + root + "' | sed 's/^/MOUNTED /' || true\n"
      + "losetup -n -O NAME -j '" + backing + "' | sed 's/^/ATTACHED /'\n"
      + "grep -H '^" + majmin + " ' $MEDIA_BLKIO/blkio.throttle.*_device | sed 's/^/THROTTLED /'"
      + " || true\n"
      + "[ ! -e '" + state + "' ] || sed 's/^/RECORDED /' '" + state + "'\n", 30);
    assertEquals(r[1], "0", r[0]);
    for (String what : new String[] { "MOUNTED", "ATTACHED", "THROTTLED", "RECORDED" }) {
      assertTrue("left after media_down: " + r[1], !r[1].contains(what + " "));
    }
  }

  private static String field(String out, String tag, int i) {
    return out.lines().filter(l -> l.startsWith(tag + " ")).findFirst()
      .orElseThrow(() -> new AssertionError("no " + tag + " line in: " + out)).split(" ")[i];
  }

  @Test
  public void profileErrorsNameTheLineOrTheKey() throws Exception {
    Path bad = tmp.newFile("bad.properties").toPath();
    Files.write(bad, "# c\nssd.write.mbps=fast\n".getBytes(StandardCharsets.UTF_8));
    String[] r = bash("media_profile_load '" + bad + "'", 30);
    assertEquals(r[1], "2", r[0]);
    assertTrue(r[1], r[1].contains("line 2: ssd.write.mbps must be a positive whole number"));

    Files.write(bad, "ssd.speed=3\n".getBytes(StandardCharsets.UTF_8));
    r = bash("media_profile_load '" + bad + "'", 30);
    assertEquals(r[1], "2", r[0]);
    assertTrue(r[1], r[1].contains("line 1: 'ssd.speed=3' is not KIND.KEY=N"));

    Files.write(bad, "ssd.write.mbps=3\n".getBytes(StandardCharsets.UTF_8));
    r = bash("media_profile_load '" + bad + "'", 30);
    assertEquals(r[1], "2", r[0]);
    assertTrue(r[1], r[1].contains("has no ssd.read.mbps"));

    r = bash("media_profile_load '" + PROFILE + "'\nmedia_size_override DISK=9\n"
      + "for k in ssd.read.mbps ssd.write.mbps disk.read.mbps disk.write.mbps disk.size.gb; do"
      + " echo \"$k=${MEDIA_PROFILE[$k]}\"; done\nmedia_size_override tape=1", 30);
    assertEquals(r[1], "2", r[0]);
    for (String kv : new String[] { "ssd.read.mbps=481", "ssd.write.mbps=446",
      "disk.read.mbps=140", "disk.write.mbps=127", "disk.size.gb=9" }) {
      assertTrue(r[1], r[1].contains(kv));
    }
    assertTrue(r[1], r[1].contains("--volume-gb takes KIND=GiB"));
  }

  @Test
  public void noBlkioCgroupIsRefusedNamingWhatIsMissing() throws Exception {
    String[] r = bash("MEDIA_BLKIO=/nonexistent/blkio\nif media_preflight; then echo PASSED; "
      + "else echo \"REFUSED $MEDIA_REFUSED\"; fi", 30);
    assertEquals(r[1], "0", r[0]);
    assertTrue(r[1], r[1].contains("REFUSED not root")
      || r[1].contains("REFUSED no writable /nonexistent/blkio/blkio.throttle.read_bps_device"));
  }
}
