package io.strata.bench.common;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A run's labels: the transport named from the cluster's key, the commit of a Strata source tree
 * from git or unknown.
 */
public class RunLabelsTest {
  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void transportFromTheClustersKey() {
    assertEquals("netty", RunLabels.transportOf(null));
    assertEquals("netty", RunLabels.transportOf("none"));
    assertEquals("loopback", RunLabels.transportOf("loopback"));
    assertEquals("verbs-softroce", RunLabels.transportOf(" verbs "));
  }

  /**
   * The commit of a Strata source tree under git: its short HEAD, marked when a tracked file
   * changed; another repository's commit, or a tree git cannot read, is unknown (never that
   * other commit).
   */
  @Test
  public void commitOfAStrataTreeOnlyAndMarkedWhenChanged() throws Exception {
    File other = tmp.newFolder("other");
    git(other, "init", "-q");
    Files.writeString(new File(other, "README").toPath(), "another project\n");
    git(other, "add", "README");
    commit(other);
    assertEquals("unknown", RunLabels.commit(other));

    File tree = tmp.newFolder("tree");
    git(tree, "init", "-q");
    Files.writeString(new File(tree, "strata").toPath(), "#!/bin/sh\n");
    new File(tree, "benchmarks").mkdir();
    Files.writeString(new File(tree, "benchmarks/pom.xml").toPath(), "<project/>\n");
    git(tree, "add", "strata", "benchmarks/pom.xml");
    commit(tree);
    String head = git(tree, "rev-parse", "--short", "HEAD");
    assertEquals(head, RunLabels.commit(tree));
    // From a directory inside the tree, as from its top.
    assertEquals(head, RunLabels.commit(new File(tree, "benchmarks")));
    // An untracked file is no change to the tree's code; a changed tracked file is.
    Files.writeString(new File(tree, "notes.txt").toPath(), "x\n");
    assertEquals(head, RunLabels.commit(tree));
    Files.writeString(new File(tree, "strata").toPath(), "#!/bin/sh\nexit 1\n");
    assertEquals(head + "+changes", RunLabels.commit(tree));

    assertEquals("unknown", RunLabels.commit(new File(tmp.getRoot(), "missing")));
  }

  private static void commit(File dir) throws Exception {
    git(dir, "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false",
      "commit", "-q", "-m", "c");
  }

  private static String git(File dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertEquals(String.join(" ", cmd) + ": " + out, 0, p.waitFor());
    return out;
  }

  @Test
  public void commitIsUnknownOutsideAWorkTree() throws Exception {
    assertEquals("unknown", RunLabels.commit(tmp.newFolder()));
    // This module's own tree is a Strata git work tree (unknown where the sources are not
    // under git): a short hash, maybe marked as changed.
    String here = RunLabels.commit(new File(".").getAbsoluteFile());
    assertTrue(here, here.equals("unknown") || here.matches("[0-9a-f]{7,}(\\+changes)?"));
    RunLabels l = RunLabels.now(tmp.getRoot(), "netty", "none");
    assertTrue(l.date(), l.date().matches("\\d{4}-\\d{2}-\\d{2}"));
  }
}
