package io.strata.bench.common;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** A run's labels: the transport named from the cluster's key, the commit from git or unknown. */
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

  @Test
  public void commitIsUnknownOutsideAWorkTree() throws Exception {
    assertEquals("unknown", RunLabels.commit(tmp.newFolder()));
    // This module's own tree is a git work tree: a short hash, maybe marked as changed.
    String here = RunLabels.commit(new File(".").getAbsoluteFile());
    assertTrue(here, here.equals("unknown") || here.matches("[0-9a-f]{7,}(\\+changes)?"));
    RunLabels l = RunLabels.now(tmp.getRoot(), "netty", "none");
    assertTrue(l.date(), l.date().matches("\\d{4}-\\d{2}-\\d{2}"));
  }
}
