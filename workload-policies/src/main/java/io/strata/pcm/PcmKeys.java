package io.strata.pcm;

import io.strata.conf.KeyValues;
import org.apache.hadoop.conf.Configuration;

/**
 * Configuration keys of the workload-aware configuration policies (PCM), each declared once here
 * with its default and the one typed getter that reads and checks it. A bad value stops the
 * command with an {@link IllegalArgumentException} naming the key, the value and what is allowed.
 * Each is listed in docs/configuration.md. Stateless: safe from any thread.
 */
public final class PcmKeys {
  private PcmKeys() {
  }

  /**
   * A directory of operator policy files ({@code NAME.properties}, one per workload class); a file
   * there replaces the shipped policy of its class. Empty (the default): the shipped policies only.
   */
  public static final String POLICY_DIR = "strata.pcm.policy.dir";
  public static final String POLICY_DIR_DEFAULT = "";

  /** {@link #POLICY_DIR}; null when unset. */
  public static String policyDir(Configuration conf) {
    String v = conf.getTrimmed(POLICY_DIR, POLICY_DIR_DEFAULT);
    return v.isEmpty() ? null : v;
  }

  /** Milliseconds between two reads of the cluster's metrics. Default 10000. */
  public static final String INTERVAL_MS = "strata.pcm.interval.ms";
  public static final long INTERVAL_MS_DEFAULT = 10_000;

  /** {@link #INTERVAL_MS}; must be at least 100. */
  public static long intervalMs(Configuration conf) {
    long v = longValue(conf, INTERVAL_MS, INTERVAL_MS_DEFAULT);
    if (v < 100) {
      throw new IllegalArgumentException(INTERVAL_MS + " must be at least 100, not " + v);
    }
    return v;
  }

  /**
   * Samples in the sliding window the request rates are computed over: with the default interval,
   * the default 6 gives one-minute rates. Default 6.
   */
  public static final String WINDOW_SAMPLES = "strata.pcm.window.samples";
  public static final int WINDOW_SAMPLES_DEFAULT = 6;

  /** {@link #WINDOW_SAMPLES}; must be at least 2 (a rate needs two samples). */
  public static int windowSamples(Configuration conf) {
    return atLeast(conf, WINDOW_SAMPLES, WINDOW_SAMPLES_DEFAULT, 2);
  }

  /**
   * Consecutive classifications that must agree before a new class counts (hysteresis). Default 3:
   * with the default interval a class must hold for 30 s on top of the one-minute window, so a
   * burst shorter than the window plus half a minute never changes settings, while a real phase
   * change (a bulk load, a read phase) is acted on within about 90 s.
   */
  public static final String STABLE_WINDOWS = "strata.pcm.stable.windows";
  public static final int STABLE_WINDOWS_DEFAULT = 3;

  /** {@link #STABLE_WINDOWS}; must be at least 1. */
  public static int stableWindows(Configuration conf) {
    return atLeast(conf, STABLE_WINDOWS, STABLE_WINDOWS_DEFAULT, 1);
  }

  /**
   * Requests per second on a table below which it is idle: no class, and settings stay as they
   * are. Default 1.
   */
  public static final String MIN_OPS_PER_SEC = "strata.pcm.min.ops.per.sec";
  public static final double MIN_OPS_PER_SEC_DEFAULT = 1.0;

  /** {@link #MIN_OPS_PER_SEC}; must not be negative. */
  public static double minOpsPerSec(Configuration conf) {
    double v = doubleValue(conf, MIN_OPS_PER_SEC, MIN_OPS_PER_SEC_DEFAULT);
    if (v < 0) {
      throw new IllegalArgumentException(MIN_OPS_PER_SEC + " must not be negative, not " + v);
    }
    return v;
  }

  /**
   * The share of the other kind of request that still counts as "only": with the default 0.01 a
   * workload of at least 99 % writes is write-only (BL, WO), of at least 99 % reads read-only (RO).
   * Default 0.01.
   */
  public static final String ONLY_TOLERANCE = "strata.pcm.only.tolerance";
  public static final double ONLY_TOLERANCE_DEFAULT = 0.01;

  /** {@link #ONLY_TOLERANCE}; from 0 to 0.1 (above, it would eat the mostly-classes). */
  public static double onlyTolerance(Configuration conf) {
    double v = doubleValue(conf, ONLY_TOLERANCE, ONLY_TOLERANCE_DEFAULT);
    if (v < 0 || v >= 0.1) {
      throw new IllegalArgumentException(ONLY_TOLERANCE + " must be from 0 to below 0.1, not " + v);
    }
    return v;
  }

