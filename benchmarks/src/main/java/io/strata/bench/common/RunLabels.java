package io.strata.bench.common;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What every kept result names about the code and the setting it was measured on: the commit, the
 * date, the transport Get and Put took ({@code loopback}, {@code verbs-softroce}, {@code netty})
 * and the media emulation ({@code blkio}, {@code in-process}, {@code none}).
 *
 * @param commit    the source tree's commit, {@code +changes} appended when tracked files differ
 *                  from it; {@code unknown} outside a Strata git work tree (see {@link #commit})
 * @param date      the day it ran, UTC, ISO-8601
 * @param transport the RPC transport
 * @param emulation the media emulation
 */
public record RunLabels(String commit, String date, String transport, String emulation) {
  /** The commit label when it cannot be known for sure. */
  public static final String UNKNOWN = "unknown";

  /** The labels of a run started now from the work tree {@code dir}. */
  public static RunLabels now(File dir, String transport, String emulation) {
    return new RunLabels(commit(dir), LocalDate.now(ZoneOffset.UTC).toString(), transport,
      emulation);
  }

  /**
   * The transport a cluster's {@code strata.rdma.transport} gives its clients: {@code none} (or
   * unset: no RDMA endpoint) is HBase's sockets, {@code verbs} is named by where verbs run here
   * (SoftRoCE; no RDMA hardware is measured by this project).
   */
  public static String transportOf(String strataRdmaTransport) {
    String t = strataRdmaTransport == null ? "none" : strataRdmaTransport.trim();
    switch (t) {
      case "loopback":
        return "loopback";
      case "verbs":
        return "verbs-softroce";
      default:
        return "netty";
    }
  }

  /**
   * The one place a result's commit label is decided: {@code git rev-parse --short HEAD} of the
   * Strata source tree {@code dir} is in, {@code +changes} appended when tracked files differ from
   * it. {@code unknown} (never a guess) when {@code dir} is not inside a git work tree, when that
   * work tree is not a Strata source tree (its top has no {@code strata} launcher and
   * {@code benchmarks/pom.xml}: another repository's commit would label the result wrongly), or
   * when git cannot be run.
   */
  public static String commit(File dir) {
    String top = git(dir, List.of("git", "rev-parse", "--show-toplevel"));
    if (top == null || top.isEmpty() || !isSourceTree(new File(top))) {
      return UNKNOWN;
    }
    String head = git(dir, List.of("git", "rev-parse", "--short", "HEAD"));
    if (head == null || head.isEmpty()) {
      return UNKNOWN;
    }
    String changes = git(dir, List.of("git", "status", "--porcelain", "--untracked-files=no"));
    if (changes == null) {
      return UNKNOWN;
    }
    return changes.isEmpty() ? head : head + "+changes";
  }

  /** Whether {@code top} is the top of a Strata source tree (what ./strata runs from). */
  static boolean isSourceTree(File top) {
    return new File(top, "strata").isFile() && new File(top, "benchmarks/pom.xml").isFile();
  }

  private static String git(File dir, List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).directory(dir).redirectErrorStream(false).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      return p.exitValue() == 0 ? out : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
