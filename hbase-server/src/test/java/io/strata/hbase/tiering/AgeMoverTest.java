package io.strata.hbase.tiering;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.BlockStoragePolicySpi;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.junit.Test;

/**
 * The age chore's own logic, on a file system that records its calls (the re-placement on real
 * HDFS is AgeTieringIT's): the byte rate per pass, a failed call retried at the next pass and
 * never dropped, a vanished file dropped, a file placed before a restart left alone or handed to
 * the satisfier again when its replicas are not in place.
 */
public class AgeMoverTest {
  private static final BlockStoragePolicy COLD = new BlockStoragePolicy((byte) 2, "COLD",
    new StorageType[] { StorageType.ARCHIVE }, new StorageType[0], new StorageType[0]);
  private static final BlockStoragePolicy ALL_SSD = new BlockStoragePolicy((byte) 12, "ALL_SSD",
    new StorageType[] { StorageType.SSD }, new StorageType[] { StorageType.DISK },
    new StorageType[] { StorageType.DISK });

  /** Storage-policy calls on paths that need not exist. */
  private static final class PolicyFs extends RawLocalFileSystem {
    final Map<Path, BlockStoragePolicySpi> policies = new HashMap<>();
    final Map<Path, StorageType> replicas = new HashMap<>();
    final List<String> calls = new ArrayList<>();
    final Set<Path> gone = new HashSet<>();
    int satisfyFailures;

    @Override
    public BlockStoragePolicySpi getStoragePolicy(Path p) throws IOException {
      if (gone.contains(p)) {
        throw new FileNotFoundException(p.toString());
      }
      return policies.getOrDefault(p, ALL_SSD);
    }

    @Override
    public void setStoragePolicy(Path p, String policy) {
      calls.add("set " + p.getName() + " " + policy);
      policies.put(p, "COLD".equals(policy) ? COLD : ALL_SSD);
    }

    @Override
    public void satisfyStoragePolicy(Path p) throws IOException {
      calls.add("satisfy " + p.getName());
      if (satisfyFailures > 0) {
        satisfyFailures--;
        throw new IOException("satisfier mode is none");
      }
    }

    @Override
    public BlockLocation[] getFileBlockLocations(Path p, long start, long len) {
      StorageType t = replicas.getOrDefault(p, StorageType.SSD);
      return new BlockLocation[] { new BlockLocation(new String[] { "dn:1" },
        new String[] { "dn" }, null, null, 0, 1, false) {
          @Override
          public StorageType[] getStorageTypes() {
            return new StorageType[] { t };
          }
        } };
    }
  }

  /** A store whose aged files are given. */
  private static final class Store implements AgeMover.AgingStore {
    final List<AgeMover.Aged> aged = new ArrayList<>();

    @Override
    public boolean gone() {
      return false;
    }

    @Override
    public String name() {
      return "t,,1.abc family f";
    }

    @Override
    public List<AgeMover.Aged> aged(long nowMs) {
      return new ArrayList<>(aged);
    }

    @Override
    public void done(Path file) {
      aged.removeIf(a -> a.path.equals(file));
    }
  }

  private static AgeMover.Aged file(PolicyFs fs, String name, long bytes) {
    return new AgeMover.Aged(fs, new Path("/hbase/data/default/t/abc/f/" + name), "COLD", bytes,
      40L * 86_400_000L);
  }

  @Test
  public void eachPassHandsOverAboutItsShareOfBytes() {
    PolicyFs fs = new PolicyFs();
    Store store = new Store();
    for (int i = 0; i < 5; i++) {
      store.aged.add(file(fs, "f" + i, 600));
    }
    AgeMover mover = new AgeMover(1_000, 1_000); // 1000 bytes per 1 s pass
    mover.add(store);
    long t = System.currentTimeMillis() + 1_000;
    // 1000 bytes: two files of 600 (the second overdraws), three pending
    assertEquals(3, mover.pass(t));
    assertEquals(List.of("set f0 COLD", "satisfy f0", "set f1 COLD", "satisfy f1"), fs.calls);
    assertEquals(3, TieringMetrics.agedPendingFiles());
    // the overdraft (-200) is paid first: 0.1 s later nothing more goes
    assertEquals(3, mover.pass(t + 100));
    assertEquals(4, fs.calls.size());
    // a second later: 800 bytes, two more files
    assertEquals(1, mover.pass(t + 1_100));
    // after a pause the last file goes
    assertEquals(0, mover.pass(t + 60_000));
    assertEquals(10, fs.calls.size());
  }

  @Test
  public void aFailedCallIsRetriedAtTheNextPassNotDropped() {
    PolicyFs fs = new PolicyFs();
    fs.satisfyFailures = 2;
    Store store = new Store();
    store.aged.add(file(fs, "a", 10));
    AgeMover mover = new AgeMover(1_000, 1L << 30);
    mover.add(store);
    long t = System.currentTimeMillis() + 1_000;
    long failures = failures();
    assertEquals(1, mover.pass(t));
    assertEquals(1, mover.pass(t + 1_000));
    assertEquals(2, failures() - failures);
    assertEquals(1, store.aged.size());
    assertEquals(0, mover.pass(t + 2_000));
    assertTrue(store.aged.isEmpty());
    // the policy is already COLD at the retries: only the satisfier is asked again
    assertEquals(List.of("set a COLD", "satisfy a", "satisfy a", "satisfy a"), fs.calls);
  }

  @Test
  public void aVanishedFileIsDropped() {
    PolicyFs fs = new PolicyFs();
    Store store = new Store();
    AgeMover.Aged a = file(fs, "compacted-away", 10);
    fs.gone.add(a.path);
    store.aged.add(a);
    AgeMover mover = new AgeMover(1_000, 1L << 30);
    mover.add(store);
    assertEquals(0, mover.pass(System.currentTimeMillis() + 1_000));
    assertTrue(store.aged.isEmpty());
    assertTrue(fs.calls.isEmpty());
  }

  @Test
  public void aFilePlacedBeforeARestartIsLeftAloneUnlessItsReplicasAreElsewhere() {
    PolicyFs fs = new PolicyFs();
    Store store = new Store();
    AgeMover.Aged placed = file(fs, "placed", 10);
    AgeMover.Aged pinnedOnly = file(fs, "pinned-only", 10);
    fs.policies.put(placed.path, COLD);
    fs.replicas.put(placed.path, StorageType.ARCHIVE);
    fs.policies.put(pinnedOnly.path, COLD); // replicas still on SSD
    store.aged.add(placed);
    store.aged.add(pinnedOnly);
    AgeMover mover = new AgeMover(1_000, 1L << 30);
    mover.add(store);
    assertEquals(0, mover.pass(System.currentTimeMillis() + 1_000));
    assertEquals(List.of("satisfy pinned-only"), fs.calls);
  }

  private static long failures() {
    return TieringMetrics.agedFailures();
  }
}
