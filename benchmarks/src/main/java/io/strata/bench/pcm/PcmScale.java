package io.strata.bench.pcm;

import java.util.List;
import java.util.Locale;

/**
 * How big a {@code strata bench pcm} run is. The paper's sizes (1 KB records, a 1 GB default
 * heap, a 128 MB memstore flush size, 10 GB regions) are divided by {@code sizeDivisor}, so that
 * the ratios between data, memstore and heap that decide its results (how often a region flushes,
 * when the default split policy splits, when the global memstore limit blocks updates) stay as
 * they were while the data fits this machine. Immutable.
 *
 * @param name              {@code quick}, {@code full} or a test's
 * @param sizeDivisor       the paper's byte sizes (heap, flush size, max file size) over this
 * @param bulkRecords       records of the Table III bulk load (the paper: 10 million)
 * @param datasets          records of the per-workload datasets (the paper: 1, 10, 100 million)
 * @param writeThreads      client threads of write workloads (the paper's PCM choice: 4)
 * @param readThreads       client threads of read workloads (the paper's: 60)
 * @param runSeconds        how long each non-load workload is measured
 * @param classifyRecords   records loaded before the classification runs
 * @param monitorIntervalMs the workload monitor's interval
 * @param windowSamples     the monitor's window
 * @param stableWindows     the hysteresis: windows a class must hold
 * @param classifyMaxSamples monitor reads per mix before it counts as not classified
 */
public record PcmScale(String name, int sizeDivisor, long bulkRecords, List<Long> datasets,
  int writeThreads, int readThreads, double runSeconds, long classifyRecords,
  long monitorIntervalMs, int windowSamples, int stableWindows, int classifyMaxSamples) {

  /** About 15 minutes on two cores. */
  public static final PcmScale QUICK = new PcmScale("quick", 16, 100_000, List.of(60_000L), 4, 16,
    15, 20_000, 1000, 4, 3, 20);
  /** About an hour: the bulk load of 400k records and two dataset sizes. */
  public static final PcmScale FULL = new PcmScale("full", 16, 400_000,
    List.of(100_000L, 400_000L), 4, 32, 40, 50_000, 1000, 5, 3, 30);

  public PcmScale {
    datasets = List.copyOf(datasets);
    if (sizeDivisor < 1 || bulkRecords < 1 || datasets.isEmpty() || writeThreads < 1
      || readThreads < 1 || runSeconds <= 0 || classifyRecords < 1 || monitorIntervalMs < 100
      || windowSamples < 2 || stableWindows < 1 || classifyMaxSamples < windowSamples) {
      throw new IllegalArgumentException("scale " + name + ": every size must be positive, the "
        + "window at least 2 samples and the monitor interval at least 100 ms");
    }
  }

  /**
   * The scale of that name.
   *
   * @throws IllegalArgumentException naming the valid ones
   */
  public static PcmScale parse(String name) {
    for (PcmScale s : List.of(QUICK, FULL)) {
      if (s.name().equalsIgnoreCase(name.trim())) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown scale '" + name + "'; use quick or full");
  }

  /** {@code mib} MiB of the paper's cluster, scaled to this run. */
  public long scaled(long mib) {
    return Math.max(1L << 20, (mib << 20) / sizeDivisor);
  }

  public String optionName() {
    return name.toLowerCase(Locale.ROOT);
  }
}
