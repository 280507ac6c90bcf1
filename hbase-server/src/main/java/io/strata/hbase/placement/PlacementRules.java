package io.strata.hbase.placement;

import io.strata.hbase.tiering.StoreEngines;
import io.strata.hbase.tiering.TierPolicies;
import java.io.IOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.FSTableDescriptors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which storage policy the placement rules choose for a file under an HBase root directory, and
 * which rule chose it, resolved the way the RegionServers resolve it ({@link TierPolicies}): the
 * table's descriptor is read from the root's own {@code .tabledesc} (read only, as the master
 * wrote it), the site rules from the configuration the report runs with. Caches one resolution
 * per column family. Not thread-safe: one instance per scan.
 */
final class PlacementRules {
  private static final Logger LOG = LoggerFactory.getLogger(PlacementRules.class);

  private final FileSystem fs;
  private final Path root;
  private final Configuration conf;
  private final TierPolicies site;
  private final Map<TableName, Optional<TableDescriptor>> tables = new HashMap<>();
  /** "ns:table/family" to its resolution, sorted for the report. */
  private final Map<String, TierPolicies> families = new TreeMap<>();
  /** "ns:table/family" to the store engine class its stores run. */
  private final Map<String, String> engines = new TreeMap<>();

  PlacementRules(FileSystem fs, Path root, Configuration conf) {
    this.fs = fs;
    this.root = root;
    this.conf = conf;
    this.site = TierPolicies.from(conf);
  }

  /**
   * The rule for a file of {@code kind} at {@code relative} (path below the root), {@code bytes}
   * long; null for kinds no rule places (other files). For a store file, {@code ageMs} and
   * {@code oldestAgeMs} are the ages of its newest and oldest cells (null when unknown): a file
   * the family's age rule covers is reported with it ({@link TierPolicies#aged}), a date-tiered
   * compaction output with upstream's window policy (the window's age taken as its oldest
   * cell's).
   */
  PolicyRule ruleFor(FileKind kind, String relative, long bytes, Long ageMs, Long oldestAgeMs)
    throws IOException {
    PolicyRule r = ruleFor(kind, relative, bytes);
    if (r == null || ageMs == null || kind == FileKind.ARCHIVED || kind == FileKind.WAL
      || kind == FileKind.OLDWAL) {
      return r;
    }
    String[] parts = relative.split("/");
    TierPolicies p = family(parts[1], parts[2], parts[4]);
    TierPolicies.Choice aged = p.aged(ageMs);
    if (aged != null) {
      return of(aged);
    }
    if (kind == FileKind.COMPACTED && oldestAgeMs != null) {
      TierPolicies.Choice window = p.dateTieredWindow(oldestAgeMs);
      if (window != null) {
        return of(window);
      }
    }
    return r;
  }

  PolicyRule ruleFor(FileKind kind, String relative, long bytes) throws IOException {
    String[] parts = relative.split("/");
    switch (kind) {
      case WAL: {
        if (!HConstants.HREGION_LOGDIR_NAME.equals(parts[0])) {
          return null; // recovered.edits: placed with the region directory, by no rule of ours
        }
        // Live WALs are placed by upstream's key alone; Strata's site configuration sets it.
        String v = conf.getTrimmed(HConstants.WAL_STORAGE_POLICY);
        return v == null || v.isEmpty()
          ? new PolicyRule(HConstants.DEFAULT_WAL_STORAGE_POLICY,
            "HBase default: the WAL directory's HDFS policy")
          : new PolicyRule(v.toUpperCase(java.util.Locale.ROOT),
            "site " + HConstants.WAL_STORAGE_POLICY);
      }
      case OLDWAL:
        return of(site.choice(TierPolicies.Kind.OLDWAL));
      case FLUSHED:
        return of(family(parts[1], parts[2], parts[4]).choice(TierPolicies.Kind.FLUSHED));
      case COMPACTED: {
        // The rule is chosen by the compaction's input size, which the file does not record:
        // its own size stands in for it (a compaction's output is at most its input).
        TierPolicies p = family(parts[1], parts[2], parts[4]);
        TierPolicies.Choice c = p.compaction(bytes);
        String side = bytes < p.compactionThreshold() ? "< " : ">= ";
        return new PolicyRule(c.policy(),
          c.rule() + "; file size " + side + p.compactionThreshold() + " bytes");
      }
      case ARCHIVED:
        return of(family(parts[2], parts[3], parts[5]).choice(TierPolicies.Kind.ARCHIVED));
      case BULKLOADED:
        return of(family(parts[1], parts[2], parts[4]).choice(TierPolicies.Kind.BULKLOADED));
      default:
        return null;
    }
  }

  /** Every column family a rule was resolved for, "ns:table/family" to its policies. */
  Map<String, TierPolicies> families() {
    return Collections.unmodifiableMap(families);
  }

  /** Every column family a rule was resolved for, "ns:table/family" to its store engine. */
  Map<String, String> engines() {
    return Collections.unmodifiableMap(engines);
  }

  private static PolicyRule of(TierPolicies.Choice c) {
    return new PolicyRule(c.policy(), c.rule());
  }

  private TierPolicies family(String namespace, String table, String family) throws IOException {
    TableName name = TableName.valueOf(namespace, table);
    String id = name.getNameAsString() + "/" + family;
    TierPolicies cached = families.get(id);
    if (cached != null) {
      return cached;
    }
    TableDescriptor td = tables.computeIfAbsent(name, this::readDescriptor).orElse(null);
    ColumnFamilyDescriptor cf = td == null ? null : td.getColumnFamily(Bytes.toBytes(family));
    TierPolicies resolved = TierPolicies.resolve(conf, td, cf);
    families.put(id, resolved);
    engines.put(id, StoreEngines.engineOf(conf, td, cf));
    return resolved;
  }

  private Optional<TableDescriptor> readDescriptor(TableName name) {
    try {
      TableDescriptor td = FSTableDescriptors.getTableDescriptorFromFs(fs, root, name);
      if (td == null) {
        LOG.warn("Table {} has no descriptor under {}: its files' policies are resolved from the "
          + "site configuration alone", name, root);
      }
      return Optional.ofNullable(td);
    } catch (IOException e) {
      LOG.warn("Cannot read the descriptor of table {} under {} ({}): its files' policies are "
        + "resolved from the site configuration alone", name, root, e.toString());
      return Optional.empty();
    }
  }
}
