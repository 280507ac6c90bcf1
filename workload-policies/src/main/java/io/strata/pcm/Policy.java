package io.strata.pcm;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One configuration policy: the settings of a workload class, as loaded from its file.
 * Immutable.
 *
 * @param workload the class it is for
 * @param source   where it was loaded from (a shipped resource or an operator's file)
 * @param values   the settings, in file order
 */
public record Policy(WorkloadClass workload, String source, Map<PolicyKey, PolicyValue> values) {
  public Policy {
    values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /** The value of {@code key}, or null when the policy leaves it alone. */
  public PolicyValue get(String key) {
    return values.get(PolicyKey.of(key));
  }
}
