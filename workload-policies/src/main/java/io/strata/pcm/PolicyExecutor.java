package io.strata.pcm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.cli.JsonReports;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a {@link Recommendation} to a table at the narrowest scope HBase 2.6 allows without a
 * restart (the paper's Policy Executer): table values, family attributes and family
 * CONFIGURATION through one {@link Admin#modifyTable} (the table's regions reopen with them; the
 * table stays online). The heap shares of memstore and block cache go to the table as values
 * ({@link PcmKeys#TABLE_MEMSTORE_SHARE}, {@link PcmKeys#TABLE_BLOCKCACHE_SHARE}, with the class in
 * {@link PcmKeys#TABLE_CLASS}) that {@link PcmHeapTuner} steers each RegionServer toward online.
 * What HBase reads only at a RegionServer's start (heap size, memstore lower limit) is never
 * applied: it goes into the written plan, a site-file change with a rolling restart and its
 * reason. None of the policy keys is one HBase 2.6 reloads with
 * {@code update_config}: that reloads each server's own site file (compaction ratio, min and max
 * files, thread counts through HStore and CompactSplit), which would change every table, so the
 * per-table compaction keys go into the families' CONFIGURATION instead.
 *
 * <p>Before applying, the values it replaces are saved to the revert file; a second apply keeps
 * the values from before the first, so {@link #revert} always goes back to the table as it was
 * before PCM touched it. Thread-safety: as the {@link Admin}; two executors must not work on one
 * table at once.
 */
public final class PolicyExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyExecutor.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Admin admin;
  private final boolean resplit;
  private final long resplitTimeoutMs;
  private Resplit.Outcome lastResplit;

  /** An executor that re-splits as {@link PcmKeys}' defaults say. */
  public PolicyExecutor(Admin admin) {
    this(admin, PcmKeys.RESPLIT_ENABLED_DEFAULT, PcmKeys.RESPLIT_TIMEOUT_MS_DEFAULT);
  }

  /**
   * @param resplit          whether {@link #apply} re-splits an existing table into the regions
   *                         a pre-splitting policy asks for ({@link PcmKeys#RESPLIT_ENABLED})
   * @param resplitTimeoutMs how long that may take ({@link PcmKeys#RESPLIT_TIMEOUT_MS})
   */
  public PolicyExecutor(Admin admin, boolean resplit, long resplitTimeoutMs) {
    this.admin = admin;
    this.resplit = resplit;
    this.resplitTimeoutMs = resplitTimeoutMs;
  }

  /** What the last {@link #apply} re-split, or null when it did not try. */
  public Resplit.Outcome lastResplit() {
    return lastResplit;
  }

  /** What applying {@code rec} to {@code current} would change, and what it leaves to a restart. */
  public static Plan plan(TableDescriptor current, Recommendation rec) {
    List<Change> changes = new ArrayList<>();
    List<Recommendation.Setting> restart = new ArrayList<>();
    List<Recommendation.Setting> advice = new ArrayList<>();
    for (Recommendation.Setting s : rec.settings()) {
      switch (s.scope()) {
        case TABLE:
          add(changes, new Change(Scope.TABLE, null, s.target(), current.getValue(s.target()),
            s.value()));
          break;
        case FAMILY:
          for (ColumnFamilyDescriptor f : current.getColumnFamilies()) {
            add(changes, new Change(Scope.FAMILY, f.getNameAsString(), s.target(),
              f.getValue(s.target()), s.value()));
          }
          break;
        case FAMILY_CONFIG:
          for (ColumnFamilyDescriptor f : current.getColumnFamilies()) {
            add(changes, new Change(Scope.FAMILY_CONFIG, f.getNameAsString(), s.target(),
              f.getConfigurationValue(s.target()), s.value()));
          }
          break;
        case RESTART_SITE:
        case RESTART_ENV:
          restart.add(s);
          break;
        default:
          advice.add(s);
      }
    }
    // The class label, read by PcmHeapTuner on the RegionServers with the heap shares.
    add(changes, new Change(Scope.TABLE, null, PcmKeys.TABLE_CLASS,
      current.getValue(PcmKeys.TABLE_CLASS), rec.workload().label()));
    return new Plan(current.getTableName(), rec, changes, restart, advice);
  }

  private static void add(List<Change> changes, Change c) {
    if (!Objects.equals(c.before(), c.after())) {
      changes.add(c);
    }
  }

  /** A plan: descriptor changes to apply, settings left to a restart, advice. Immutable. */
  public static final class Plan {
    private final TableName table;
    private final Recommendation recommendation;
    private final List<Change> changes;
    private final List<Recommendation.Setting> restart;
    private final List<Recommendation.Setting> advice;

    public Plan(TableName table, Recommendation recommendation, List<Change> changes,
      List<Recommendation.Setting> restart, List<Recommendation.Setting> advice) {
      this.table = table;
      this.recommendation = recommendation;
      this.changes = changes;
      this.restart = restart;
      this.advice = advice;
    }

    public TableName table() {
      return table;
    }

    public Recommendation recommendation() {
      return recommendation;
    }

    public List<Change> changes() {
      return changes;
    }

    public List<Recommendation.Setting> restart() {
      return restart;
    }

    public List<Recommendation.Setting> advice() {
      return advice;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Plan)) {
        return false;
      }
      Plan o = (Plan) other;
      return Objects.equals(table, o.table)
        && Objects.equals(recommendation, o.recommendation)
        && Objects.equals(changes, o.changes)
        && Objects.equals(restart, o.restart)
        && Objects.equals(advice, o.advice);
    }

    @Override
    public int hashCode() {
      return Objects.hash(table, recommendation, changes, restart, advice);
    }

    @Override
    public String toString() {
      return "Plan[table=" + table + ", recommendation=" + recommendation + ", changes=" + changes +
        ", restart=" + restart + ", advice=" + advice + "]";
    }
  }

  /**
   * Applies the plan's descriptor changes, first saving the values they replace to
   * {@code revertFile}; then, for a policy that pre-splits (P regions) on a table with fewer,
   * re-splits it online at quantiles of its keys ({@link Resplit}; off with
   * {@link PcmKeys#RESPLIT_ENABLED}). Returns the descriptor HBase now holds.
   */
  public TableDescriptor apply(Plan plan, File revertFile) throws IOException {
    TableDescriptor after = applyChanges(plan, revertFile);
    lastResplit = null;
    int regions = plan.recommendation().preSplitRegions();
    if (resplit && regions > 1) {
      // After the descriptor change: the split daughters open with the policy's values.
      lastResplit = new Resplit(admin.getConnection()).toRegions(plan.table(), regions,
        resplitTimeoutMs);
    }
    return after;
  }

  private TableDescriptor applyChanges(Plan plan, File revertFile) throws IOException {
    if (plan.changes().isEmpty()) {
      LOG.info("PCM {} on table {}: already in place, nothing to change",
        plan.recommendation().workload(), plan.table());
      return admin.getDescriptor(plan.table());
    }
    saveRevert(plan.table(), plan.changes(), revertFile);
    TableDescriptor after = modify(plan.table(), plan.changes());
    for (Change c : plan.changes()) {
      LOG.info("PCM {} on table {}: {} {} -> {}", plan.recommendation().workload(), plan.table(),
        c.where(), show(c.before()), show(c.after()));
    }
    LOG.info("PCM {} on table {}: {} change(s) applied online (regions reopened); before-values "
      + "in {}", plan.recommendation().workload(), plan.table(), plan.changes().size(), revertFile);
    return after;
  }

  /**
   * Restores every value saved in {@code revertFile} (unsetting those that were unset), then
   * deletes it. Returns the changes made.
   */
  public List<Change> revert(TableName table, File revertFile) throws IOException {
    if (!revertFile.isFile()) {
      throw new IOException("no revert file " + revertFile + " for table " + table
        + ": nothing was applied, or it was reverted already");
    }
    JsonNode doc = JSON.readTree(revertFile);
    if (!table.getNameAsString().equals(doc.path("table").asText())) {
      throw new IOException("revert file " + revertFile + " is for table "
        + doc.path("table").asText() + ", not " + table);
    }
    List<Change> undo = new ArrayList<>();
    TableDescriptor current = admin.getDescriptor(table);
    for (JsonNode n : doc.path("changes")) {
      Scope scope = Scope.valueOf(n.path("scope").asText());
      String family = n.hasNonNull("family") ? n.get("family").asText() : null;
      String key = n.path("key").asText();
      String before = n.hasNonNull("before") ? n.get("before").asText() : null;
      String now = scope == Scope.TABLE ? current.getValue(key)
        : scope == Scope.FAMILY ? familyOf(current, family).getValue(key)
        : familyOf(current, family).getConfigurationValue(key);
      if (!Objects.equals(now, before)) {
        undo.add(new Change(scope, family, key, now, before));
      }
    }
    if (!undo.isEmpty()) {
      modify(table, undo);
    }
    for (Change c : undo) {
      LOG.info("PCM revert on table {}: {} {} -> {}", table, c.where(), show(c.before()),
        show(c.after()));
    }
    LOG.info("PCM revert on table {}: {} value(s) restored from {}", table, undo.size(),
      revertFile);
    Files.delete(revertFile.toPath());
    return undo;
  }

  private static ColumnFamilyDescriptor familyOf(TableDescriptor td, String family)
    throws IOException {
    ColumnFamilyDescriptor f = td.getColumnFamily(Bytes.toBytes(family));
    if (f == null) {
      throw new IOException("table " + td.getTableName() + " has no family " + family
        + " any more; it cannot be reverted");
    }
    return f;
  }

  private TableDescriptor modify(TableName table, List<Change> changes) throws IOException {
    admin.modifyTable(withChanges(admin.getDescriptor(table), changes));
    return admin.getDescriptor(table);
  }

  /**
   * Creates the plan's table, which must not exist yet, from {@code base} with the plan's changes,
   * pre-split into the recommendation's P regions with split points spread evenly from
   * {@code startKey} to {@code endKey} (HBase's {@link Admin#createTable(TableDescriptor, byte[],
   * byte[], int)}, which makes the first and last region take the keys outside the range). P of 0
   * or 1: one region. The before-values (unset) are saved to {@code revertFile}, so revert unsets
   * what the policy set. Returns the descriptor HBase now holds.
   */
  public TableDescriptor create(Plan plan, TableDescriptor base, byte[] startKey, byte[] endKey,
    File revertFile) throws IOException {
    if (Bytes.compareTo(startKey, endKey) >= 0) {
      throw new IllegalArgumentException("the key range's start " + Bytes.toStringBinary(startKey)
        + " must sort before its end " + Bytes.toStringBinary(endKey));
    }
    TableDescriptor desc = withChanges(base, plan.changes());
    int regions = plan.recommendation().preSplitRegions();
    saveRevert(plan.table(), plan.changes(), revertFile);
    if (regions >= 3) {
      admin.createTable(desc, startKey, endKey, regions);
    } else if (regions == 2) {
      admin.createTable(desc, new byte[][] { Bytes.split(startKey, endKey, 1)[1] });
    } else {
      admin.createTable(desc);
    }
    LOG.info("PCM {}: table {} created with {} region(s) from {} to {} and {} policy value(s); "
      + "before-values in {}", plan.recommendation().workload(), plan.table(),
      Math.max(1, regions), Bytes.toStringBinary(startKey), Bytes.toStringBinary(endKey),
      plan.changes().size(), revertFile);
    return admin.getDescriptor(plan.table());
  }

  /** {@code current} with {@code changes} made (a null after-value unsets the key). */
  static TableDescriptor withChanges(TableDescriptor current, List<Change> changes) {
    TableDescriptorBuilder tb = TableDescriptorBuilder.newBuilder(current);
    Map<String, ColumnFamilyDescriptorBuilder> families = new LinkedHashMap<>();
    for (Change c : changes) {
      if (c.scope() == Scope.TABLE) {
        if (c.after() == null) {
          tb.removeValue(Bytes.toBytes(c.key()));
        } else {
          tb.setValue(c.key(), c.after());
        }
        continue;
      }
      ColumnFamilyDescriptorBuilder fb = families.computeIfAbsent(c.family(),
        f -> ColumnFamilyDescriptorBuilder.newBuilder(current.getColumnFamily(Bytes.toBytes(f))));
      if (c.scope() == Scope.FAMILY) {
        if (c.after() == null) {
          fb.setValue(Bytes.toBytes(c.key()), null); // a null value unsets it
        } else {
          fb.setValue(c.key(), c.after());
        }
      } else if (c.after() == null) {
        fb.removeConfiguration(c.key());
      } else {
        fb.setConfiguration(c.key(), c.after());
      }
    }
    families.values().forEach(fb -> tb.modifyColumnFamily(fb.build()));
    return tb.build();
  }

  /** Saves the before-values, keeping those of an earlier apply that was not reverted. */
  private static void saveRevert(TableName table, List<Change> changes, File file)
    throws IOException {
    Map<String, ObjectNode> entries = new LinkedHashMap<>();
    if (file.isFile()) {
      for (JsonNode n : JSON.readTree(file).path("changes")) {
        entries.put(id(n.path("scope").asText(), n.path("family").asText(null),
          n.path("key").asText()), (ObjectNode) n);
      }
    }
    for (Change c : changes) {
      String id = id(c.scope().name(), c.family(), c.key());
      if (!entries.containsKey(id)) {
        ObjectNode n = JSON.createObjectNode();
        n.put("scope", c.scope().name());
        n.put("family", c.family());
        n.put("key", c.key());
        n.put("before", c.before());
        entries.put(id, n);
      }
    }
    ObjectNode doc = JSON.createObjectNode();
    doc.put("table", table.getNameAsString());
    ArrayNode arr = doc.putArray("changes");
    entries.values().forEach(arr::add);
    JsonReports.write(file, doc);
  }

  private static String id(String scope, String family, String key) {
    return scope + "/" + family + "/" + key;
  }

  private static String show(String v) {
    return v == null ? "(unset)" : v;
  }

  /**
   * Writes what needs a restart: the hbase-site.xml properties and the hbase-env.sh heap, the
   * reason, and the rolling-restart steps. Nothing of it is applied.
   */
  public static void writeRestartPlan(Plan plan, File out) throws IOException {
    StringBuilder sb = new StringBuilder();
    Recommendation rec = plan.recommendation();
    sb.append("# PCM ").append(rec.workload()).append(" for table ").append(plan.table())
      .append(": settings that need a RegionServer restart (policy ").append(rec.policySource())
      .append(")\n# Not applied: they need a restart. HBase reads the heap size and the memstore "
        + "lower limit only when a\n# RegionServer starts. They are RegionServer-wide: every table "
        + "on the servers shares them.\n\n");
    List<String> online = new ArrayList<>();
    for (Recommendation.Setting s : rec.settings()) {
      if (s.key().equals(PolicyKey.GLOBAL_MEMSTORE) || s.key().equals(PolicyKey.BLOCK_CACHE)) {
        online.add("#   " + s.key() + " = " + s.value() + " (table value " + s.target() + ")\n");
      }
    }
    if (!online.isEmpty()) {
      sb.append("# Applied online, no restart: the heap shares below are table values that "
        + "io.strata.pcm.PcmHeapTuner\n# moves each RegionServer toward, a bounded step per tuner "
        + "period, within the ranges\n"
        + "# hbase.regionserver.global.memstore.size.min.range/.max.range and "
        + "hfile.block.cache.size.min.range/.max.range.\n# On RegionServers without the tuner "
        + "(hbase.regionserver.heapmemory.tuner.class and\n# io.strata.pcm.PcmHeapRegistrar in "
        + "hbase.coprocessor.regionserver.classes) they need these site values and a restart:\n");
      online.forEach(sb::append);
      sb.append('\n');
    }
    StringBuilder site = new StringBuilder();
    for (Recommendation.Setting s : plan.restart()) {
      if (s.scope() == Scope.RESTART_ENV) {
        sb.append("# hbase-env.sh (").append(rec.heapFromRam() ? s.rule() + " x RAM"
          : "the current heap: set " + PcmKeys.NODE_RAM_BYTES + " for " + s.rule() + " x RAM")
          .append("):\nexport HBASE_HEAPSIZE=")
          .append(Math.max(1, Long.parseLong(s.value()) >> 20)).append("m\n\n");
      } else {
        site.append("<property><name>").append(s.target()).append("</name><value>")
          .append(s.value()).append("</value></property>\n");
      }
    }
    if (site.length() > 0) {
      sb.append("# hbase-site.xml:\n").append(site).append('\n');
    }
    sb.append("# Rolling restart, one RegionServer at a time, so the table stays served:\n"
      + "#  1. copy the changes above to every RegionServer's conf directory;\n"
      + "#  2. bin/rolling-restart.sh --rs-only   (or per server: bin/graceful_stop.sh --restart "
      + "--reload HOST);\n"
      + "#  3. check the new heap and shares on the RegionServers' web UI before the next one.\n");
    File parent = out.getAbsoluteFile().getParentFile();
    if (parent != null && !parent.isDirectory() && !parent.mkdirs()) {
      throw new IOException("cannot create directory " + parent + " for the restart plan");
    }
    Files.write(out.toPath(), sb.toString().getBytes(StandardCharsets.UTF_8));
  }
}
