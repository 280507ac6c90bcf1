package io.strata.hbase.placement;

import java.util.Objects;

/**
 * The storage policy the placement rules choose for a file, and the rule that chose it, as the
 * store's log line names it: {@code family strata.flush.storage.policy},
 * {@code table strata.archive.storage.policy}, {@code family STORAGE_POLICY},
 * {@code site hbase.wal.storage.policy}, {@code Strata default}, ... (see
 * {@link io.strata.hbase.tiering.TierPolicies} for the precedence).
 *
 * @param policy the storage policy name, upper case
 * @param rule   the rule that chose it
 */
public final class PolicyRule {
  private final String policy;
  private final String rule;

  public PolicyRule(String policy, String rule) {
    this.policy = policy;
    this.rule = rule;
  }

  public String policy() {
    return policy;
  }

  public String rule() {
    return rule;
  }

  @Override
  public String toString() {
    return policy + " (" + rule + ")";
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof PolicyRule)) {
      return false;
    }
    PolicyRule o = (PolicyRule) other;
    return Objects.equals(policy, o.policy)
      && Objects.equals(rule, o.rule);
  }

  @Override
  public int hashCode() {
    return Objects.hash(policy, rule);
  }
}
