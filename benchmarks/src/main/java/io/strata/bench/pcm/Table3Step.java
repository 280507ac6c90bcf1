package io.strata.bench.pcm;

import java.util.List;

/**
 * One step of the PCM paper's Table III (bulk load of HBase): its heap, whether the table is
 * pre-split, its memstore flush size, blocking store files and compaction threshold, and the
 * speed-up over S.1 the paper measured. Immutable.
 *
 * @param step                S.1 to S.9
 * @param config              the paper's configuration column
 * @param heapGb              RegionServer heap, GB (the paper's default: 1)
 * @param preSplit            pre-split into N x #RegionServers regions
 * @param flushMb             memstore flush size in the paper's MB; 0: the default (128 MB)
 * @param blockingStoreFiles  0: the default (10)
 * @param compactionThreshold 0: the default (3)
 * @param paperSpeedup        the paper's speed-up over S.1
 */
public record Table3Step(String step, String config, double heapGb, boolean preSplit, long flushMb,
  int blockingStoreFiles, int compactionThreshold, double paperSpeedup) {

  /** The paper's nine steps. */
  public static final List<Table3Step> STEPS = List.of(
    new Table3Step("S.1", "Default", 1, false, 0, 0, 0, 1.0),
    new Table3Step("S.2", "S.1 + 4GB heap", 4, false, 0, 0, 0, 1.0),
    new Table3Step("S.3", "S.1 + 6GB heap", 6, false, 0, 0, 0, 1.0),
    new Table3Step("S.4", "S.1 + PreSplit", 1, true, 0, 0, 0, 2.7),
    new Table3Step("S.5", "S.4 + 4GB heap", 4, true, 0, 0, 0, 2.2),
    new Table3Step("S.6", "S.4 + 6GB heap", 6, true, 0, 0, 0, 2.1),
    new Table3Step("S.7", "S.6 + 256MB memstore", 6, true, 256, 0, 0, 2.8),
    new Table3Step("S.8", "S.6 + 512MB memstore", 6, true, 512, 0, 0, 3.0),
    new Table3Step("S.9", "S.8 + 20 BF & 12 CT", 6, true, 512, 20, 12, 3.3));
}
