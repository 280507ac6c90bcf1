package io.strata.pcm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.cli.CommandLines;
import io.strata.cli.JsonReports;
import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * {@code strata pcm}: workload-aware configuration policies for one table.
 * <ul>
 * <li>{@code classify}: watches the table's request rates until its class holds;</li>
 * <li>{@code recommend}: the policy of its class (or {@code --class}) worked out for the cluster,
 * and what applying it would change;</li>
 * <li>{@code apply}: as recommend; with {@code --execute} applies the descriptor changes online and
 * writes the restart plan; with {@code --create}, creates the table pre-split with the policy;</li>
 * <li>{@code watch}: the loop: observe, classify, and apply on each change of class;</li>
 * <li>{@code revert}: restores the values from before the first apply.</li>
 * </ul>
 * Dry run unless {@code --execute}. Not thread-safe: one run per call. Its options are parsed by
 * the tools module's {@code PcmCommand}, which calls {@link #run(String, Request, Configuration)}.
 */
public final class PcmTool {
  private static final String USAGE = "strata pcm classify|recommend|apply|watch|revert "
    + "--table T [options] (strata pcm SUBCOMMAND --help)";
  private static final ObjectMapper JSON = new ObjectMapper();

  private PcmTool() {
  }

  /** The options of a subcommand, typed; null where not given. */
  public static final class Request {
    /** The table, as [namespace:]name (required). */
    public String table;
    /** ZooKeeper quorum HOST:PORT. */
    public String zk;
    /** recommend/apply: this class's label instead of classifying. */
    public String workloadClass;
    /** apply/watch: apply the changes. */
    public boolean execute;
    /** Only show what would change (the default); excludes {@link #execute}. */
    public boolean dryRun;
    /** Directory of revert files and restart plans (default: the work directory's pcm/). */
    public File state;
    /** Operator policy files (default: {@link PcmKeys#POLICY_DIR}). */
    public String policyDir;
    /** recommend/apply with a class: comma-separated families of a table to create. */
    public String create;
    /** With {@link #create}: START,END split keys (\xNN escapes). */
    public String keyRange;
    /** The table's expected data size, at least 0 (default: its size now). */
    public Long datasetBytes;
    /** classify/watch: stop after this many reads, at least 1. */
    public Long maxSamples;
    /** Also write the result as JSON to this file. */
    public File json;
  }

  /** The subcommands, in the order the usage names them. */
  public static final List<String> SUBCOMMANDS =
    List.of("classify", "recommend", "apply", "watch", "revert");

  /**
   * Runs subcommand {@code sub} (one of {@link #SUBCOMMANDS}) with the options of {@code r};
   * returns the exit code: 0 done, 1 classify found no class or an apply failed, 2 bad input
   * (printed as {@code strata pcm SUB: reason} before the cluster is contacted).
   */
  public static int run(String sub, Request r, Configuration base) throws Exception {
    if (!SUBCOMMANDS.contains(sub)) {
      System.err.println("strata pcm: unknown subcommand '" + sub + "'\nusage: " + USAGE);
      return 2;
    }
    Configuration conf = new Configuration(base);
    Settings s;
    try {
      s = settings(sub, r, conf);
      // Every policy is loaded and checked before the cluster is touched: a bad operator file
      // stops the command here, naming the file, the key and the reason.
      s.policies = PolicyLoader.load(s.policyDir);
    } catch (IllegalArgumentException e) {
      System.err.println("strata pcm " + sub + ": " + e.getMessage());
      return 2;
    }
    try (Connection conn = ConnectionFactory.createConnection(conf);
      Admin admin = conn.getAdmin()) {
      boolean exists = admin.tableExists(s.table);
      if (!exists && s.create == null) {
        System.err.println("strata pcm " + sub + ": no table " + s.table + (sub.equals("apply")
          ? " (apply --class C --create FAMILIES creates it pre-split with C's policy)" : ""));
        return 2;
      }
      if (exists && s.create != null) {
        System.err.println("strata pcm " + sub + ": table " + s.table + " exists; --create only "
          + "makes a new table (without it, the policy is applied to this one online)");
        return 2;
      }
      ObjectNode report = JSON.createObjectNode();
      report.put("table", s.table.getNameAsString());
      report.put("command", sub);
      int code;
      switch (sub) {
        case "classify":
          code = classify(s, admin, report) == null ? 1 : 0;
          break;
        case "revert":
          code = revert(s, admin, report);
          break;
        case "watch":
          code = watch(s, admin, report);
          break;
        default:
          code = recommendOrApply(s, admin, report, sub.equals("apply") && s.execute);
      }
      if (r.json != null) {
        JsonReports.write(r.json, report);
        System.out.println("JSON report written to " + r.json);
      }
      return code;
    }
  }

