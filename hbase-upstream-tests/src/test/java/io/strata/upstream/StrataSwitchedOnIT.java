package io.strata.upstream;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/**
 * Strata really was on in the upstream test run: for every upstream class that ran (a failsafe
 * report of execution upstream-hbase-tests), the evidence its JVM left
 * ({@link StrataEvidenceListener}) meets that class's line in
 * {@code src/upstream-tests/strata-evidence.txt}. A requirement is a plug-in's simple class name
 * (loaded, i.e. instantiated from the configuration), {@code overlay} (HDFS's FsDatasetImpl came
 * from the strata-hdfs-overlay jar) or a counter name (e.g. {@code client.Get.rdma}: above 0).
 */
public class StrataSwitchedOnIT {
  @Test
  public void everyUpstreamClassRanWithStrata() throws IOException {
    Path reports = Paths.get(System.getProperty("strata.reports.dir"));
    Path evidenceDir = Paths.get(System.getProperty(StrataEvidenceListener.DIR));
    Map<String, List<String>> expected =
      expectations(Paths.get(System.getProperty("strata.evidence.expected")));
    List<String> ran = new ArrayList<>();
    if (Files.isDirectory(reports)) {
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(reports, "TEST-*-upstream.xml")) {
        for (Path p : ds) {
          String name = p.getFileName().toString();
          ran.add(name.substring("TEST-".length(), name.length() - "-upstream.xml".length()));
        }
      }
    }
    List<String> problems = new ArrayList<>();
    for (String cls : ran) {
      String simple = cls.substring(cls.lastIndexOf('.') + 1);
      List<String> wanted = expected.get(simple);
      if (wanted == null) {
        problems.add(simple + ": no line in strata-evidence.txt (say what of Strata it uses)");
        continue;
      }
      Path f = evidenceDir.resolve(cls + ".txt");
      if (!Files.exists(f)) {
        problems.add(simple + ": its JVM left no evidence (" + f + ")");
        continue;
      }
      List<String> evidence = Files.readAllLines(f, StandardCharsets.UTF_8);
      for (String w : wanted) {
        if (!met(w, evidence)) {
          problems.add(simple + ": " + w + " not seen; its JVM saw " + evidence);
        }
      }
    }
    if (!problems.isEmpty()) {
      fail("Strata was not (fully) on in upstream test classes:\n  "
        + String.join("\n  ", problems));
    }
    System.out.println("Strata on in " + ran.size() + " upstream test classes: " + ran);
    assertTrue(true);
  }

  static boolean met(String requirement, List<String> evidence) {
    if (requirement.equals("overlay")) {
      return evidence.stream()
        .anyMatch(l -> l.startsWith("fsdataset ") && l.contains("strata-hdfs-overlay")
          || l.startsWith("fsdataset ") && l.contains("/patches/target/classes"));
    }
    if (requirement.contains(".")) {
      return evidence.stream().anyMatch(l -> l.startsWith(requirement + " ")
        && Long.parseLong(l.substring(requirement.length() + 1).trim()) > 0);
    }
    return evidence.stream().anyMatch(l -> l.startsWith("loaded ")
      && l.endsWith("." + requirement));
  }

  static Map<String, List<String>> expectations(Path file) throws IOException {
    Map<String, List<String>> m = new HashMap<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String l = line.trim();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      int colon = l.indexOf(':');
      m.put(l.substring(0, colon).trim(),
        Arrays.asList(l.substring(colon + 1).trim().split("\\s+")));
    }
    return m;
  }
}
