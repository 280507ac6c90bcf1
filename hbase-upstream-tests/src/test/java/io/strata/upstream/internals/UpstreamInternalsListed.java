package io.strata.upstream.internals;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * {@code upstream-internals.tsv} is complete and docs/upstream-internals.md follows it: a patch,
 * a main-source class in an upstream package, or a main-source file using reflection that is not
 * in the list fails here, so no new upstream internal goes in unlisted.
 */
public class UpstreamInternalsListed {
  private static final Path ROOT = UpstreamInternal.repoRoot();
  /** Reflection that reaches past an API: private members, or upstream classes by name. */
  private static final Pattern REFLECTION = Pattern.compile(
    "getDeclaredField|getDeclaredMethod\\b|getDeclaredMethods|setAccessible|privateLookupIn"
      + "|MethodHandles\\.lookup\\(\\)\\.find");
  private static final Pattern FOR_NAME = Pattern.compile("Class\\.forName|\\.loadClass\\(");
  private static final Pattern UPSTREAM_LITERAL = Pattern.compile("\"org\\.apache\\.hadoop\\.");
  private static final Pattern UPSTREAM_PACKAGE =
    Pattern.compile("(?m)^package (org\\.apache\\.[\\w.]+);");
  private static final Pattern PATCHED_FILE = Pattern.compile("(?m)^\\+\\+\\+ b/(\\S+)\\.java$");

  @Test
  public void everyPatchedClassIsListed() throws IOException {
    List<UpstreamInternal> list = UpstreamInternal.load();
    List<String> missing = new ArrayList<>();
    try (Stream<Path> patches = Files.list(ROOT.resolve("patches/hdfs"))) {
      for (Path p : patches.filter(f -> f.toString().endsWith(".patch")).sorted()
        .collect(Collectors.toList())) {
        String rel = ROOT.relativize(p).toString();
        Matcher m = PATCHED_FILE.matcher(Files.readString(p, StandardCharsets.UTF_8));
        while (m.find()) {
          String cls = m.group(1).replace('/', '.');
          if (list.stream().noneMatch(e -> e.kind.equals("patched-class")
            && e.upstream.equals(cls) && e.user.equals(rel))) {
            missing.add(rel + " patches " + cls);
          }
        }
      }
    }
    assertListed("patched upstream classes", missing);
  }

  @Test
  public void everyClassInAnUpstreamPackageIsListed() throws IOException {
    Set<String> listed = users(UpstreamInternal.load(), "split-package");
    List<String> missing = new ArrayList<>();
    for (Path f : mainSources()) {
      String src = Files.readString(f, StandardCharsets.UTF_8);
      Matcher m = UPSTREAM_PACKAGE.matcher(src);
      if (m.find()) {
        String cls = m.group(1) + "." + stripJava(f);
        if (!listed.contains(cls)) {
          missing.add(cls + " (" + ROOT.relativize(f) + ") is in upstream's package " + m.group(1));
        }
      }
    }
    assertListed("classes in upstream packages (split-package)", missing);
  }

  @Test
  public void everyReflectiveAccessIsListed() throws IOException {
    Set<String> listed = users(UpstreamInternal.load(), "reflection");
    List<String> missing = new ArrayList<>();
    for (Path f : mainSources()) {
      String src = Files.readString(f, StandardCharsets.UTF_8);
      boolean reflective = REFLECTION.matcher(src).find()
        || FOR_NAME.matcher(src).find() && UPSTREAM_LITERAL.matcher(src).find();
      if (reflective) {
        Matcher pkg = Pattern.compile("(?m)^package ([\\w.]+);").matcher(src);
        String cls = (pkg.find() ? pkg.group(1) + "." : "") + stripJava(f);
        if (!listed.contains(cls)) {
          missing.add(cls + " (" + ROOT.relativize(f) + ") uses reflection");
        }
      }
    }
    assertListed("reflective accesses", missing);
  }

  /**
   * Every Strata class on this class path (the main classes of the modules this one depends on)
   * that extends or implements an upstream type marked {@code @InterfaceAudience.Private} is the
   * Strata user of an entry: subclassing such a type is where an upstream refactoring breaks
   * Strata without a compile error in upstream's own build.
   */
  @Test
  public void everySubclassOfAPrivateUpstreamTypeIsListed() throws Exception {
    Set<String> listed = new HashSet<>();
    Set<String> splitPackage = new HashSet<>();
    for (UpstreamInternal e : UpstreamInternal.load()) {
      listed.add(e.user);
      if (e.kind.equals("split-package")) {
        splitPackage.add(e.user);
      }
    }
    ClassLoader loader = getClass().getClassLoader();
    List<String> missing = new ArrayList<>();
    int scanned = 0;
    for (byte[] bytes : strataMainClasses()) {
      ClassFile cf = ClassFile.parse(bytes);
      scanned++;
      List<String> supers = new ArrayList<>(cf.interfaces);
      if (cf.superName != null) {
        supers.add(cf.superName);
      }
      for (String sup : supers) {
        if (!sup.startsWith("org/apache/hadoop/") || !isPrivate(sup, loader)) {
          continue;
        }
        String cls = cf.name.replace('/', '.');
        // A split-package entry checks its class's nested classes too.
        String outermost = cls.contains("$") ? cls.substring(0, cls.indexOf('$')) : cls;
        if (!listed.contains(cls) && !splitPackage.contains(outermost)) {
          missing.add(cls + " extends or implements " + sup.replace('/', '.')
            + " (@InterfaceAudience.Private)");
        }
      }
    }
    if (scanned < 50) {
      fail("found only " + scanned + " Strata main classes on the class path: wrong class path?");
    }
    assertListed("subclasses of private upstream types", missing);
  }