  /** The parsed options and the keys they read. */
  private static final class Settings {
    TableName table;
    Configuration conf;
    WorkloadClass forced;
    boolean execute;
    File state;
    File policyDir;
    long datasetBytes;
    long maxSamples;
    Map<WorkloadClass, Policy> policies;
    /** Families of a table to create; null: the table must exist. */
    List<String> create;
    byte[] startKey;
    byte[] endKey;
  }

  private static Settings settings(String sub, Request r, Configuration conf) {
    Settings s = new Settings();
    if (r.table == null) {
      throw new IllegalArgumentException("--table is required");
    }
    s.table = TableName.valueOf(r.table);
    if (r.zk != null) {
      String zk = r.zk;
      int colon = zk.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("--zk takes HOST:PORT, not '" + zk + "'");
      }
      conf.set(HConstants.ZOOKEEPER_QUORUM, zk.substring(0, colon));
      try {
        conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, Integer.parseInt(zk.substring(colon + 1)));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--zk port must be a number, not '" + zk + "'");
      }
    }
    if (r.workloadClass != null) {
      s.forced = WorkloadClass.fromLabel(r.workloadClass);
      if (s.forced == null) {
        throw new IllegalArgumentException("--class '" + r.workloadClass
          + "' is not a workload class");
      }
    }
    if (r.execute && r.dryRun) {
      throw new IllegalArgumentException("--execute and --dry-run exclude each other");
    }
    s.execute = r.execute;
    if (r.create != null) {
      if (!sub.equals("recommend") && !sub.equals("apply")) {
        throw new IllegalArgumentException("--create goes with recommend or apply, not " + sub);
      }
      if (s.forced == null) {
        throw new IllegalArgumentException("--create needs --class: a table that does not exist "
          + "has no workload to classify yet");
      }
      s.create = new java.util.ArrayList<>();
      for (String f : r.create.split(",")) {
        if (!f.trim().isEmpty()) {
          s.create.add(f.trim());
        }
      }
      if (s.create.isEmpty()) {
        throw new IllegalArgumentException("--create needs at least one column family");
      }
      String range = r.keyRange != null ? r.keyRange : "\\x00,\\xFF";
      int comma = range.indexOf(',');
      if (comma <= 0 || comma == range.length() - 1) {
        throw new IllegalArgumentException("--key-range takes START,END, not '" + range + "'");
      }
      s.startKey = Bytes.toBytesBinary(range.substring(0, comma));
      s.endKey = Bytes.toBytesBinary(range.substring(comma + 1));
      if (Bytes.compareTo(s.startKey, s.endKey) >= 0) {
        throw new IllegalArgumentException("--key-range start must sort before its end: '"
          + range + "'");
      }
    } else if (r.keyRange != null) {
      throw new IllegalArgumentException("--key-range goes with --create");
    }
    s.state = r.state != null ? r.state : CommandLines.workDir("pcm");
    String dir = r.policyDir != null ? r.policyDir : PcmKeys.policyDir(conf);
    s.policyDir = dir == null ? null : new File(dir);
    s.datasetBytes = atLeast("--dataset-bytes", r.datasetBytes, 0, 0);
    int window = PcmKeys.windowSamples(conf);
    int stable = PcmKeys.stableWindows(conf);
    s.maxSamples = atLeast("--max-samples", r.maxSamples,
      sub.equals("watch") ? Long.MAX_VALUE : window + stable + 10, 1);
    s.conf = conf;
    // Read every key now, so that a bad value stops the command before it touches the cluster.
    PcmKeys.intervalMs(conf);
    PcmKeys.minOpsPerSec(conf);
    PcmKeys.onlyTolerance(conf);
    PcmKeys.nodeRamBytes(conf);
    PcmKeys.jmxEnabled(conf);
    PcmKeys.jmxTimeoutMs(conf);
    PcmKeys.insertMinSamples(conf);
    PcmKeys.watchMaxFailures(conf);
    return s;
  }

  private static long atLeast(String option, Long value, long dflt, long min) {
    if (value == null) {
      return dflt;
    }
    if (value < min) {
      throw new IllegalArgumentException(option + " must be at least " + min + ", not " + value);
    }
    return value;
  }

  private static WorkloadMonitor monitor(Settings s, Admin admin) {
    return new WorkloadMonitor(s.table, source(s, admin),
      new WorkloadWindow(PcmKeys.windowSamples(s.conf), PcmKeys.insertMinSamples(s.conf)),
      new WorkloadClassifier(PcmKeys.minOpsPerSec(s.conf), PcmKeys.onlyTolerance(s.conf)),
      PcmKeys.stableWindows(s.conf));
  }

  private static MetricsSource source(Settings s, Admin admin) {
    JmxRequestCounters jmx = PcmKeys.jmxEnabled(s.conf)
      ? new JmxRequestCounters(PcmKeys.jmxTimeoutMs(s.conf)) : null;
    return new ClusterMetricsSource(admin, jmx, jmx);
  }

  /** Observes until a class holds or the samples run out; returns it, null when none held. */
  private static WorkloadClass classify(Settings s, Admin admin, ObjectNode report)
    throws IOException, InterruptedException {
    WorkloadMonitor m = monitor(s, admin);
    long interval = PcmKeys.intervalMs(s.conf);
    ArrayNode windows = report.putArray("windows");
    WorkloadMonitor.Observation o = null;
    for (long i = 0; i < s.maxSamples; i++) {
      if (i > 0) {
        Thread.sleep(interval);
      }
      o = m.observe();
      print(s.table, o, windows);
      if (o.changed().isPresent()) {
        break;
      }
    }
    WorkloadClass c = o == null ? null : o.stable();
    report.put("class", c == null ? null : c.label());
    report.put("stableWindows", PcmKeys.stableWindows(s.conf));
    System.out.println(c == null
      ? "table " + s.table + ": no class held for " + PcmKeys.stableWindows(s.conf)
        + " consecutive windows within " + s.maxSamples + " samples (idle or changing)"
      : "table " + s.table + ": " + c + " (held " + o.run() + " consecutive windows)");
    report.put("lastSample", sampleJson(o == null ? null : o.sample()));
    return c;
  }

  private static void print(TableName table, WorkloadMonitor.Observation o, ArrayNode windows) {
    TableSample s = o.sample();
    ObjectNode w = windows.addObject();
    w.put("atMs", s.atMs());
    if (o.rates() == null) {
      System.out.printf("table %s: filling the window: %d region(s), %d store file(s), %d MB "
        + "data, %d RegionServer(s)%n", table, s.regions(), s.storeFiles(), s.dataBytes() >> 20,
        s.liveServers());
      return;
    }
    WorkloadRates r = o.rates();
    w.put("readsPerSec", r.readsPerSec());
    w.put("writesPerSec", r.writesPerSec());
    w.put("filteredReadsPerSec", r.filteredPerSec());
    w.put("readFraction", Double.isNaN(r.readFraction()) ? null : r.readFraction());
    w.put("emptyAtStart", r.emptyAtStart());
    w.put("scanShare", Double.isNaN(r.scanShare()) ? null : r.scanShare());
    w.put("insertShare", Double.isNaN(r.insertShare()) ? null : r.insertShare());
    w.put("observed", o.observed().map(WorkloadClass::label).orElse(null));
    w.put("stable", o.stable() == null ? null : o.stable().label());
    System.out.printf("table %s: %.1f reads/s, %.1f writes/s over %.1f s (%s reads, scan share "
      + "%s, insert share %s), %d region(s), %d store file(s): %s (run %d)%s%n", table,
      r.readsPerSec(), r.writesPerSec(), r.seconds(), Double.isNaN(r.readFraction()) ? "no"
        : String.format("%.1f %%", 100 * r.readFraction()),
      Double.isNaN(r.scanShare()) ? "unknown" : String.format("%.2f", r.scanShare()),
      Double.isNaN(r.insertShare()) ? "unknown" : String.format("%.2f", r.insertShare()),
      s.regions(), s.storeFiles(),
      o.observed().map(WorkloadClass::label).orElse("idle"), o.run(),
      o.changed().map(c -> " -> class now " + c).orElse(""));
  }

  private static ObjectNode sampleJson(TableSample s) {
    if (s == null) {
      return null;
    }
    ObjectNode n = JSON.createObjectNode();
    n.put("regions", s.regions());
    n.put("storeFiles", s.storeFiles());
    n.put("storeFileBytes", s.storeFileBytes());
    n.put("memStoreBytes", s.memStoreBytes());
    n.put("liveServers", s.liveServers());
    n.put("maxHeapBytes", s.maxHeapBytes());
    n.put("usedHeapBytes", s.usedHeapBytes());
    return n;
  }

  private static int recommendOrApply(Settings s, Admin admin, ObjectNode report, boolean execute)
    throws IOException, InterruptedException {
    WorkloadClass c = s.forced != null ? s.forced : classify(s, admin, report);
    if (c == null) {
      return 1;
    }
    TableSample now = source(s, admin).sample(s.table);
    applyClass(s, admin, report, c, now, execute);
    return 0;
  }

  private static void applyClass(Settings s, Admin admin, ObjectNode report, WorkloadClass c,
    TableSample now, boolean execute) throws IOException {
    Recommendation rec = new AdaptationManager(s.policies).recommend(c,
      ClusterFacts.of(now, PcmKeys.nodeRamBytes(s.conf), s.datasetBytes));
    TableDescriptor td = s.create == null ? admin.getDescriptor(s.table) : newTable(s);
    PolicyExecutor.Plan plan = PolicyExecutor.plan(td, rec);
    System.out.printf("table %s: policy %s from %s; X = %d (heap %d MB on %d RegionServer(s))%n",
      s.table, c, rec.policySource(), rec.x(), rec.heapBytes() >> 20, now.liveServers());
    ObjectNode r = report.putObject("recommendation");
    r.put("class", c.label());
    r.put("policy", rec.policySource());
    r.put("x", rec.x());
    r.put("heapBytes", rec.heapBytes());
    r.put("preSplitRegions", rec.preSplitRegions());
    ObjectNode threads = r.putObject("clientThreads");
    threads.put("threads", rec.clientThreads().threads());
    threads.put("rule", rec.clientThreads().rule());
    ArrayNode settings = r.putArray("settings");
    for (Recommendation.Setting st : rec.settings()) {
      ObjectNode n = settings.addObject();
      n.put("key", st.key());
      n.put("scope", st.scope().name());
      n.put("target", st.target());
      n.put("value", st.value());
      n.put("rule", st.rule());
    }
    ArrayNode changes = report.putArray("changes");
    for (Change ch : plan.changes()) {
      ObjectNode n = changes.addObject();
      n.put("scope", ch.scope().name());
      n.put("family", ch.family());
      n.put("key", ch.key());
      n.put("before", ch.before());
      n.put("after", ch.after());
      System.out.printf("  %-8s %s: %s -> %s%n", "online", ch.where(),
        ch.before() == null ? "(unset)" : ch.before(), ch.after());
    }
    for (Recommendation.Setting st : plan.restart()) {
      String value = st.scope() == Scope.RESTART_ENV
        ? (Long.parseLong(st.value()) >> 20) + "m (" + (rec.heapFromRam() ? st.rule() + " x RAM"
          : "the current heap; " + PcmKeys.NODE_RAM_BYTES + " unset") + ")" : st.value();
      System.out.printf("  %-8s %s = %s (not applied: read only at RegionServer start)%n",
        "restart", st.target(), value);
    }
    for (Recommendation.Setting st : plan.advice()) {
      if (s.create != null) {
        System.out.printf("  %-8s %s = %s (the new table's regions, split evenly from %s to "
          + "%s)%n", "create", st.target(), st.value(), Bytes.toStringBinary(s.startKey),
          Bytes.toStringBinary(s.endKey));
      } else {
        System.out.printf("  %-8s %s = %s (%s)%n", "advice", st.target(), st.value(),
          PcmKeys.resplitEnabled(s.conf) ? "--execute re-splits the table at its own keys when "
            + "it has fewer regions; a new table: apply --create"
            : "create the table pre-split into this many regions before a load: apply --create; "
            + PcmKeys.RESPLIT_ENABLED + " is false");
      }
    }
    System.out.printf("  %-8s client threads = %d (%s)%n", "advice",
      rec.clientThreads().threads(), rec.clientThreads().rule());
    File revertFile = revertFile(s);
    File restartPlan = new File(s.state, fileName(s.table) + ".restart-plan.txt");
    report.put("executed", execute);
    if (!execute) {
      System.out.println("dry run: nothing changed; --execute " + (s.create == null ? "applies "
        + plan.changes().size() + " change(s) online" : "creates the table with "
        + Math.max(1, rec.preSplitRegions()) + " region(s) and " + plan.changes().size()
        + " policy value(s)") + " and writes the restart plan to " + restartPlan);
      return;
    }
    if (s.create != null) {
      new PolicyExecutor(admin).create(plan, td, s.startKey, s.endKey, revertFile);
      report.put("created", true);
      report.put("regions", admin.getRegions(s.table).size());
    } else {
      PolicyExecutor executor = new PolicyExecutor(admin, PcmKeys.resplitEnabled(s.conf),
        PcmKeys.resplitTimeoutMs(s.conf));
      executor.apply(plan, revertFile);
      Resplit.Outcome split = executor.lastResplit();
      if (split != null) {
        ObjectNode n = report.putObject("resplit");
        n.put("regions_before", split.before());
        n.put("regions_after", split.after());
        n.put("sampled_keys", split.samples());
        ArrayNode points = n.putArray("points");
        split.points().forEach(points::add);
        System.out.printf("  %-8s regions %d -> %d (split at %d point(s) from %d sampled row "
          + "keys)%n", "re-split", split.before(), split.after(), split.points().size(),
          split.samples());
      }
    }
    PolicyExecutor.writeRestartPlan(plan, restartPlan);
    report.put("revertFile", revertFile.getPath());
    report.put("restartPlan", restartPlan.getPath());
    System.out.println("applied " + plan.changes().size() + " change(s) online; before-values "
      + "in " + revertFile + " (strata pcm revert --table " + s.table + "); restart plan in "
      + restartPlan);
  }

  /** The descriptor of a table to create: its families with HBase's defaults. */
  private static TableDescriptor newTable(Settings s) {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(s.table);
    for (String f : s.create) {
      b.setColumnFamily(ColumnFamilyDescriptorBuilder.of(f));
    }
    return b.build();
  }

  private static int watch(Settings s, Admin admin, ObjectNode report) throws Exception {
    long interval = PcmKeys.intervalMs(s.conf);
    ArrayNode windows = report.putArray("windows");
    System.out.println("watching table " + s.table + " every " + interval + " ms"
      + (s.execute ? "" : " (dry run)") + "; Ctrl-C stops");
    WatchLoop loop = new WatchLoop(monitor(s, admin), interval,
      PcmKeys.watchMaxFailures(s.conf), (c, now) -> applyClass(s, admin, report, c, now,
        s.execute), Thread::sleep);
    WatchLoop.Result r = loop.run(s.maxSamples, o -> print(s.table, o, windows));
    ArrayNode applied = report.putArray("applied");
    r.applied().forEach(applied::add);
    ArrayNode failures = report.putArray("failures");
    r.failures().forEach(failures::add);
    report.put("gaveUp", r.gaveUp());
    if (r.gaveUp()) {
      System.err.println("strata pcm watch: stopped after " + PcmKeys.watchMaxFailures(s.conf)
        + " failed rounds in a row; last: " + r.failures().get(r.failures().size() - 1));
      return 1;
    }
    return 0;
  }

  private static int revert(Settings s, Admin admin, ObjectNode report) throws IOException {
    File f = revertFile(s);
    List<Change> undone = new PolicyExecutor(admin).revert(s.table, f);
    ArrayNode arr = report.putArray("restored");
    for (Change c : undone) {
      System.out.printf("  %s: %s -> %s%n", c.where(), c.before(),
        c.after() == null ? "(unset)" : c.after());
      ObjectNode n = arr.addObject();
      n.put("where", c.where());
      n.put("from", c.before());
      n.put("to", c.after());
    }
    System.out.println("table " + s.table + ": " + undone.size() + " value(s) restored from " + f);
    return 0;
  }

  private static File revertFile(Settings s) {
    return new File(s.state, fileName(s.table) + ".revert.json");
  }

  private static String fileName(TableName t) {
    return t.getNameAsString().replace(':', '_');
  }
}
