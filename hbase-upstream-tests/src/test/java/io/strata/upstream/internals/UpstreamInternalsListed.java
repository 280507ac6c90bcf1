package io.strata.upstream.internals;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
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
