package io.strata.pcm;

import java.util.Objects;

/**
 * How many concurrent client threads to drive a table of a class with (the PCM paper's Fig. 3):
 * on its 9-RegionServer cluster the best throughput with a good average latency came at 4
 * threads for the write classes (BL and WO-Update measured; the paper applies 4 to BL, WO and
 * WM) and 60 for the read classes (RO-Read and RO-Scan measured; applied to RO and RM). Reads
 * spread over every RegionServer, so their advice is scaled by the live RegionServers (60 per 9);
 * writes stay at 4 until the cluster is larger than the paper's, then grow the same way. The
 * mixed classes, which the paper does not measure, take their dominant side (MixW: writes, MixR:
 * reads) and MixRW the geometric mean of the two. Advice only: PCM never changes a client.
 * Immutable.
 */
public final class ClientThreads {
  /** The paper's cluster-small: 9 RegionServers. */
  static final int PAPER_SERVERS = 9;
  static final int PAPER_WRITE_THREADS = 4;
  static final int PAPER_READ_THREADS = 60;

  private final int threads;
  private final String rule;

  public ClientThreads(int threads, String rule) {
    this.threads = threads;
    this.rule = Objects.requireNonNull(rule, "rule");
  }

  /** The advice for class {@code c} on {@code liveServers} RegionServers. */
  public static ClientThreads advise(WorkloadClass c, int liveServers) {
    int servers = Math.max(1, liveServers);
    int writes = Math.max(PAPER_WRITE_THREADS,
      (int) Math.round((double) PAPER_WRITE_THREADS * servers / PAPER_SERVERS));
    int reads = Math.max(1, (int) Math.round((double) PAPER_READ_THREADS * servers
      / PAPER_SERVERS));
    String scale = servers + " RegionServers";
    switch (c) {
      case BL:
      case WO_INSERT:
      case WO_UPDATE:
      case WM:
      case MIX_W:
        return new ClientThreads(writes, "write class: max(4, 4 x " + scale + " / 9) (Fig. 3a-b: "
          + "4 threads best on 9 RegionServers)");
      case RM:
      case RO_READ:
      case RO_SCAN:
      case MIX_R:
        return new ClientThreads(reads, "read class: 60 x " + scale + " / 9 (Fig. 3c-d: 60 "
          + "threads best on 9 RegionServers)");
      case MIX_RW:
      default:
        return new ClientThreads((int) Math.round(Math.sqrt((double) writes * reads)),
          "read-write mix: geometric mean of the write (" + writes + ") and read (" + reads
            + ") advice on " + scale + " (not measured in the paper)");
    }
  }

  /** Concurrent client threads. */
  public int threads() {
    return threads;
  }

  /** How the figure was reached. */
  public String rule() {
    return rule;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ClientThreads)) {
      return false;
    }
    ClientThreads o = (ClientThreads) other;
    return threads == o.threads && rule.equals(o.rule);
  }

  @Override
  public int hashCode() {
    return Objects.hash(threads, rule);
  }

  @Override
  public String toString() {
    return threads + " (" + rule + ")";
  }
}
