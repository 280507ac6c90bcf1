package io.strata.hdfs.overlay;

import io.strata.compat.VersionCheck;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storage policies defined in the NameNode's configuration, added to HDFS's hard-coded suite by
 * the patched {@code BlockStoragePolicySuite.createDefaultSuite}. E.g. a WAL policy with one RAM
 * replica and two SSD ones, which no built-in policy offers:
 *
 * <pre>
 * strata.storage.policies = RAM_SSD
 * strata.storage.policy.RAM_SSD.id = 3
 * strata.storage.policy.RAM_SSD.storage-types = NVDIMM,SSD,SSD
 * strata.storage.policy.RAM_SSD.creation-fallbacks = SSD,DISK
 * strata.storage.policy.RAM_SSD.replication-fallbacks = SSD,DISK
 * </pre>
 *
 * An invalid definition is an {@link IllegalArgumentException} naming the key: the NameNode does
 * not start rather than run without a policy files may already carry.
 */
public final class ConfiguredStoragePolicies {
  private static final Logger LOG = LoggerFactory.getLogger(ConfiguredStoragePolicies.class);

  private ConfiguredStoragePolicies() {
  }

  /** Adds the configured policies to {@code policies} (indexed by id); no-op without conf. */
  public static void addTo(Configuration conf, BlockStoragePolicy[] policies) {
    if (conf == null) {
      return;
    }
    // The NameNode builds its policy suite once, at start: the first place where the overlay's
    // classes (patched from one Hadoop release's sources) can check the release they run on.
    VersionCheck.hadoopPlugin("Strata HDFS overlay (NameNode storage policies)",
      OverlayKeys.versionCheck(conf));
    for (String name : conf.getTrimmedStringCollection(OverlayKeys.STORAGE_POLICIES)) {
      BlockStoragePolicy p = parse(conf, name, policies);
      policies[p.getId()] = p;
      LOG.info("Storage policy {} from configuration: {}", name, p);
    }
    UndefinedStoragePolicies.compareWithPreviousStart(conf, policies);
  }

  private static BlockStoragePolicy parse(Configuration conf, String name,
    BlockStoragePolicy[] policies) {
    String prefix = OverlayKeys.STORAGE_POLICY_PREFIX + name;
    if (!name.matches("[A-Za-z][A-Za-z0-9_]*")) {
      throw invalid(OverlayKeys.STORAGE_POLICIES, "'" + name + "' is not a valid policy name "
        + "(letters, digits and _, starting with a letter)");
    }
    for (BlockStoragePolicy p : policies) {
      if (p != null && p.getName().equalsIgnoreCase(name)) {
        throw invalid(OverlayKeys.STORAGE_POLICIES, "policy name " + name + " is taken by "
          + (isBuiltIn(p) ? "a built-in policy" : "another configured policy")
          + " (id " + p.getId() + ")");
      }
    }
    String idKey = prefix + OverlayKeys.ID_SUFFIX;
    String idValue = conf.getTrimmed(idKey);
    if (idValue == null) {
      throw invalid(idKey, "missing; free ids: " + freeIds(policies));
    }
    int id;
    try {
      id = Integer.parseInt(idValue);
    } catch (NumberFormatException e) {
      throw invalid(idKey, "'" + idValue + "' is not a number");
    }
    if (id < 1 || id >= policies.length) {
      throw invalid(idKey, id + " is outside 1.." + (policies.length - 1)
        + " (policy ids have 4 bits; 0 means unspecified)");
    }
    if (policies[id] != null) {
      throw invalid(idKey, id + " is the id of " + policies[id].getName() + "; free ids: "
        + freeIds(policies));
    }
    StorageType[] types = types(conf, prefix + OverlayKeys.STORAGE_TYPES_SUFFIX, true);
    StorageType[] creation = types(conf, prefix + OverlayKeys.CREATION_FALLBACKS_SUFFIX, false);
    StorageType[] replication = types(conf, prefix + OverlayKeys.REPLICATION_FALLBACKS_SUFFIX,
      false);
    return new BlockStoragePolicy((byte) id, name, types, creation, replication);
  }

  private static boolean isBuiltIn(BlockStoragePolicy p) {
    return Arrays.stream(org.apache.hadoop.hdfs.protocol.HdfsConstants.StoragePolicy.values())
      .anyMatch(b -> b.value() == p.getId());
  }

  private static StorageType[] types(Configuration conf, String key, boolean required) {
    List<StorageType> out = new ArrayList<>();
    for (String t : conf.getTrimmedStringCollection(key)) {
      try {
        out.add(StorageType.valueOf(t.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw invalid(key, "'" + t + "' is not a storage type; valid: "
          + Arrays.toString(StorageType.values()));
      }
    }
    if (required && out.isEmpty()) {
      throw invalid(key, "missing: give the storage types of a block's replicas, e.g. SSD,DISK");
    }
    return out.toArray(new StorageType[0]);
  }

  private static List<Integer> freeIds(BlockStoragePolicy[] policies) {
    List<Integer> free = new ArrayList<>();
    for (int i = 1; i < policies.length; i++) {
      if (policies[i] == null) {
        free.add(i);
      }
    }
    return free;
  }

  private static IllegalArgumentException invalid(String key, String why) {
    return new IllegalArgumentException("Invalid storage policy configuration " + key + ": "
      + why);
  }
}
