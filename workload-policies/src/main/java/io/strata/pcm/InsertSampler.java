package io.strata.pcm;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.IsolationLevel;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.KeyValueScanner;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells inserts from updates, which HBase's request counts do not (both are Puts): on one Put in
 * {@link PcmKeys#INSERT_SAMPLE_EVERY}, picked at random, it checks, before the Put is applied,
 * whether its row already had a cell, and counts per table how many Puts it sampled and how many of those wrote a
 * new row. The counts are RegionServer coprocessor metrics (bean
 * {@code Hadoop:service=HBase,name=RegionServer,sub=Coprocessor.Region.CP_io.strata.pcm.InsertSampler},
 * attributes {@code Namespace_NS_table_T_putsSampled} and {@code ..._putsInserting}), which the
 * PCM monitor reads over {@code /jmx} as it reads the Get/Scan split.
 *
 * <p>Load it on the RegionServers with {@code hbase.coprocessor.region.classes}. System tables
 * are not sampled. The check reads the row through the stores' scanners (bloom filters and the
 * block cache make it cheap), on a sample only, and is not a client read: the region's and the
 * user's read request counts stay as upstream keeps them. It never fails a Put: an error is
 * logged once per region and the Put goes on unsampled.
 *
 * <p>Thread-safety: one instance per region, called by many handler threads at once; the sample
 * is picked per thread, and the per-table counters are atomic and shared by every region of a
 * table on the server through the RegionServer-wide registry.
 */
public final class InsertSampler implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(InsertSampler.class);
  /** Regions already logged about a failed check: one line per region, not one per Put. */
  private static final ConcurrentMap<String, Boolean> WARNED = new ConcurrentHashMap<>();

  private int every = PcmKeys.INSERT_SAMPLE_EVERY_DEFAULT;
  private Counter sampled;
  private Counter inserting;

  /** The counter name of {@code metric} ({@code putsSampled}, {@code putsInserting}) of a table. */
  public static String counterName(TableName table, String metric) {
    return "Namespace_" + table.getNamespaceAsString() + "_table_" + table.getQualifierAsString()
      + "_" + metric;
  }

  /**
   * Whether the row of {@code put} has a live cell in any of the put's families. Read through the
   * stores' own scanners, not {@code Region#get}: a region read would count as a client read
   * request (the region's read count, which operators see and the balancer weighs, the user's
   * and the Get metrics), and the sampler must leave upstream's counts as they are.
   */
  static boolean rowExists(Region region, Put put) throws IOException {
    if (!(region instanceof HRegion)) {
      throw new IOException("region " + region.getRegionInfo().getEncodedName() + " is a "
        + region.getClass().getName() + ", not an HRegion");
    }
    HRegion r = (HRegion) region;
    byte[] row = put.getRow();
    Scan scan = new Scan().withStartRow(row).withStopRow(row, true).readVersions(1);
    long readPt = r.getReadPoint(IsolationLevel.READ_COMMITTED);
    for (byte[] family : put.getFamilyCellMap().keySet()) {
      HStore store = r.getStore(family);
      if (store == null) {
        continue;
      }
      KeyValueScanner kvs = store.getScanner(scan, null, readPt);
      try {
        List<Cell> cells = new ArrayList<>();
        ((InternalScanner) kvs).next(cells);
        if (!cells.isEmpty() && CellUtil.matchingRows(cells.get(0), row)) {
          return true;
        }
      } finally {
        kvs.close();
      }
    }
    return false;
  }

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void start(CoprocessorEnvironment env) throws IOException {
    if (!(env instanceof RegionCoprocessorEnvironment)) {
      return;
    }
    RegionCoprocessorEnvironment rce = (RegionCoprocessorEnvironment) env;
    // A bad value stops the region from opening with the key named, like any other bad site key.
    every = PcmKeys.insertSampleEvery(rce.getConfiguration());
    TableName table = rce.getRegionInfo().getTable();
    if (table.isSystemTable()) {
      return;
    }
    MetricRegistry registry = rce.getMetricRegistryForRegionServer();
    sampled = registry.counter(counterName(table, "putsSampled"));
    inserting = registry.counter(counterName(table, "putsInserting"));
  }

  @Override
  public void prePut(ObserverContext<RegionCoprocessorEnvironment> c, Put put, WALEdit edit) {
    // A random pick rather than a shared counter: every Put of every handler would otherwise
    // write one cache line of the server.
    if (sampled == null || ThreadLocalRandom.current().nextInt(every) != 0) {
      return;
    }
    // The Put is not applied yet: its own cells are invisible to this read, so no cell means the
    // row is new.
    try {
      boolean existed = rowExists(c.getEnvironment().getRegion(), put);
      sampled.increment();
      if (!existed) {
        inserting.increment();
      }
    } catch (IOException | RuntimeException e) {
      String region = c.getEnvironment().getRegionInfo().getEncodedName();
      if (WARNED.putIfAbsent(region, Boolean.TRUE) == null) {
        LOG.warn("Insert sampling skipped a Put on region {} of table {}: the row check failed "
          + "({}); the Put goes on, and the table's insert share counts only Puts that could be "
          + "checked (logged once per region)", region,
          c.getEnvironment().getRegionInfo().getTable(), e.toString());
      }
    }
  }
}
