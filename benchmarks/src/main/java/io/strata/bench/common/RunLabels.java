package io.strata.bench.common;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

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
  /**
   * The system property {@code ./strata} sets for every bench: the source tree it runs from, whose
   * commit labels the bench's result ({@link #launcherCommit}).
   */
  public static final String SOURCE_DIR_PROPERTY = "strata.source.dir";
  /** The transport label of HBase's own sockets (its Netty RPC client and server). */
  public static final String NETTY = "netty";
  /** The transport label of a bench that makes no HBase RPC at all (HDFS or DataNode only). */
  public static final String NO_RPC = "none";
  /** The emulation label: the kernel's block-I/O throttling of a real device. */
  public static final String BLKIO = "blkio";
  /** The emulation label: the DataNode-side per-I/O delay hook (SlowVolumes, MediaEmulation). */
  public static final String IN_PROCESS = "in-process";
  /** The emulation label: every volume is this machine's disk or tmpfs as it is. */
  public static final String NO_EMULATION = "none";

  /** The labels of a run started now from the work tree {@code dir}. */
  public static RunLabels now(File dir, String transport, String emulation) {
    return new RunLabels(commit(dir), LocalDate.now(ZoneOffset.UTC).toString(), transport,
      emulation);
  }

  /**
   * The labels of a run started now by {@code ./strata}: the commit of the source tree it runs
   * from ({@link #launcherCommit}).
   */
  public static RunLabels now(String transport, String emulation) {
    return new RunLabels(launcherCommit(), LocalDate.now(ZoneOffset.UTC).toString(), transport,
      emulation);
  }

  /**
   * The source tree {@code ./strata} runs from, as it names it in {@link #SOURCE_DIR_PROPERTY}
   * for every bench; null for a bench run otherwise (a test, a plain {@code java} command).
   */
  public static File sourceDir() {
    String dir = System.getProperty(SOURCE_DIR_PROPERTY);
    return dir == null || dir.isBlank() ? null : new File(dir.trim()).getAbsoluteFile();
  }

  /**
   * The commit label of a bench's result: {@link #commit} of the tree {@code ./strata} runs from
   * ({@link #sourceDir}); {@code unknown} for a bench run outside the launcher, since its working
   * directory says nothing sure about the code on its class path.
   */
  public static String launcherCommit() {
    File dir = sourceDir();
    return dir == null ? UNKNOWN : commit(dir);
  }

  /**
   * The transport label of a run comparing the hybrid RPC's endpoint on
   * {@code strataRdmaTransport} with HBase's sockets: both sides, e.g. {@code loopback vs netty}.
   */
  public static String versusNetty(String strataRdmaTransport) {
    return transportOf(strataRdmaTransport) + " vs " + transportOf(null);
  }

  /** The emulation label of a run whose volumes were slowed in the DataNode, or not at all. */
  public static String inProcessIf(boolean slowed) {
    return slowed ? IN_PROCESS : NO_EMULATION;
  }

  /**
   * The transport the clients of a configuration ({@code conf}: a key's value, null when unset)
   * take: the hybrid RPC's endpoint on its {@code strata.rdma.transport} when
   * {@code hbase.rpc.client.impl} names the hybrid RPC client, otherwise HBase's sockets.
   */
  public static String clientTransport(Function<String, String> conf) {
    String impl = conf.apply("hbase.rpc.client.impl");
    return impl != null && impl.trim().endsWith(".HybridRpcClient")
      ? transportOf(conf.apply("strata.rdma.transport")) : NETTY;
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
        return NETTY;
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