  /**
   * Physical memory of one RegionServer host in bytes, from which a policy's heap share
   * ((0.5 to 0.75) x RAM) is computed. 0 (the default): unknown; the recommended heap is then the
   * RegionServers' current maximum heap.
   */
  public static final String NODE_RAM_BYTES = "strata.pcm.node.ram.bytes";
  public static final long NODE_RAM_BYTES_DEFAULT = 0;

  /** {@link #NODE_RAM_BYTES}; must not be negative. */
  public static long nodeRamBytes(Configuration conf) {
    long v = longValue(conf, NODE_RAM_BYTES, NODE_RAM_BYTES_DEFAULT);
    if (v < 0) {
      throw new IllegalArgumentException(NODE_RAM_BYTES + " must not be negative, not " + v);
    }
    return v;
  }

  /**
   * Whether the monitor reads the Get/Scan split of a table from its RegionServers' {@code /jmx}
   * (per-table request metrics on their info servers). Without it a read-only table is RO-Read.
   * Default true.
   */
  public static final String JMX_ENABLED = "strata.pcm.jmx.enabled";
  public static final boolean JMX_ENABLED_DEFAULT = true;

  /** {@link #JMX_ENABLED}; must be true or false. */
  public static boolean jmxEnabled(Configuration conf) {
    return KeyValues.bool(JMX_ENABLED, conf.getTrimmed(JMX_ENABLED), JMX_ENABLED_DEFAULT);
  }

  /** Milliseconds to wait for one RegionServer's {@code /jmx}. Default 5000. */
  public static final String JMX_TIMEOUT_MS = "strata.pcm.jmx.timeout.ms";
  public static final long JMX_TIMEOUT_MS_DEFAULT = 5_000;

  /** {@link #JMX_TIMEOUT_MS}; must be at least 1. */
  public static long jmxTimeoutMs(Configuration conf) {
    long v = longValue(conf, JMX_TIMEOUT_MS, JMX_TIMEOUT_MS_DEFAULT);
    if (v < 1) {
      throw new IllegalArgumentException(JMX_TIMEOUT_MS + " must be at least 1, not " + v);
    }
    return v;
  }

  /**
   * On a RegionServer with {@link InsertSampler} loaded: one Put in this many (per server) is
   * checked for whether its row already existed, which tells WO-Insert from WO-Update. 1 checks
   * every Put. Default 32.
   */
  public static final String INSERT_SAMPLE_EVERY = "strata.pcm.insert.sample.every";
  public static final int INSERT_SAMPLE_EVERY_DEFAULT = 32;

  /** {@link #INSERT_SAMPLE_EVERY}; must be at least 1. */
  public static int insertSampleEvery(Configuration conf) {
    return atLeast(conf, INSERT_SAMPLE_EVERY, INSERT_SAMPLE_EVERY_DEFAULT, 1);
  }

  /**
   * Sampled Puts a window needs before its insert share is taken; with fewer, the share is unknown
   * and a write-only table is WO-Insert. Default 20.
   */
  public static final String INSERT_MIN_SAMPLES = "strata.pcm.insert.min.samples";
  public static final int INSERT_MIN_SAMPLES_DEFAULT = 20;

  /** {@link #INSERT_MIN_SAMPLES}; must be at least 1. */
  public static int insertMinSamples(Configuration conf) {
    return atLeast(conf, INSERT_MIN_SAMPLES, INSERT_MIN_SAMPLES_DEFAULT, 1);
  }

  /**
   * Whether applying a policy that pre-splits (BL: P = N x #RegionServers) re-splits a table that
   * already exists with fewer regions, online, at quantiles of its own keys ({@link Resplit}).
   * Default true. The key sample reads the table once on its RegionServers; regions split stay
   * split on revert (merging them back would undo the parallelism the load got, not a setting).
   */
  public static final String RESPLIT_ENABLED = "strata.pcm.resplit.enabled";
  public static final boolean RESPLIT_ENABLED_DEFAULT = true;

  /** {@link #RESPLIT_ENABLED}; "true" or "false". */
  public static boolean resplitEnabled(Configuration conf) {
    return KeyValues.bool(RESPLIT_ENABLED, conf.getTrimmed(RESPLIT_ENABLED),
      RESPLIT_ENABLED_DEFAULT);
  }