  private static boolean isPrivate(String internalName, ClassLoader loader) {
    String name = internalName.replace('/', '.');
    URL u = loader.getResource(internalName + ".class");
    if (u == null || isStrataLocation(u.toString())) {
      return false;
    }
    try {
      for (java.lang.annotation.Annotation a : Class.forName(name, false, loader)
        .getAnnotations()) {
        if (a.annotationType().getName().endsWith("InterfaceAudience$Private")) {
          return true;
        }
      }
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
    return false;
  }

  /**
   * The class files of Strata's main classes on the class path: the modules' target/classes or
   * their jars (the reactor puts either there), except the HDFS overlay's patched upstream classes
   * (patched-class entries).
   */
  private static List<byte[]> strataMainClasses() throws IOException {
    List<byte[]> out = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      Path p = java.nio.file.Paths.get(entry).toAbsolutePath().normalize();
      boolean strata = p.startsWith(ROOT) && !p.startsWith(ROOT.resolve("hbase-upstream-tests"))
        || p.getFileName().toString().startsWith("strata-");
      if (!strata) {
        continue;
      }
      if (Files.isDirectory(p)) {
        try (Stream<Path> s = Files.walk(p)) {
          for (Path f : s.filter(x -> x.toString().endsWith(".class"))
            .collect(Collectors.toList())) {
            if (!p.relativize(f).toString().startsWith("org/apache/hadoop/hdfs/")) {
              out.add(Files.readAllBytes(f));
            }
          }
        }
      } else if (p.toString().endsWith(".jar")) {
        try (java.util.jar.JarFile jar = new java.util.jar.JarFile(p.toFile())) {
          for (java.util.jar.JarEntry je : java.util.Collections.list(jar.entries())) {
            if (je.getName().endsWith(".class")
              && !je.getName().startsWith("org/apache/hadoop/hdfs/")) {
              try (java.io.InputStream in = jar.getInputStream(je)) {
                out.add(in.readAllBytes());
              }
            }
          }
        }
      }
    }
    return out;
  }

  private static boolean isStrataLocation(String url) {
    return url.contains(ROOT.toUri().getPath()) || url.matches(".*/strata-[^/]*\\.jar!/.*");
  }

  @Test
  public void theDocListsEveryEntry() throws IOException {
    Path doc = ROOT.resolve("docs/upstream-internals.md");
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    List<String> missing = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (UpstreamInternal e : UpstreamInternal.load()) {
      if (!ids.add(e.id)) {
        fail("upstream-internals.tsv lists the id " + e.id + " twice");
      }
      if (!text.contains("`" + e.id + "`")) {
        missing.add(e.id);
      }
    }
    if (!missing.isEmpty()) {
      fail(doc + " does not list these entries of upstream-internals.tsv (as `id`): " + missing);
    }
    assertTrue(ids.size() > 0);
  }

  private static Set<String> users(List<UpstreamInternal> list, String kind) {
    Set<String> out = new TreeSet<>();
    for (UpstreamInternal e : list) {
      if (e.kind.equals(kind)) {
        out.add(e.user.contains("$") ? e.user.substring(0, e.user.indexOf('$')) : e.user);
      }
    }
    return out;
  }

  /** Every module's src/main/java/**.java (a module: a directory of the root with a pom.xml). */
  private static List<Path> mainSources() throws IOException {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path m : modules.filter(d -> Files.isRegularFile(d.resolve("pom.xml")))
        .collect(Collectors.toList())) {
        Path main = m.resolve("src/main/java");
        if (Files.isDirectory(main)) {
          try (Stream<Path> files = Files.walk(main)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(out::add);
          }
        }
      }
    }
    if (out.size() < 50) {
      fail("found only " + out.size() + " main sources under " + ROOT + ": wrong root?");
    }
    return out;
  }

  private static String stripJava(Path f) {
    String n = f.getFileName().toString();
    return n.substring(0, n.length() - ".java".length());
  }

  private static void assertListed(String what, List<String> missing) {
    if (!missing.isEmpty()) {
      fail("Not in hbase-upstream-tests/src/test/resources/upstream-internals.tsv (" + what
        + "): add an entry (and to docs/upstream-internals.md) so a version bump checks it:\n  "
        + String.join("\n  ", missing));
    }
  }
}
