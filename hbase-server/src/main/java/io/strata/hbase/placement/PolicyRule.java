package io.strata.hbase.placement;

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
public record PolicyRule(String policy, String rule) {

  @Override
  public String toString() {
    return policy + " (" + rule + ")";
  }
}
