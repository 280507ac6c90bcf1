package io.strata.distribution;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * Every Hadoop or HBase key (not {@code strata.*}) that the project writes, in its site templates
 * and XML resources, in its main code's string literals and in its docs, is a key upstream knows:
 * a {@code <name>} of {@code core-default.xml}, {@code hdfs-default.xml} or
 * {@code hbase-default.xml}, or a string constant of an upstream class on this module's class
 * path ({@code HConstants} and the many keys that live only in code), or a key listed here as
 * deliberately not upstream's, with the reason. A misspelled key is ignored by Hadoop's
 * {@code Configuration} in silence: {@code dfs.namenode.blockplacementpolicy.min-blocks-for-write}
 * stood in the HDFS template for {@code dfs.namenode.block-placement.min-blocks-for.write}, and
 * the headroom it was meant to keep never took effect.
 */
public class UpstreamKeySpellingTest {

  /** What a Hadoop or HBase key looks like in text. */
  private static final Pattern KEY =
    Pattern.compile("(?:dfs|hbase|fs|hadoop|ipc|zookeeper)\\.[a-zA-Z0-9_.\\-]*[a-zA-Z0-9]");
  private static final Pattern XML_NAME = Pattern.compile("<name>\\s*(" + KEY.pattern()
    + ")\\s*</name>");
  private static final Pattern DOC_KEY = Pattern.compile("`(" + KEY.pattern() + ")[`= ]");
  private static final Pattern JAVA_KEY = Pattern.compile("\"(" + KEY.pattern() + ")\"");

  /** Keys that are not upstream's on purpose, each with why. */
  private static final Map<String, String> DELIBERATE = Map.of(
    "hbase.usepagefilter", "YCSB's HBase binding's own client key, set by the YCSB benchmarks",
    "hbase.shell.version", "a Maven property of distribution/pom.xml, not a configuration key",
    "hadoop.version", "a Maven property of the parent pom (io.strata.compat.SupportedVersions "
      + "takes the supported Hadoop release from it), not a configuration key");

  /**
   * Keys upstream builds at run time from a prefix and a name, so no constant holds them whole:
   * each prefix with the form it takes.
   */
  private static final List<Pattern> COMPOSED = List.of(
    // DFSConfigKeys.DFS_DATANODE_DU_RESERVED_KEY + "." + a storage type (HDFS-14512)
    Pattern.compile("dfs\\.datanode\\.du\\.reserved\\.(?:ram_disk|ssd|disk|archive|nvdimm"
      + "|provided)"));

  @Test
  public void everyUpstreamKeyTheProjectWritesIsSpelledAsUpstreamSpellsIt() throws IOException {
    Path root = repositoryRoot();
    Map<String, Set<String>> written = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
        String rel = root.relativize(p).toString().replace(File.separatorChar, '/');
        if (rel.startsWith(".") || rel.contains("/target/") || rel.contains("/results/")
          || rel.startsWith("target/") || rel.contains("/src/test/")) {
          continue;
        }
        Pattern pattern = rel.endsWith(".template") || (rel.endsWith(".xml")
          && !rel.endsWith("pom.xml")) ? XML_NAME : rel.endsWith(".md") ? DOC_KEY
          : rel.endsWith(".java") && rel.contains("/src/main/") ? JAVA_KEY : null;
        if (pattern == null) {
          continue;
        }
        Matcher m = pattern.matcher(new String(Files.readAllBytes(p), StandardCharsets.UTF_8));
        while (m.find()) {
          written.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(rel);
        }
      }
    }
    assertTrue("no upstream key found in " + root + ": the scan is broken",
      written.containsKey("hbase.wal.storage.policy") && written.size() > 30);

    Set<String> known = upstreamKeys();
    TreeSet<String> unknown = new TreeSet<>();
    for (Map.Entry<String, Set<String>> e : written.entrySet()) {
      String key = e.getKey();
      if (!known.contains(key) && !DELIBERATE.containsKey(key)
        && COMPOSED.stream().noneMatch(c -> c.matcher(key).matches())) {
        unknown.add(key + " (in " + e.getValue() + ")");
      }
    }
    if (!unknown.isEmpty()) {
      fail("keys upstream does not know (misspelled? if new on purpose, list them in "
        + "DELIBERATE with the reason): " + unknown);
    }
  }

  /** The names of upstream's default files, and every key-shaped string of upstream's classes. */
  private static Set<String> upstreamKeys() throws IOException {
    Set<String> keys = new HashSet<>();
    for (String file : List.of("core-default.xml", "hdfs-default.xml", "hbase-default.xml")) {
      try (InputStream in = UpstreamKeySpellingTest.class.getClassLoader()
        .getResourceAsStream(file)) {
        assertTrue(file + " is not on the class path", in != null);
        Matcher m = XML_NAME.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        while (m.find()) {
          keys.add(m.group(1));
        }
      }
    }
    int jars = 0;
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = Paths.get(entry).getFileName().toString();
      if ((name.startsWith("hbase-") || name.startsWith("hadoop-")) && name.endsWith(".jar")
        && !name.endsWith("-tests.jar")) {
        jars++;
        scanJar(Paths.get(entry), keys);
      }
    }
    assertFalse("no upstream jar on the class path", jars == 0);
    return keys;
  }

  private static void scanJar(Path jar, Set<String> out) throws IOException {
    try (JarFile jf = new JarFile(jar.toFile())) {
      Enumeration<JarEntry> entries = jf.entries();
      while (entries.hasMoreElements()) {
        JarEntry e = entries.nextElement();
        if (e.getName().startsWith("org/apache/hadoop/") && e.getName().endsWith(".class")) {
          try (InputStream in = jf.getInputStream(e)) {
            readStrings(in, out);
          }
        }
      }
    }
  }

  /** Adds the key-shaped UTF-8 entries of a class file's constant pool. */
  private static void readStrings(InputStream raw, Set<String> out) throws IOException {
    ConstantPool pool = ConstantPool.read(new DataInputStream(raw), "an upstream class");
    if (pool == null) {
      return;
    }
    for (String s : pool.utf8) {
      if (s != null && KEY.matcher(s).matches()) {
        out.add(s);
      }
    }
  }

  /** The module's directory is the working directory; the repository is its parent. */
  private static Path repositoryRoot() {
    Path module = Paths.get(System.getProperty("user.dir")).toAbsolutePath().normalize();
    Path root = module.getParent();
    assertTrue("not inside the repository: " + module,
      root != null && Files.isRegularFile(root.resolve("pom.xml")));
    return root;
  }
}
