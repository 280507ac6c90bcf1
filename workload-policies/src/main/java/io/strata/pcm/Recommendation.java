package io.strata.pcm;

import java.util.List;
import java.util.Objects;

/**
 * The policy of a class worked out for one table on one cluster. Immutable.
 *
 * @param workload        the class
 * @param policySource    the file the policy came from
 * @param x               the paper's X: the recommended RegionServer heap in whole GiB
 * @param heapBytes       the recommended RegionServer heap
 * @param heapFromRam     whether it is the policy's share of the host's memory (else the
 *                        RegionServers' current heap, the host's memory being unknown)
 * @param preSplitRegions P = N x #RegionServers, 0 when the policy does not pre-split
 * @param settings        every setting, resolved to its value
 * @param clientThreads   the concurrent client threads advised for the class (Fig. 3)
 */
public final class Recommendation {
  private final WorkloadClass workload;
  private final String policySource;
  private final long x;
  private final long heapBytes;
  private final boolean heapFromRam;
  private final int preSplitRegions;
  private final List<Setting> settings;
  private final ClientThreads clientThreads;

  public Recommendation(WorkloadClass workload, String policySource, long x, long heapBytes,
    boolean heapFromRam, int preSplitRegions, List<Setting> settings,
    ClientThreads clientThreads) {
    settings = List.copyOf(settings);
    this.clientThreads = java.util.Objects.requireNonNull(clientThreads, "clientThreads");
    this.workload = workload;
    this.policySource = policySource;
    this.x = x;
    this.heapBytes = heapBytes;
    this.heapFromRam = heapFromRam;
    this.preSplitRegions = preSplitRegions;
    this.settings = settings;
  }

  public WorkloadClass workload() {
    return workload;
  }

  public String policySource() {
    return policySource;
  }

  public long x() {
    return x;
  }

  public long heapBytes() {
    return heapBytes;
  }

  public boolean heapFromRam() {
    return heapFromRam;
  }

  public int preSplitRegions() {
    return preSplitRegions;
  }

  public List<Setting> settings() {
    return settings;
  }

  public ClientThreads clientThreads() {
    return clientThreads;
  }

  /**
   * One resolved setting.
   *
   * @param key   the policy file's key
   * @param scope where it takes effect
   * @param target the name HBase reads it under at that scope
   * @param value the value for this cluster
   * @param rule  as written in the policy (e.g. {@code 128MB*X})
   */
  public static final class Setting {
    private final String key;
    private final Scope scope;
    private final String target;
    private final String value;
    private final String rule;

    public Setting(String key, Scope scope, String target, String value, String rule) {
      this.key = key;
      this.scope = scope;
      this.target = target;
      this.value = value;
      this.rule = rule;
    }

    public String key() {
      return key;
    }

    public Scope scope() {
      return scope;
    }

    public String target() {
      return target;
    }

    public String value() {
      return value;
    }

    public String rule() {
      return rule;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Setting)) {
        return false;
      }
      Setting o = (Setting) other;
      return Objects.equals(key, o.key)
        && Objects.equals(scope, o.scope)
        && Objects.equals(target, o.target)
        && Objects.equals(value, o.value)
        && Objects.equals(rule, o.rule);
    }

    @Override
    public int hashCode() {
      return Objects.hash(key, scope, target, value, rule);
    }

    @Override
    public String toString() {
      return "Setting[key=" + key + ", scope=" + scope + ", target=" + target + ", value=" + value +
        ", rule=" + rule + "]";
    }
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof Recommendation)) {
      return false;
    }
    Recommendation o = (Recommendation) other;
    return Objects.equals(workload, o.workload)
      && Objects.equals(policySource, o.policySource)
      && x == o.x
      && heapBytes == o.heapBytes
      && heapFromRam == o.heapFromRam
      && preSplitRegions == o.preSplitRegions
      && Objects.equals(settings, o.settings)
      && Objects.equals(clientThreads, o.clientThreads);
  }

  @Override
  public int hashCode() {
    return Objects.hash(workload, policySource, x, heapBytes, heapFromRam, preSplitRegions,
      settings, clientThreads);
  }

  @Override
  public String toString() {
    return "Recommendation[workload=" + workload + ", policySource=" + policySource + ", x=" + x +
      ", heapBytes=" + heapBytes + ", heapFromRam=" + heapFromRam +
      ", preSplitRegions=" + preSplitRegions + ", settings=" + settings + ", clientThreads="
      + clientThreads + "]";
  }
}
