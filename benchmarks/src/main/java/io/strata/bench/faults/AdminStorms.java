package io.strata.bench.faults;

import io.strata.hbase.tiering.TieringKeys;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionInfo;

/**
 * The faults that are operations rather than failures: what an operator or HBase's own chores do
 * to a table under load. {@code region-storm}: moves, splits, merges and balancer runs (hbase-it's
 * {@code MoveRegionsOfTableAction}, {@code SplitRandomRegionOfTableAction},
 * {@code MergeRandomAdjacentRegionsOfTableAction}, {@code BalanceAction}); {@code
 * flush-compaction-storm}: flushes and major compactions back to back, each writing a file Strata
 * places; {@code alter-under-load}: a {@code strata.*} key of the family changed and restored
 * (every region reopens), after an invalid value the validator must refuse. Each runs for the
 * given time and records what it did and what HBase refused.
 */
final class AdminStorms {
  /** Region count bounds of region-storm: splits stop above, merges below. */
  static final int MAX_REGIONS = 12;
  static final int MIN_REGIONS = 3;
  /** How long one operation may take before the storm counts it failed and goes on. */
  private static final int OP_TIMEOUT_S = 60;

  private final Connection conn;
  private final TableName table;
  private final PrintStream out;

  AdminStorms(Connection conn, TableName table, PrintStream out) {
    this.conn = conn;
    this.table = table;
    this.out = out;
  }

  /** Operations done and failed, per kind, with the first failure's message of each kind. */
  private static final class Tally {
    final Map<String, Integer> done = new LinkedHashMap<>();
    final Map<String, Integer> failed = new LinkedHashMap<>();
    final Map<String, String> firstError = new LinkedHashMap<>();

    void ok(String kind) {
      done.merge(kind, 1, Integer::sum);
    }

    void failed(String kind, Exception e) {
      failed.merge(kind, 1, Integer::sum);
      Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      String m = String.valueOf(c.getMessage());
      firstError.putIfAbsent(kind, c.getClass().getSimpleName() + ": "
        + m.substring(0, Math.min(300, m.indexOf('\n') >= 0 ? m.indexOf('\n') : m.length())));
    }

    /** The storm's part of what the fault did; regions null for a storm that counts none. */
    ChaosResult.Storm storm(Integer regionsBefore, Boolean balancerWasOn, Integer regionsAfter) {
      return new ChaosResult.Storm(regionsBefore, balancerWasOn, regionsAfter, done, failed,
        firstError.isEmpty() ? null : firstError);
    }
  }

  /** region-storm for {@code seconds}: one operation a second, drawn in turn. */
  ChaosResult.Storm regionStorm(int seconds) throws Exception {
    Tally t = new Tally();
    Random random = new Random(2026);
    String[] cycle = { "move", "split", "move", "merge", "balance" };
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    int regionsBefore;
    boolean balancerWas;
    int regionsAfter;
    try (Admin admin = conn.getAdmin()) {
      regionsBefore = admin.getRegions(table).size();
      balancerWas = admin.balancerSwitch(true, true);
      try {
        for (int i = 0; System.nanoTime() < end; i++) {
          String kind = cycle[i % cycle.length];
          try {
            if (regionOp(admin, kind, random)) {
              t.ok(kind);
            }
          } catch (IOException | ExecutionException | TimeoutException e) {
            // Refusals are part of a storm (a region in transition, a split parent with
            // references left): counted, not fatal.
            t.failed(kind, e);
          }
          Thread.sleep(1000);
        }
      } finally {
        admin.balancerSwitch(balancerWas, true);
      }
      regionsAfter = admin.getRegions(table).size();
    }
    out.printf(Locale.ROOT, "region-storm: done %s, refused %s; regions %d -> %d%n", t.done,
      t.failed, regionsBefore, regionsAfter);
    return t.storm(regionsBefore, balancerWas, regionsAfter);
  }

