package io.strata.bench.monitor;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.Assume;
import org.junit.Test;

public class ProcCountersTest {

  @Test
  public void cpuSharesCountGuestTimeOnce() throws Exception {
    // user nice system idle iowait irq softirq steal guest guest_nice
    long[] v = ProcCounters.cpu(List.of("cpu  100 10 50 800 20 5 5 10 30 3",
      "cpu0 50 5 25 400 10 2 3 5 15 1", "intr 1 2 3"));
    assertArrayEquals(new long[] { 110, 60, 20, 1000 }, v);
  }

  @Test
  public void disksCountWholeDevicesOnlyAndNetSeparatesLoopback() throws Exception {
    Set<String> disks = Set.of("sda", "nvme0n1");
    List<String> diskstats = List.of(
      "   8       0 sda 100 0 2000 0 50 0 4000 0 0 0 0",
      "   8       1 sda1 100 0 2000 0 50 0 4000 0 0 0 0",
      " 259       0 nvme0n1 1 0 10 0 1 0 20 0 0 0 0",
      "   7       0 loop0 9 0 900 0 9 0 900 0 0 0 0");
    assertArrayEquals(new long[] { 2010L * 512, 4020L * 512 },
      ProcCounters.disks(diskstats, disks));
    List<String> dev = List.of("Inter-|   Receive   |  Transmit",
      " face |bytes packets errs drop fifo frame compressed multicast|bytes packets",
      "    lo: 5000 10 0 0 0 0 0 0 5000 10 0 0 0 0 0 0",
      "  eth0: 1000 5 0 0 0 0 0 0 2000 6 0 0 0 0 0 0",
      "  eth1: 1 1 0 0 0 0 0 0 2 1 0 0 0 0 0 0");
    assertArrayEquals(new long[] { 1001, 2002, 5000 }, ProcCounters.net(dev));
  }

  @Test
  public void ratesAreSharesOfAllCpusAndMegabytesPerSecond() {
    ProcCounters a = new ProcCounters(100, 50, 10, 1000, 0, 0, 0, 0, 0);
    ProcCounters b = new ProcCounters(150, 75, 20, 1100, 4_000_000, 2_000_000, 1_000_000, 0,
      8_000_000);
    double[] r = b.rates(a, 2.0);
    assertArrayEquals(new double[] { 50, 25, 10, 2, 1, 0.5, 0, 4 }, r, 1e-9);
    assertEquals(Monitor.MACHINE_SERIES.size(), r.length);
  }

  @Test
  public void readsThisMachinesCounters() throws Exception {
    Assume.assumeTrue(Files.exists(Path.of("/proc/stat")));
    ProcCounters a = ProcCounters.read(Path.of("/"));
    // Burn some CPU so that the second reading is later in every CPU counter that moves.
    long x = 0;
    long end = System.nanoTime() + 200_000_000L;
    while (System.nanoTime() < end) {
      x += System.identityHashCode(new Object());
    }
    ProcCounters b = ProcCounters.read(Path.of("/"));
    assertTrue(a + " then " + b + " " + x, b.cpuTotal() > a.cpuTotal()
      && b.cpuUser() + b.cpuSystem() > a.cpuUser() + a.cpuSystem());
    double[] r = b.rates(a, 0.2);
    for (int i = 0; i < 3; i++) {
      assertTrue(i + ": " + r[i], r[i] >= 0 && r[i] <= 100);
    }
  }
}
