package io.strata.pcm;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.RandomRowFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-splits a table that already holds data into the regions a policy asks for (the BL policy's
 * P = N x #RegionServers), online, at split points taken from the table's own keys: a table
 * created before PCM saw its load, or by someone else, gets the parallelism of a pre-split one.
 *
 * <p>Split points are quantiles of a sample of the table's row keys: one scan, filtered on the
 * RegionServers ({@link RandomRowFilter}, first key only, no values), so the client receives a
 * few thousand keys whatever the table's size. The scan reads the table once on the servers; its
 * sampling chance comes from the regions' stored bytes and a small lower bound on a row's size,
 * so a table of larger rows gives fewer samples, never too many. A point is a key that exists,
 * so every new region starts with data. HBase's own split by a region's mid-key would need one
 * region at a time; explicit points split every region toward the same even shares.
 *
 * <p>Each point is split through {@link Admin#splitRegionAsync(byte[], byte[])} and waited for. A
 * region just split holds references to its parent's files until its first compaction, and HBase
 * refuses to split it again: such a split is retried after a compaction request, until the
 * deadline. Splits never move or rewrite data beyond HBase's own split and compactions; no row
 * is at risk. Thread-safety: as the {@link Admin}.
 */
public final class Resplit {
  private static final Logger LOG = LoggerFactory.getLogger(Resplit.class);

  /** Row keys the sample aims for: enough for even quantiles at any P a policy gives. */
  static final int TARGET_SAMPLES = 10_000;
  /** The smallest row assumed when the sampling chance is worked out (key, family, one cell). */
  static final long MIN_ROW_BYTES = 64;

  private final Connection connection;
  private final Admin admin;

  public Resplit(Connection connection) throws IOException {
    this.connection = connection;
    this.admin = connection.getAdmin();
  }

  /** What a re-split did. */
  public static final class Outcome {
    private final int before;
    private final int after;
    private final int samples;
    private final List<String> points;

    Outcome(int before, int after, int samples, List<String> points) {
      this.before = before;
      this.after = after;
      this.samples = samples;
      this.points = List.copyOf(points);
    }

    /** Regions before. */
    public int before() {
      return before;
    }

    /** Regions after. */
    public int after() {
      return after;
    }

    /** Row keys sampled. */
    public int samples() {
      return samples;
    }

    /** The split points used, printable. */
    public List<String> points() {
      return points;
    }

    @Override
    public String toString() {
      return "Outcome[before=" + before + ", after=" + after + ", samples=" + samples
        + ", points=" + points + "]";
    }
  }

  /**
   * Splits {@code table} into about {@code regions} regions at quantiles of its keys, waiting at
   * most {@code timeoutMs} in all. A table with at least that many regions, or with too few
   * distinct keys, is left as it is (said in the outcome and the log).
   *
   * @throws IOException when a split fails for another reason than references, or the deadline
   *                     passes (the regions split so far stay split)
   */
  public Outcome toRegions(TableName table, int regions, long timeoutMs) throws IOException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    int before = admin.getRegions(table).size();
    if (regions <= before) {
      LOG.info("PCM re-split of {}: it has {} regions, the policy asks for {}: nothing to split",
        table, before, regions);
      return new Outcome(before, before, 0, List.of());
    }
    List<byte[]> sample = sample(table);
    List<byte[]> points = points(sample, regions, startKeys(table));
    if (points.isEmpty()) {
      LOG.info("PCM re-split of {}: {} sampled row keys give no new split point for {} regions; "
        + "left at {} regions", table, sample.size(), regions, before);
      return new Outcome(before, before, sample.size(), List.of());
    }
    List<String> shown = new ArrayList<>();
    for (byte[] p : points) {
      split(table, p, deadline);
      shown.add(Bytes.toStringBinary(p));
    }
    int after = admin.getRegions(table).size();
    LOG.info("PCM re-split of {}: {} -> {} regions (policy: {}) at {} points from {} sampled row "
      + "keys", table, before, after, regions, points.size(), sample.size());
    return new Outcome(before, after, sample.size(), shown);
  }

  /** A sample of the table's row keys, sorted. */
  List<byte[]> sample(TableName table) throws IOException {
    long bytes = 0;
    for (ServerName sn : admin.getRegionServers()) {
      for (RegionMetrics rm : admin.getRegionMetrics(sn, table)) {
        bytes += (long) rm.getStoreFileSize().get(Size.Unit.BYTE)
          + (long) rm.getMemStoreSize().get(Size.Unit.BYTE);
      }
    }
    float chance = chance(bytes);
    Scan scan = new Scan().setCaching(1000).setCacheBlocks(false);
    FilterList filters = new FilterList(FilterList.Operator.MUST_PASS_ALL);
    if (chance < 1f) {
      filters.addFilter(new RandomRowFilter(chance));
    }
    filters.addFilter(new FirstKeyOnlyFilter());
    filters.addFilter(new KeyOnlyFilter());
    scan.setFilter(filters);
    List<byte[]> keys = new ArrayList<>();
    Random reservoir = new Random(table.hashCode());
    long seen = 0;
    try (Table t = connection.getTable(table); ResultScanner rs = t.getScanner(scan)) {
      for (Result r : rs) {
        seen++;
        // Reservoir sampling keeps the sample bounded if the rows are smaller than assumed.
        if (keys.size() < 4 * TARGET_SAMPLES) {
          keys.add(r.getRow());
        } else {
          long j = (long) (reservoir.nextDouble() * seen);
          if (j < keys.size()) {
            keys.set((int) j, r.getRow());
          }
        }
      }
    }
    keys.sort(Bytes.BYTES_COMPARATOR);
    LOG.info("PCM re-split of {}: sampled {} row keys ({} bytes stored, chance {})", table,
      keys.size(), bytes, chance);
    return keys;
  }

  /** The sampling chance for a table of {@code bytes}: about {@link #TARGET_SAMPLES} rows. */
  static float chance(long bytes) {
    long rowsAtMost = Math.max(1, bytes / MIN_ROW_BYTES);
    return (float) Math.min(1.0, (double) TARGET_SAMPLES / rowsAtMost);
  }

  /**
   * Split points for {@code regions} regions from the sorted {@code sample}: its quantiles
   * i/regions, without duplicates and without a region's existing start key.
   */
  static List<byte[]> points(List<byte[]> sample, int regions, List<byte[]> existingStarts) {
    TreeSet<byte[]> out = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    TreeSet<byte[]> existing = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    existing.addAll(existingStarts);
    if (sample.size() < 2 || regions < 2) {
      return new ArrayList<>(out);
    }
    for (int i = 1; i < regions; i++) {
      byte[] p = sample.get((int) ((long) i * sample.size() / regions));
      if (p.length > 0 && !existing.contains(p)) {
        out.add(p);
      }
    }
    return new ArrayList<>(out);
  }

  /**
   * Whether a refused split may go through later: the region holds references (a daughter not
   * compacted yet: "NOT splittable"), is in transition, or the table is being modified (PCM's
   * own descriptor change reopens its regions) or snapshotted. A split switched off for the
   * cluster or the table, or a point outside the region, is not retried.
   */
  static boolean retryable(String why) {
    return why.contains("NOT splittable") || why.contains("FAILED because state=")
      || why.contains("modifying the table") || why.contains("taking snapshot")
      || why.contains("in transition") || why.contains("NotServingRegion")
      || why.contains("not online");
  }

  private List<byte[]> startKeys(TableName table) throws IOException {
    List<byte[]> starts = new ArrayList<>();
    for (RegionInfo r : admin.getRegions(table)) {
      starts.add(r.getStartKey());
    }
    return starts;
  }

  /** Splits the region holding {@code point} at it, retrying while the region has references. */
  private void split(TableName table, byte[] point, long deadline) throws IOException {
    long pauseMs = 500;
    while (true) {
      RegionInfo region;
      try (RegionLocator locator = connection.getRegionLocator(table)) {
        HRegionLocation loc = locator.getRegionLocation(point, true);
        region = loc.getRegion();
      }
      if (Bytes.equals(region.getStartKey(), point)) {
        return; // split there already (an earlier attempt went through after its timeout)
      }
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        throw new IOException("PCM re-split of " + table + ": deadline passed before the split "
          + "at " + Bytes.toStringBinary(point) + " (region " + region.getEncodedName() + ")");
      }
      try {
        admin.splitRegionAsync(region.getRegionName(), point).get(left, TimeUnit.MILLISECONDS);
        LOG.info("PCM re-split of {}: region {} split at {}", table, region.getEncodedName(),
          Bytes.toStringBinary(point));
        return;
      } catch (TimeoutException e) {
        throw new IOException("PCM re-split of " + table + ": the split of region "
          + region.getEncodedName() + " at " + Bytes.toStringBinary(point)
          + " did not finish before the deadline", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("PCM re-split of " + table + " interrupted");
      } catch (ExecutionException | IOException e) {
        String why = String.valueOf(e.getCause() != null ? e.getCause() : e);
        if (!retryable(why)) {
          throw new IOException("PCM re-split of " + table + ": the split of region "
            + region.getEncodedName() + " at " + Bytes.toStringBinary(point) + " failed: "
            + why, e);
        }
        // A daughter of an earlier split keeps references to its parent's files until it is
        // compacted: ask for that and try again.
        LOG.debug("PCM re-split of {}: region {} cannot split yet ({}); compacting, retry in {} "
          + "ms", table, region.getEncodedName(), why, pauseMs);
        try {
          admin.majorCompactRegion(region.getRegionName());
        } catch (IOException ignored) {
          // the region moved or split meanwhile: the next attempt looks it up again
        }
        try {
          Thread.sleep(pauseMs);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("PCM re-split of " + table + " interrupted");
        }
        pauseMs = Math.min(5_000, pauseMs * 2);
      }
    }
  }
}
