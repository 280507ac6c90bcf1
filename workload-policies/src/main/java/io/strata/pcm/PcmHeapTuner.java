package io.strata.pcm;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.io.util.MemorySizeUtil;
import org.apache.hadoop.hbase.regionserver.HeapMemoryManager;
import org.apache.hadoop.hbase.regionserver.HeapMemoryManager.TunerContext;
import org.apache.hadoop.hbase.regionserver.HeapMemoryManager.TunerResult;
import org.apache.hadoop.hbase.regionserver.HeapMemoryTuner;
import org.apache.hadoop.hbase.regionserver.OnlineRegions;
import org.apache.hadoop.hbase.regionserver.Region;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies PCM's heap shares online: a {@link HeapMemoryTuner}
 * ({@code hbase.regionserver.heapmemory.tuner.class}) that HBase's {@link HeapMemoryManager} runs
 * once per {@code hbase.regionserver.heapmemory.tuner.period}. Each period it finds the table this
 * RegionServer serves most (the most read and write requests on its regions since the last period;
 * with none, the most regions), reads the policy's shares PCM's {@code apply} wrote on that table
 * ({@link PcmKeys#TABLE_MEMSTORE_SHARE}, {@link PcmKeys#TABLE_BLOCKCACHE_SHARE},
 * {@link PcmKeys#TABLE_CLASS}), and moves the memstore and block-cache shares toward them by at
 * most {@link PcmKeys#HEAP_TUNER_STEP} each, within the operator's ranges
 * ({@code hbase.regionserver.global.memstore.size.min.range/.max.range},
 * {@code hfile.block.cache.size.min.range/.max.range}) and leaving HBase's minimum free heap.
 * When no table on the server has carried PCM's shares for {@link #ABSENT_PERIODS_BEFORE_SITE}
 * periods (reverted, or its regions moved away), it steps back to the shares the site configures.
 * HeapMemoryManager runs a tuner only when those ranges allow a share to move, resizes the block
 * cache and the global memstore limit, and shows the result in its metrics.
 *
 * <p>It needs {@link PcmHeapRegistrar} in {@code hbase.coprocessor.regionserver.classes} to see
 * the server's regions: HBase builds a tuner from the configuration alone. Without it the shares
 * stay as they are (logged once).
 * Thread-safety: HeapMemoryManager calls {@link #tune} from its one chore thread.
 */
public final class PcmHeapTuner implements HeapMemoryTuner {
  private static final Logger LOG = LoggerFactory.getLogger(PcmHeapTuner.class);
  /** Set in the server's configuration so that the registrar's entry for it can be found. */
  static final String INSTANCE_MARKER = "strata.pcm.heap.tuner.instance";
  /** Shares closer than this are the same (HeapMemoryManager works in whole percent). */
  private static final float EPSILON = 0.0005f;
  /**
   * Periods in a row without any PCM table before the tuner steps back to the site's shares: an
   * apply reopens the table's regions, and a period that falls into the reopen must not move the
   * shares away from the policy.
   */
  static final int ABSENT_PERIODS_BEFORE_SITE = 3;

  private Configuration conf;
  private final String id = UUID.randomUUID().toString();
  private float step;
  private float memMin;
  private float memMax;
  private float cacheMin;
  private float cacheMax;
  private float maxUsed;
  /** The shares the site configures, which the tuner returns to when no table carries PCM's. */
  private float siteMem;
  private float siteCache;
  private final Map<TableName, Long> lastRequests = new HashMap<>();
  private TableName lastTable;
  private String lastQuiet;
  private int absentPeriods;

  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
    step = (float) PcmKeys.heapTunerStep(conf);
    float mem = MemorySizeUtil.getGlobalMemStoreHeapPercent(conf, false);
    float cache = MemorySizeUtil.getBlockCacheHeapPercent(conf);
    memMin = conf.getFloat(HeapMemoryManager.MEMSTORE_SIZE_MIN_RANGE_KEY, mem);
    memMax = conf.getFloat(HeapMemoryManager.MEMSTORE_SIZE_MAX_RANGE_KEY, mem);
    cacheMin = conf.getFloat(HeapMemoryManager.BLOCK_CACHE_SIZE_MIN_RANGE_KEY, cache);
    cacheMax = conf.getFloat(HeapMemoryManager.BLOCK_CACHE_SIZE_MAX_RANGE_KEY, cache);
    maxUsed = 1f - MemorySizeUtil.getRegionServerMinFreeHeapFraction(conf);
    siteMem = mem;
    siteCache = cache;
    conf.set(INSTANCE_MARKER, id);
    LOG.info("PCM heap tuner: step {} per period, memstore share {} to {}, block-cache share {} to "
      + "{}, memstore + block cache at most {} of the heap", step, memMin, memMax, cacheMin,
      cacheMax, maxUsed);
    if (memMin == memMax && cacheMin == cacheMax) {
      LOG.warn("PCM heap tuner: {}/{} and {}/{} are not set around the configured shares, so "
        + "HeapMemoryManager will not run a tuner and PCM's heap shares will not be applied",
        HeapMemoryManager.MEMSTORE_SIZE_MIN_RANGE_KEY,
        HeapMemoryManager.MEMSTORE_SIZE_MAX_RANGE_KEY,
        HeapMemoryManager.BLOCK_CACHE_SIZE_MIN_RANGE_KEY,
        HeapMemoryManager.BLOCK_CACHE_SIZE_MAX_RANGE_KEY);
    }
  }

  @Override
  public Configuration getConf() {
    return conf;
  }

  @Override
  public TunerResult tune(TunerContext context) {
    OnlineRegions online = PcmHeapRegistrar.regionsFor(INSTANCE_MARKER, id);
    if (online == null) {
      quiet("no-registrar", "PCM heap tuner: {} is not loaded on this RegionServer (add it to "
        + "hbase.coprocessor.regionserver.classes); the heap shares stay as they are",
        PcmHeapRegistrar.class.getName());
      return new TunerResult(false);
    }
    Target t = pick(online.getRegions());
    float curMem = context.getCurMemStoreSize();
    float curCache = context.getCurBlockCacheSize();
    if (t == null) {
      absentPeriods++;
      if (absentPeriods < ABSENT_PERIODS_BEFORE_SITE) {
        LOG.debug("PCM heap tuner: no PCM table on this RegionServer for {} period(s); shares kept",
          absentPeriods);
        return new TunerResult(false);
      }
      if (Math.abs(curMem - siteMem) < EPSILON && Math.abs(curCache - siteCache) < EPSILON) {
        quiet("no-policy", "PCM heap tuner: no table on this RegionServer carries PCM's heap "
          + "shares ({} and {}, written by strata pcm apply); the site's shares hold",
          PcmKeys.TABLE_MEMSTORE_SHARE, PcmKeys.TABLE_BLOCKCACHE_SHARE);
        return new TunerResult(false);
      }
      // Reverted, or the PCM tables moved away: back to what the site configures.
      t = new Target(null, "site", siteMem, siteCache, "no table on this RegionServer has "
        + "carried PCM's heap shares for " + absentPeriods + " periods (reverted, or moved to "
        + "other servers)");
    } else {
      absentPeriods = 0;
    }
    lastQuiet = null;
    float wantMem = clamp(t.memstore, memMin, memMax);
    float wantCache = clamp(t.blockCache, cacheMin, cacheMax);
    float[] next = step(curMem, curCache, wantMem, wantCache, step, maxUsed);
    if (Math.abs(next[0] - curMem) < EPSILON && Math.abs(next[1] - curCache) < EPSILON) {
      LOG.debug("PCM heap tuner: shares at their target, {} of table {} (memstore {}, block "
        + "cache {})", t.workload, t.table, curMem, curCache);
      return new TunerResult(false);
    }
    String toward = t.table == null ? "the site's configured shares"
      : "the " + t.workload + " policy of table " + t.table;
    LOG.info("PCM heap tuner: memstore share {} -> {}, block-cache share {} -> {}, toward {} "
      + "(memstore {}, block cache {}; in the operator's ranges {}) because {}{}",
      fmt(curMem), fmt(next[0]), fmt(curCache), fmt(next[1]), toward, fmt(t.memstore),
      fmt(t.blockCache), fmt(wantMem) + "/" + fmt(wantCache), t.table == null ? "" : "it ",
      t.why);
    TunerResult r = new TunerResult(true);
    r.setMemStoreSize(next[0]);
    r.setBlockCacheSize(next[1]);
    return r;
  }

  /**
   * One step from ({@code mem}, {@code cache}) toward ({@code wantMem}, {@code wantCache}): each
   * moves by at most {@code step}; the share that grows is held back so that the two stay within
   * {@code maxUsed}. Returns the new memstore and block-cache shares.
   */
  static float[] step(float mem, float cache, float wantMem, float wantCache, float step,
    float maxUsed) {
    float m = mem + clamp(wantMem - mem, -step, step);
    float c = cache + clamp(wantCache - cache, -step, step);
    float room = maxUsed;
    // Above by float noise only is not above: HeapMemoryManager checks in whole percent.
    if (m + c > room + 1e-4f) {
      if (m > mem) {
        m = Math.max(mem, room - c);
      }
      if (c > cache && m + c > room) {
        c = Math.max(cache, room - m);
      }
    }
    return new float[] { m, c };
  }

  /** The table this server serves most, with PCM's shares on it; null when none has them. */
  private Target pick(List<? extends Region> regions) {
    Map<TableName, Long> requests = new HashMap<>();
    Map<TableName, Integer> count = new HashMap<>();
    Map<TableName, TableDescriptor> descs = new HashMap<>();
    for (Region r : regions) {
      TableDescriptor td = r.getTableDescriptor();
      if (td.getValue(PcmKeys.TABLE_MEMSTORE_SHARE) == null
        && td.getValue(PcmKeys.TABLE_BLOCKCACHE_SHARE) == null) {
        continue;
      }
      TableName name = td.getTableName();
      descs.put(name, td);
      requests.merge(name, r.getReadRequestsCount() + r.getWriteRequestsCount(), Long::sum);
      count.merge(name, 1, Integer::sum);
    }
    TableName best = null;
    long bestDelta = 0;
    long total = 0;
    Map<TableName, Long> deltas = new HashMap<>();
    for (Map.Entry<TableName, Long> e : requests.entrySet()) {
      Long before = lastRequests.get(e.getKey());
      // A reopened region restarts its counts: count the new total.
      long d = before == null || e.getValue() < before ? e.getValue() : e.getValue() - before;
      deltas.put(e.getKey(), d);
      total += d;
      if (d > bestDelta) {
        best = e.getKey();
        bestDelta = d;
      }
    }
    lastRequests.clear();
    lastRequests.putAll(requests);
    String why;
    if (best != null) {
      why = "had " + bestDelta + " of the " + total + " requests to PCM tables on this "
        + "RegionServer in the last period";
    } else if (lastTable != null && descs.containsKey(lastTable)) {
      best = lastTable;
      why = "was served most before and no PCM table had requests in the last period";
    } else {
      for (Map.Entry<TableName, Integer> e : count.entrySet()) {
        if (best == null || e.getValue() > count.get(best)) {
          best = e.getKey();
        }
      }
      if (best == null) {
        return null;
      }
      why = "has the most regions (" + count.get(best) + ") of the PCM tables on this "
        + "RegionServer and none had requests in the last period";
    }
    lastTable = best;
    TableDescriptor td = descs.get(best);
    Float mem = share(td, PcmKeys.TABLE_MEMSTORE_SHARE);
    Float cache = share(td, PcmKeys.TABLE_BLOCKCACHE_SHARE);
    if (mem == null || cache == null) {
      return null;
    }
    String workload = td.getValue(PcmKeys.TABLE_CLASS);
    return new Target(best, workload == null ? "(unnamed)" : workload, mem, cache, why);
  }

  /** The share in {@code key} of {@code td}; null (logged) when missing or not a fraction. */
  private Float share(TableDescriptor td, String key) {
    String raw = td.getValue(key);
    if (raw == null) {
      quiet("missing-" + td.getTableName() + key, "PCM heap tuner: table {} has no {}; its "
        + "heap shares are not applied (run strata pcm apply on it again)", td.getTableName(), key);
      return null;
    }
    try {
      float v = Float.parseFloat(raw.trim());
      if (v > 0 && v < 1) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    quiet("bad-" + td.getTableName() + key + raw, "PCM heap tuner: table {} has {}='{}', not a "
      + "fraction above 0 and below 1; its heap shares are not applied", td.getTableName(), key,
      raw);
    return null;
  }

  /**
   * Logs a reason for doing nothing once, until the reason changes: a warning, except that no
   * table carrying PCM's shares yet is the normal state before the first apply.
   */
  private void quiet(String reason, String format, Object... args) {
    if (!reason.equals(lastQuiet)) {
      if (reason.equals("no-policy")) {
        LOG.info(format, args);
      } else {
        LOG.warn(format, args);
      }
      lastQuiet = reason;
    }
  }

  private static float clamp(float v, float lo, float hi) {
    return Math.max(lo, Math.min(hi, v));
  }

  private static String fmt(float v) {
    return String.format("%.3f", v);
  }

  /** The shares to steer toward and where they come from. */
  private static final class Target {
    final TableName table;
    final String workload;
    final float memstore;
    final float blockCache;
    final String why;

    Target(TableName table, String workload, float memstore, float blockCache, String why) {
      this.table = table;
      this.workload = workload;
      this.memstore = memstore;
      this.blockCache = blockCache;
      this.why = why;
    }
  }
}
