package io.strata.bench.ycsb;

import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wait between two phases of a multi-phase run, so that a phase does not pay for the
 * flushes and compactions the previous one left behind: until no compaction is queued or runs
 * and the watched table's store file count (which a flush changes) has not changed for a quiet
 * period, bounded;
 * past the bound it logs what is still going on and waits a fixed quiet period instead. Or just a
 * fixed period ({@link #fixed}).
 */
public final class Settle {
  private static final Logger LOG = LoggerFactory.getLogger(Settle.class);

  /**
   * How a wait ended.
   *
   * @param mode {@code quiet} (watched the servers) or {@code fixed}
   * @param settled true when the servers were quiet for the quiet period (false for a fixed wait
   *     and for the fallback)
   * @param fallback true when the bound passed and a fixed quiet period was waited instead
   * @param waited the whole wait
   * @param last the servers' activity at the end
   */
  public record Outcome(String mode, boolean settled, boolean fallback, Duration waited,
    ActivitySnapshot last) {
  }

  private final boolean watch;
  private final Duration quiet;
  private final Duration bound;
  private final Duration poll;

  private Settle(boolean watch, Duration quiet, Duration bound, Duration poll) {
    if (quiet.isNegative() || bound.isNegative() || poll.isNegative() || poll.isZero()) {
      throw new IllegalArgumentException("Settle periods must not be negative (poll positive)");
    }
    this.watch = watch;
    this.quiet = quiet;
    this.bound = bound;
    this.poll = poll;
  }

  /** Until quiet for {@code quiet}, at most {@code bound}; then {@code quiet} more, fixed. */
  public static Settle untilQuiet(Duration quiet, Duration bound) {
    return new Settle(true, quiet, bound, Duration.ofMillis(250));
  }

  public static Settle untilQuiet(Duration quiet, Duration bound, Duration poll) {
    return new Settle(true, quiet, bound, poll);
  }

  /** A fixed quiet period, whatever the servers do. */
  public static Settle fixed(Duration period) {
    return new Settle(false, period, period, Duration.ofMillis(250));
  }

  public Duration quiet() {
    return quiet;
  }

  public Duration bound() {
    return bound;
  }

  public Outcome await(ServerActivity activity) throws IOException, InterruptedException {
    long start = System.nanoTime();
    if (!watch) {
      Thread.sleep(quiet.toMillis());
      return new Outcome("fixed", false, false, since(start), activity.snapshot());
    }
    ActivitySnapshot s = activity.snapshot();
    int storeFiles = s.storeFiles();
    long quietSince = System.nanoTime();
    while (true) {
      long now = System.nanoTime();
      if (s.busy() || s.storeFiles() != storeFiles) {
        quietSince = now;
        storeFiles = s.storeFiles();
      } else if (now - quietSince >= quiet.toNanos()) {
        return new Outcome("quiet", true, false, since(start), s);
      }
      if (now - start >= bound.toNanos()) {
        LOG.warn("Servers not quiet after {} s ({}); waiting a fixed {} s instead",
          bound.toSeconds(), s, quiet.toSeconds());
        Thread.sleep(quiet.toMillis());
        return new Outcome("quiet", false, true, since(start), activity.snapshot());
      }
      Thread.sleep(poll.toMillis());
      s = activity.snapshot();
    }
  }

  private static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }
}