  /** Milliseconds a re-split may take in all, its splits and their retries. Default 300000. */
  public static final String RESPLIT_TIMEOUT_MS = "strata.pcm.resplit.timeout.ms";
  public static final long RESPLIT_TIMEOUT_MS_DEFAULT = 300_000;

  /** {@link #RESPLIT_TIMEOUT_MS}; must be at least 1000. */
  public static long resplitTimeoutMs(Configuration conf) {
    long v = longValue(conf, RESPLIT_TIMEOUT_MS, RESPLIT_TIMEOUT_MS_DEFAULT);
    if (v < 1000) {
      throw new IllegalArgumentException(RESPLIT_TIMEOUT_MS + " must be at least 1000, not " + v);
    }
    return v;
  }

  /**
   * Consecutive failed rounds (the cluster's metrics unreadable, or a policy that could not be
   * applied) after which {@code strata pcm watch} stops with an error instead of retrying. Default
   * 30: five minutes at the default interval, longer than a master fail-over.
   */
  public static final String WATCH_MAX_FAILURES = "strata.pcm.watch.max.failures";
  public static final int WATCH_MAX_FAILURES_DEFAULT = 30;

  /** {@link #WATCH_MAX_FAILURES}; must be at least 1. */
  public static int watchMaxFailures(Configuration conf) {
    return atLeast(conf, WATCH_MAX_FAILURES, WATCH_MAX_FAILURES_DEFAULT, 1);
  }

  /**
   * Table descriptor value PCM's {@code apply} writes: the label of the workload class whose
   * policy the table carries (e.g. {@code WO-Insert}). {@link PcmHeapTuner} reads it on the
   * RegionServer to say which class it steers toward.
   */
  public static final String TABLE_CLASS = "strata.pcm.class";

  /**
   * Table descriptor value PCM's {@code apply} writes: the policy's share of the heap for the
   * global memstore ({@code hbase.regionserver.global.memstore.size} of the policy), a fraction
   * above 0 and below 1. {@link PcmHeapTuner} steers the RegionServer's memstore share toward it.
   */
  public static final String TABLE_MEMSTORE_SHARE = "strata.pcm.heap.memstore.share";

  /**
   * Table descriptor value PCM's {@code apply} writes: the policy's share of the heap for the
   * block cache ({@code hfile.block.cache.size} of the policy), a fraction above 0 and below 1.
   * {@link PcmHeapTuner} steers the RegionServer's block-cache share toward it.
   */
  public static final String TABLE_BLOCKCACHE_SHARE = "strata.pcm.heap.blockcache.share";

  /**
   * On a RegionServer running {@link PcmHeapTuner}: the largest change of the memstore share and
   * of the block-cache share in one tuner period
   * ({@code hbase.regionserver.heapmemory.tuner.period}, HBase's default 60 s), as a fraction of
   * the heap. Default 0.04, the largest step HBase's own DefaultHeapMemoryTuner takes: the
   * memstore flushes and the cache evicts gradually instead of at once.
   */
  public static final String HEAP_TUNER_STEP = "strata.pcm.heap.tuner.step";
  public static final double HEAP_TUNER_STEP_DEFAULT = 0.04;

  /** {@link #HEAP_TUNER_STEP}; above 0 and at most 0.5. */
  public static double heapTunerStep(Configuration conf) {
    double v = doubleValue(conf, HEAP_TUNER_STEP, HEAP_TUNER_STEP_DEFAULT);
    if (v <= 0 || v > 0.5) {
      throw new IllegalArgumentException(HEAP_TUNER_STEP + " must be above 0 and at most 0.5 (a "
        + "share of the heap moved in one tuner period), not " + v);
    }
    return v;
  }

  private static int atLeast(Configuration conf, String key, int dflt, int min) {
    long v = longValue(conf, key, dflt);
    if (v < min || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(key + " must be a whole number of at least " + min
        + ", not " + conf.get(key));
    }
    return (int) v;
  }

  private static long longValue(Configuration conf, String key, long dflt) {
    return KeyValues.whole(key, conf.getTrimmed(key), dflt);
  }

  private static double doubleValue(Configuration conf, String key, double dflt) {
    return KeyValues.finite(key, conf.getTrimmed(key), dflt);
  }
}
