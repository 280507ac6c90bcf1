package io.strata.distribution;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * Every class of every jar the tarball gives to an HDFS or HBase daemon or an HBase client
 * (lib/hbase, lib/hdfs, lib/hdfs-overlay; lib/faults for bin/strata-cluster's DataNodes only,
 * and in no other of these) is Java 11 bytecode at most (class-file major version 55), so that
 * it loads on a Java 11 runtime: Hadoop 3.4 supports Java 8 and 11, HBase 2.6
 * supports 8, 11 and 17. A class built for a later Java fails there with
 * UnsupportedClassVersionError when the daemon first loads it. Each offender is named with its
 * jar and major version. Upstream's jars (lib/upstream, lib/shell, lib/webapps) are not looked
 * into; they run as Maven Central serves them.
 */
public class DistributionJavaVersionIT {
  /** Java 11's class-file major version. */
  private static final int JAVA_11 = 55;

  /** The daemon and client directories and the Strata jars each must carry. */
  private static final Map<String, List<String>> EXPECTED = new TreeMap<>(Map.of(
    "lib/hbase", List.of("strata-common", "strata-hdfs-ramdisk-storage", "strata-hbase-server",
      "strata-rdma-transport", "strata-native", "strata-hbase-rdma-rpc",
      "strata-workload-policies"),
    "lib/hdfs", List.of("strata-common", "strata-hdfs-ramdisk-storage"),
    "lib/hdfs-overlay", List.of("strata-hdfs-overlay"),
    "lib/faults", List.of("strata-hdfs-faults")));
  /** Fault plug-ins: only bin/strata-cluster's DataNodes load them, never an install's daemons. */
  private static final String FAULTS = "strata-hdfs-faults";

  @Test
  public void daemonAndClientJarsAreJava11Bytecode() throws Exception {
    Path unpacked = new File("target/java-version-check").getAbsoluteFile().toPath();
    run(List.of("rm", "-rf", unpacked.toString()));
    Files.createDirectories(unpacked);
    run(List.of("tar", "xzf", tarball().getPath(), "-C", unpacked.toString()));
    Path root;
    try (Stream<Path> top = Files.list(unpacked)) {
      root = top.findFirst().orElseThrow(() -> new AssertionError("empty tarball"));
    }
    List<String> offenders = new ArrayList<>();
    int classes = 0;
    for (Map.Entry<String, List<String>> dir : EXPECTED.entrySet()) {
      Path lib = root.resolve(dir.getKey());
      assertTrue(lib + " is missing from the tarball", Files.isDirectory(lib));
      TreeSet<String> artifacts = new TreeSet<>();
      try (Stream<Path> jars = Files.list(lib)) {
        for (Path jar : (Iterable<Path>) jars.filter(p -> p.toString().endsWith(".jar"))::iterator) {
          artifacts.add(jar.getFileName().toString().replaceFirst("-\\d.*\\.jar$", ""));
          classes += check(root.relativize(jar).toString(), jar, offenders);
        }
      }
      if (!dir.getKey().equals("lib/faults")) {
        assertFalse(dir.getKey() + " carries the fault plug-ins " + FAULTS + ": an install would "
          + "put them on its daemons' class path", artifacts.contains(FAULTS));
      }
      for (String artifact : dir.getValue()) {
        assertTrue(dir.getKey() + " lacks " + artifact + " (has " + artifacts + ")",
          artifacts.contains(artifact));
      }
    }
    assertTrue("classes checked: " + classes, classes > 100);
    assertEquals("classes above Java 11 (class-file major version " + JAVA_11 + ") in the jars "
      + "of the HDFS and HBase daemons and clients: they fail with UnsupportedClassVersionError "
      + "on a Java 11 runtime", List.of(), offenders);
  }

  /**
   * Adds {@code jar} to {@code offenders} when classes in it are above Java 11, naming the first
   * few with their versions and counting the rest; returns the classes checked.
   */
  private static int check(String name, Path jar, List<String> offenders) throws IOException {
    int classes = 0;
    List<String> above = new ArrayList<>();
    try (JarFile jf = new JarFile(jar.toFile())) {
      for (Enumeration<JarEntry> e = jf.entries(); e.hasMoreElements();) {
        JarEntry entry = e.nextElement();
        // A multi-release jar's META-INF/versions/N/ classes load only on Java N and later.
        if (!entry.getName().endsWith(".class")
          || entry.getName().startsWith("META-INF/versions/")) {
          continue;
        }
        classes++;
        try (DataInputStream in = new DataInputStream(jf.getInputStream(entry))) {
          int magic = in.readInt();
          in.readUnsignedShort(); // minor version
          int major = in.readUnsignedShort();
          if (magic != 0xCAFEBABE) {
            above.add(entry.getName() + " (not a class file)");
          } else if (major > JAVA_11) {
            above.add(entry.getName() + " (major " + major + ", Java " + (major - 44) + ")");
          }
        }
      }
    }
    if (!above.isEmpty()) {
      offenders.add(name + ": " + above.size() + " of " + classes + " classes, e.g. "
        + String.join(", ", above.subList(0, Math.min(5, above.size()))));
    }
    return classes;
  }

  private static File tarball() {
    File tarball = new File(System.getProperty("strata.dist.tarball"));
    assertTrue("no distribution at " + tarball + ": run the package phase", tarball.isFile());
    return tarball;
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    File out = File.createTempFile("tar", ".out", new File("target"));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out).start();
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish within 300 s");
    }
    String output;
    try (InputStream in = Files.newInputStream(out.toPath())) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertEquals(String.join(" ", command) + ": " + output, 0, p.exitValue());
    return output;
  }
}
