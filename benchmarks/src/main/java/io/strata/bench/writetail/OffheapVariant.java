package io.strata.bench.writetail;

import io.strata.bench.JvmCommand;
import io.strata.bench.common.BenchJson;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The off-heap variant of {@code strata bench write-tail}: the off-heap memstore is JVM-wide in
 * HBase (one {@code ChunkCreator} per JVM, set up by the first RegionServer), so its policies run
 * after the others on a cluster of their own in a JVM of their own, started with enough direct
 * memory; its Result is read back typed.
 *
 * @param result the variant's Result, null when it wrote none
 * @param failure why the variant failed, or null
 */
record OffheapVariant(WriteTailResult result, String failure) {

  /**
   * Runs {@code s.offheapPolicies()} on an off-heap memstore in a JVM of its own (this one's
   * java, module flags, class path and heap, plus the direct memory the memstore needs), its
   * output relayed to {@code out}, and reads its JSON document back.
   */
  static OffheapVariant run(WriteTailBench.Settings s, PrintStream out) throws IOException,
    InterruptedException {
    long mb = s.offheapMemstoreMb() > 0 ? s.offheapMemstoreMb()
      : WriteTailCluster.onHeapMemstoreMb(s);
    File dir = new File(s.workDir().getAbsoluteFile().getParentFile(),
      s.workDir().getName() + "-offheap");
    Files.createDirectories(dir.toPath());
    File json = new File(dir, "offheap-variant.json");
    Files.deleteIfExists(json.toPath());
    List<String> cmd = new ArrayList<>();
    cmd.add(JvmCommand.javaExecutable());
    List<String> jvmArgs = ManagementFactory.getRuntimeMXBean().getInputArguments();
    cmd.addAll(JvmCommand.moduleFlags(jvmArgs));
    for (String a : jvmArgs) {
      if (a.startsWith("-Xmx") || a.startsWith("-Dlog4j.configuration=")
        || a.startsWith("-Dstrata.work=")) {
        cmd.add(a);
      }
    }
    cmd.add("-XX:MaxDirectMemorySize=" + (mb + WriteTailBench.DIRECT_MEMORY_MARGIN_MB) + "m");
    cmd.add("-Dstrata.log.file=" + new File(dir, "offheap-variant.log").getAbsolutePath());
    cmd.add("-cp");
    cmd.add(JvmCommand.absoluteClassPath(String.join(File.pathSeparator,
      JvmCommand.currentClassPath())));
    cmd.add(WriteTailBench.class.getName());
    List<String> args = new ArrayList<>(List.of("--rows", String.valueOf(s.rows()), "--threads",
      String.valueOf(s.threads()), "--value-bytes", String.valueOf(s.valueBytes()), "--policies",
      String.join(",", s.offheapPolicies().stream().map(Enum::name).toList()), "--rounds",
      String.valueOf(s.rounds()), "--warmup-rows", String.valueOf(s.warmupRows()), "--flush-mb",
      String.valueOf(s.flushBytes() >> 20), "--datanodes", String.valueOf(s.dataNodes()),
      "--settings", s.profile(), "--regions", String.valueOf(s.regions()),
      "--offheap-memstore-mb", String.valueOf(mb), "--monitor-ms", String.valueOf(s.monitorMs()),
      "--work-dir",
      new File(dir, "cluster").getAbsolutePath(), "--json", json.getAbsolutePath()));
    if (s.inMemoryFlushFactor() != null) {
      args.addAll(List.of("--in-memory-flush-factor", String.valueOf(s.inMemoryFlushFactor())));
    }
    if (s.plot() != null) {
      args.addAll(List.of("--plot", WriteTailBench.offheapPlot(s.plot()).getAbsolutePath()));
    }
    cmd.addAll(args);
    out.printf(Locale.ROOT, "%noff-heap variant (%s, %d MiB off-heap memstore) in a JVM of its "
      + "own: %s%n", s.offheapPolicies(), mb, String.join(" ", args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
      StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        out.println("  [off-heap] " + line);
      }
    }
    int code = p.waitFor();
    if (!json.isFile()) {
      return new OffheapVariant(null, "exited with " + code + " and wrote no results");
    }
    WriteTailResult result = BenchJson.read(json, WriteTailResult.class);
    return new OffheapVariant(result, code == 0 ? null : "exited with " + code);
  }
}