  /** One operation; false when there was nothing to do (bounds, one server). */
  private boolean regionOp(Admin admin, String kind, Random random) throws Exception {
    List<RegionInfo> regions = new ArrayList<>(admin.getRegions(table));
    regions.removeIf(r -> r.isSplitParent() || r.isOffline());
    if (regions.isEmpty()) {
      return false;
    }
    RegionInfo r = regions.get(random.nextInt(regions.size()));
    switch (kind) {
      case "move": {
        List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
        if (servers.size() < 2) {
          return false;
        }
        // Anywhere else than where it is: the master picks when given no destination.
        admin.move(r.getEncodedNameAsBytes());
        return true;
      }
      case "split":
        if (regions.size() >= MAX_REGIONS) {
          return false;
        }
        admin.splitRegionAsync(r.getRegionName()).get(OP_TIMEOUT_S, TimeUnit.SECONDS);
        return true;
      case "merge": {
        if (regions.size() <= MIN_REGIONS) {
          return false;
        }
        regions.sort(RegionInfo.COMPARATOR);
        int i = random.nextInt(regions.size() - 1);
        admin.mergeRegionsAsync(new byte[][] { regions.get(i).getEncodedNameAsBytes(),
          regions.get(i + 1).getEncodedNameAsBytes() }, false).get(OP_TIMEOUT_S,
            TimeUnit.SECONDS);
        return true;
      }
      case "balance":
        return admin.balance();
      default:
        throw new IllegalArgumentException(kind);
    }
  }

  /** flush-compaction-storm for {@code seconds}: a flush a second, a major compaction every third. */
  ChaosResult.Storm flushCompactionStorm(int seconds) throws Exception {
    Tally t = new Tally();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    try (Admin admin = conn.getAdmin()) {
      for (int i = 0; System.nanoTime() < end; i++) {
        try {
          admin.flush(table);
          t.ok("flush");
        } catch (IOException e) {
          t.failed("flush", e);
        }
        if (i % 3 == 2) {
          try {
            admin.majorCompact(table);
            t.ok("major_compaction");
          } catch (IOException e) {
            t.failed("major_compaction", e);
          }
        }
        Thread.sleep(1000);
      }
    }
    out.printf(Locale.ROOT, "flush-compaction-storm: done %s, refused %s%n", t.done, t.failed);
    return t.storm(null, null, null);
  }

  /**
   * alter-under-load: an invalid {@code strata.flush.storage.policy} (the validator must refuse
   * it and nothing reopens), then {@code strata.compaction.size.threshold} changed (every region
   * of the table reopens under load) and, after half of {@code seconds}, restored.
   */
  ChaosResult.Alter alterUnderLoad(int seconds) throws Exception {
    byte[] family = VerifyingLoad.FAMILY;
    try (Admin admin = conn.getAdmin()) {
      ColumnFamilyDescriptor before = admin.getDescriptor(table).getColumnFamily(family);
      String key = TieringKeys.COMPACTION_THRESHOLD;
      String old = before.getConfigurationValue(key);
      boolean refused;
      String refusal = null;
      try {
        admin.modifyColumnFamily(table, ColumnFamilyDescriptorBuilder.newBuilder(before)
          .setConfiguration(TieringKeys.FLUSH_POLICY, "NO_SUCH_POLICY").build());
        refused = false;
      } catch (IOException e) {
        String m = String.valueOf(e.getMessage());
        refused = true;
        refusal = m.substring(0, Math.min(300,
          m.indexOf('\n') >= 0 ? m.indexOf('\n') : m.length()));
      }
      String value = String.valueOf(8L << 20);
      long t0 = System.nanoTime();
      admin.modifyColumnFamily(table, ColumnFamilyDescriptorBuilder.newBuilder(before)
        .setConfiguration(key, value).build());
      double alterS = (System.nanoTime() - t0) / 1e9;
      String seen = admin.getDescriptor(table).getColumnFamily(family).getConfigurationValue(key);
      Thread.sleep(TimeUnit.SECONDS.toMillis(Math.max(1, seconds / 2)));
      t0 = System.nanoTime();
      admin.modifyColumnFamily(table, before);
      double restoreS = (System.nanoTime() - t0) / 1e9;
      String after = admin.getDescriptor(table).getColumnFamily(family).getConfigurationValue(key);
      out.printf(Locale.ROOT, "alter-under-load: invalid value refused: %s; %s altered in %.1f "
        + "s, restored in %.1f s%n", refused, TieringKeys.COMPACTION_THRESHOLD, alterS,
        restoreS);
      return new ChaosResult.Alter(key, old == null ? "(the site's)" : old, refused, refusal,
        value, alterS, String.valueOf(seen), restoreS,
        old == null ? after == null : old.equals(after));
    }
  }

  /** Regions in transition on the cluster now, or -1 when the master cannot say. */
  static int regionsInTransition(Connection conn) {
    try (Admin admin = conn.getAdmin()) {
      ClusterMetrics m = admin.getClusterMetrics(EnumSet.of(
        ClusterMetrics.Option.REGIONS_IN_TRANSITION));
      return m.getRegionStatesInTransition().size();
    } catch (IOException e) {
      return -1;
    }
  }
}
