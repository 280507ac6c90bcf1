package io.strata.pcm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Picks the policy of a workload class and works it out for the cluster (the paper's Policy
 * Adaptation Manager, Sec. III-C): X, the recommended heap in whole GiB, is the policy's share of
 * the host's memory when that is known, else the RegionServers' current maximum heap (a policy
 * must not assume memory it cannot see), at least 1; the pre-split count is
 * P = N x #RegionServers (Sec. III-B); each setting is resolved with them. A compaction threshold
 * also raises {@code hbase.hstore.compaction.max} to at least the threshold, because HBase never
 * selects a minor compaction whose minimum file count exceeds its maximum. Immutable: safe from
 * any thread.
 */
public final class AdaptationManager {
  private static final long GIB = 1L << 30;
  /** HBase's default {@code hbase.hstore.compaction.max}. */
  static final long COMPACTION_MAX_DEFAULT = 10;

  private final Map<WorkloadClass, Policy> policies;

  public AdaptationManager(Map<WorkloadClass, Policy> policies) {
    for (WorkloadClass c : WorkloadClass.values()) {
      if (!policies.containsKey(c)) {
        throw new IllegalArgumentException("no policy for workload class " + c);
      }
    }
    this.policies = Map.copyOf(policies);
  }

  /** The policy of {@code c}. */
  public Policy policy(WorkloadClass c) {
    return policies.get(c);
  }

  /** X: the recommended heap in whole GiB, at least 1. */
  static long x(long heapBytes) {
    return Math.max(1, heapBytes / GIB);
  }

  /** The recommended heap: the policy's share of the host's memory, else the current heap. */
  static long heapBytes(double ramFraction, ClusterFacts facts) {
    if (facts.nodeRamBytes() > 0 && !Double.isNaN(ramFraction)) {
      return (long) (ramFraction * facts.nodeRamBytes());
    }
    return facts.maxHeapBytes();
  }

  /** P = N x #RegionServers, at least N (one server). */
  static int preSplitRegions(long perServer, int liveServers) {
    return (int) Math.min(Integer.MAX_VALUE, perServer * Math.max(1, liveServers));
  }

  /** The policy of {@code c} worked out for {@code facts}. */
  public Recommendation recommend(WorkloadClass c, ClusterFacts facts) {
    Policy p = policies.get(c);
    PolicyValue frac = p.get(PolicyKey.HEAP_RAM_FRACTION);
    long heap = heapBytes(frac == null ? Double.NaN : frac.number(), facts);
    long x = x(heap);
    PolicyValue perServer = p.get(PolicyKey.PRESPLIT_PER_SERVER);
    int presplit = perServer == null ? 0
      : preSplitRegions((long) perServer.number(), facts.liveServers());
    long regions = presplit > 0 ? presplit : Math.max(1, facts.regions());
    long perRegion = facts.datasetBytes() / regions;
    List<Recommendation.Setting> out = new ArrayList<>();
    for (Map.Entry<PolicyKey, PolicyValue> e : p.values().entrySet()) {
      PolicyKey k = e.getKey();
      String value;
      if (k.name().equals(PolicyKey.HEAP_RAM_FRACTION)) {
        value = Long.toString(heap);
      } else if (k.name().equals(PolicyKey.PRESPLIT_PER_SERVER)) {
        value = Integer.toString(presplit);
      } else {
        value = e.getValue().resolve(x, perRegion);
      }
      out.add(new Recommendation.Setting(k.name(), k.scope(), k.target(), value,
        e.getValue().raw()));
      if (k.name().equals(PolicyKey.COMPACTION_THRESHOLD)) {
        long min = (long) Double.parseDouble(value);
        out.add(new Recommendation.Setting(PolicyKey.COMPACTION_MAX, Scope.FAMILY_CONFIG,
          PolicyKey.COMPACTION_MAX, Long.toString(Math.max(COMPACTION_MAX_DEFAULT, min)),
          "max(10," + PolicyKey.COMPACTION_THRESHOLD + ")"));
      }
    }
    boolean fromRam = facts.nodeRamBytes() > 0 && frac != null;
    return new Recommendation(c, p.source(), x, heap, fromRam, presplit, out,
      ClientThreads.advise(c, facts.liveServers()));
  }
}
