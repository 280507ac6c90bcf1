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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * docs/configuration.md names every configuration key Strata declares.
 *
 * <p>The keys are found without naming a class or a module: every {@code static final String}
 * constant (any visibility) of every class in a package under {@code io.strata} is read from the
 * class files of this project's class path entries (the modules' {@code target/classes}
 * directories or jars under the repository root). The constants are read from the class files'
 * {@code ConstantValue} attributes, so no class is loaded or initialised. Every value that starts
 * with {@code strata.} must appear in the reference page, verbatim and in backquotes. That covers
 * keys wherever they are declared, and also name prefixes (a constant ending in a dot, such as
 * the overlay's {@code strata.storage.policy.}, which the page shows as
 * {@code strata.storage.policy.<NAME>.id}) and the few {@code strata.}-named values that are not
 * keys (the page lists them in a section of their own, so that a reader who meets one knows it
 * cannot be set). Modules that are not on this module's test class path (the benchmarks) are not
 * checked here; their keys are in the page all the same.
 */
public class ConfigurationReferenceTest {

  private static final String PREFIX = "strata.";
  private static final String PACKAGE_DIR = "io/strata/";

  @Test
  public void everyStrataKeyConstantIsInTheConfigurationReference() throws IOException {
    Path root = repositoryRoot();
    Path doc = root.resolve("docs").resolve("configuration.md");
    assertTrue("configuration reference not found: " + doc, Files.isRegularFile(doc));
    String text = new String(Files.readAllBytes(doc), StandardCharsets.UTF_8);

    Map<String, String> constants = new TreeMap<>();
    List<Path> scanned = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Paths.get(entry).toAbsolutePath().normalize();
      if (!p.startsWith(root) || !isMainOutput(p)) {
        continue;
      }
      scanned.add(p);
      if (Files.isDirectory(p)) {
        scanDirectory(p, constants);
      } else if (p.toString().endsWith(".jar") && Files.isRegularFile(p)) {
        scanJar(p, constants);
      }
    }
    assertFalse("no module output of " + root + " on the class path", scanned.isEmpty());
    assertFalse("no strata.* constant found in " + scanned, constants.isEmpty());

    TreeSet<String> missing = new TreeSet<>();
    for (Map.Entry<String, String> c : constants.entrySet()) {
      if (!text.contains("`" + c.getKey())) {
        missing.add(c.getKey() + " (" + c.getValue() + ")");
      }
    }
    if (!missing.isEmpty()) {
      fail("docs/configuration.md does not name these constants (scanned " + scanned + "): "
          + missing);
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

  /** Main output only: test classes and test jars declare test settings, not product keys. */
  private static boolean isMainOutput(Path p) {
    String name = p.getFileName().toString();
    return !name.equals("test-classes") && !name.endsWith("-tests.jar");
  }

  private static void scanDirectory(Path dir, Map<String, String> out) throws IOException {
    Path pkg = dir.resolve(PACKAGE_DIR);
    if (!Files.isDirectory(pkg)) {
      return;
    }
    try (Stream<Path> files = Files.walk(pkg)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (f.toString().endsWith(".class")) {
          try (InputStream in = Files.newInputStream(f)) {
            readConstants(in, dir.relativize(f).toString(), out);
          }
        }
      }
    }
  }

  private static void scanJar(Path jar, Map<String, String> out) throws IOException {
    try (JarFile jf = new JarFile(jar.toFile())) {
      Enumeration<JarEntry> entries = jf.entries();
      while (entries.hasMoreElements()) {
        JarEntry e = entries.nextElement();
        if (e.getName().startsWith(PACKAGE_DIR) && e.getName().endsWith(".class")) {
          try (InputStream in = jf.getInputStream(e)) {
            readConstants(in, e.getName(), out);
          }
        }
      }
    }
  }

  /**
   * Adds the {@code strata.}-prefixed values of the class's static final String fields that have
   * a ConstantValue attribute (JVMS 4.7.2), keyed by value, with the class as where it was found.
   */
  static void readConstants(InputStream raw, String where, Map<String, String> out)
      throws IOException {
    DataInputStream in = new DataInputStream(raw);
    ConstantPool pool = ConstantPool.read(in, where);
    if (pool == null) {
      throw new IOException("not a class file: " + where);
    }
    String[] utf8 = pool.utf8;
    int[] stringIndex = pool.stringIndex;
    in.readUnsignedShort(); // access flags
    in.readUnsignedShort(); // this
    in.readUnsignedShort(); // super
    int interfaces = in.readUnsignedShort();
    for (int i = 0; i < interfaces; i++) {
      in.readUnsignedShort();
    }
    int fields = in.readUnsignedShort();
    for (int f = 0; f < fields; f++) {
      int access = in.readUnsignedShort();
      in.readUnsignedShort(); // name
      String descriptor = utf8[in.readUnsignedShort()];
      int attributes = in.readUnsignedShort();
      for (int a = 0; a < attributes; a++) {
        String attribute = utf8[in.readUnsignedShort()];
        int length = in.readInt();
        boolean staticFinal = (access & 0x0008) != 0 && (access & 0x0010) != 0;
        if ("ConstantValue".equals(attribute) && length == 2 && staticFinal
            && "Ljava/lang/String;".equals(descriptor)) {
          int index = in.readUnsignedShort();
          String value = utf8[stringIndex[index]];
          if (value != null && value.startsWith(PREFIX)) {
            out.putIfAbsent(value, where);
          }
        } else {
          in.skipNBytes(length);
        }
      }
    }
  }
}
