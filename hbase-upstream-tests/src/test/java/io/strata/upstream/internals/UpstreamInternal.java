package io.strata.upstream.internals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One line of {@code upstream-internals.tsv}: an upstream internal Strata depends on. The list is
 * the one place these are named (docs/upstream-internals.md is written from it).
 */
final class UpstreamInternal {
  static final String RESOURCE = "/upstream-internals.tsv";
  static final List<String> KINDS =
    Arrays.asList("patched-class", "split-package", "reflection", "private-api");

  final String id;
  final String kind;
  /** The upstream class; for a split-package entry, the upstream package. */
  final String upstream;
  /** The members checked, ";"-separated (see docs/upstream-internals.md for the notation). */
  final List<String> members;
  /** The Strata class that depends on it, or for a patched class the patch file. */
  final String user;
  final String why;

  private UpstreamInternal(String[] f) {
    id = f[0];
    kind = f[1];
    upstream = f[2];
    members = Arrays.asList(f[3].split(";"));
    user = f[4];
    why = f[5];
  }

  static List<UpstreamInternal> load() throws IOException {
    List<UpstreamInternal> out = new ArrayList<>();
    try (InputStream in = UpstreamInternal.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IOException(RESOURCE + " is not on the test class path");
      }
      String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
      for (int i = 0; i < lines.length; i++) {
        String line = lines[i];
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t", -1);
        if (f.length != 6 || !KINDS.contains(f[1])) {
          throw new IllegalArgumentException(RESOURCE + " line " + (i + 1)
            + ": want 6 tab-separated fields with a kind of " + KINDS + ", got: " + line);
        }
        out.add(new UpstreamInternal(f));
      }
    }
    return out;
  }

  /** The repository's root: the module's basedir/.. (surefire sets basedir). */
  static Path repoRoot() {
    String basedir = System.getProperty("basedir", System.getProperty("user.dir"));
    return Paths.get(basedir).toAbsolutePath().normalize().getParent();
  }

  /** The main source file of a Strata class (its outermost class), or null. */
  static Path sourceOf(Path root, String className) throws IOException {
    String outer = className.contains("$") ? className.substring(0, className.indexOf('$'))
      : className;
    String rel = "src/main/java/" + outer.replace('.', '/') + ".java";
    try (var dirs = Files.list(root)) {
      for (Path module : (Iterable<Path>) dirs::iterator) {
        Path p = module.resolve(rel);
        if (Files.isRegularFile(p)) {
          return p;
        }
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return id;
  }
}
