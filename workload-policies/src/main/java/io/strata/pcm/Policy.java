package io.strata.pcm;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One configuration policy: the settings of a workload class, as loaded from its file.
 * Immutable.
 *
 * @param workload the class it is for
 * @param source   where it was loaded from (a shipped resource or an operator's file)
 * @param values   the settings, in file order
 */
public final class Policy {
  private final WorkloadClass workload;
  private final String source;
  private final Map<PolicyKey, PolicyValue> values;

  public Policy(WorkloadClass workload, String source, Map<PolicyKey, PolicyValue> values) {
    values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    this.workload = workload;
    this.source = source;
    this.values = values;
  }

  public WorkloadClass workload() {
    return workload;
  }

  public String source() {
    return source;
  }

  public Map<PolicyKey, PolicyValue> values() {
    return values;
  }

  /** The value of {@code key}, or null when the policy leaves it alone. */
  public PolicyValue get(String key) {
    return values.get(PolicyKey.of(key));
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof Policy)) {
      return false;
    }
    Policy o = (Policy) other;
    return Objects.equals(workload, o.workload)
      && Objects.equals(source, o.source)
      && Objects.equals(values, o.values);
  }

  @Override
  public int hashCode() {
    return Objects.hash(workload, source, values);
  }

  @Override
  public String toString() {
    return "Policy[workload=" + workload + ", source=" + source + ", values=" + values + "]";
  }
}
