package io.strata.distribution;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * The tarball is reproducible: the same sources give the same bytes wherever the checkout is.
 *
 * <p>Two things made it differ between checkouts and builds before: entry times (fixed by
 * {@code project.build.outputTimestamp}) and the checkout's absolute path in
 * {@code libstrata_rdma.so}'s debug information (fixed by {@code -ffile-prefix-map} in
 * native/CMakeLists.txt). This test checks both on the tarball the build made: every entry
 * carries the fixed time, and no file Strata builds, nor any entry of Strata's jars, holds the
 * absolute path of the repository it was built in. Upstream's jars (lib/upstream, lib/shell,
 * lib/webapps) are copied as Maven Central serves them and are not looked into.
 */
public class ReproducibleTarballIT {

  @Test
  public void everyEntryHasTheFixedTime() throws Exception {
    String listing = run(List.of("tar", "--list", "--verbose", "--full-time", "-zf",
      tarball().getPath()));
    int entries = 0;
    for (String line : listing.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      entries++;
      // Fields: mode owner size date time name.
      String[] f = line.trim().split("\\s+", 6);
      assertEquals(line, "2026-01-01 00:00:00", f[3] + " " + f[4]);
    }
    assertTrue("entries listed: " + entries, entries > 100);
  }

  @Test
  public void noFileHoldsTheCheckoutPath() throws Exception {
    Path repo = new File("..").getCanonicalFile().toPath();
    byte[] needle = repo.toString().getBytes(StandardCharsets.UTF_8);
    Path unpacked = new File("target/reproducible-check").getAbsoluteFile().toPath();
    run(List.of("rm", "-rf", unpacked.toString()));
    Files.createDirectories(unpacked);
    run(List.of("tar", "xzf", tarball().getPath(), "-C", unpacked.toString()));
    List<String> holding = new ArrayList<>();
    int checked = 0;
    try (Stream<Path> files = Files.walk(unpacked)) {
      for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        String rel = unpacked.relativize(p).toString();
        if (rel.matches("[^/]+/lib/(upstream|shell|webapps)/.*")) {
          continue;
        }
        checked++;
        if (contains(Files.readAllBytes(p), needle)) {
          holding.add(rel);
        }
        if (rel.endsWith(".jar")) {
          try (JarFile jar = new JarFile(p.toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
              JarEntry entry = e.nextElement();
              try (InputStream in = jar.getInputStream(entry)) {
                if (contains(in.readAllBytes(), needle)) {
                  holding.add(rel + "!" + entry.getName());
                }
              }
            }
          }
        }
      }
    }
    assertTrue("files checked: " + checked, checked > 10);
    assertEquals("files holding the checkout path " + repo + " (not reproducible elsewhere)",
      List.of(), holding);
  }

  private static File tarball() {
    File tarball = new File(System.getProperty("strata.dist.tarball"));
    assertTrue("no distribution at " + tarball + ": run the package phase", tarball.isFile());
    return tarball;
  }

  private static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    File out = File.createTempFile("tar", ".out", new File("target"));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out).start();
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish within 300 s");
    }
    String output = Files.readString(out.toPath(), StandardCharsets.UTF_8);
    assertEquals(String.join(" ", command) + ": " + output, 0, p.exitValue());
    return output;
  }
}
