package io.strata.pcm;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loop behind {@code strata pcm watch}: observe, classify, and apply the policy of each new
 * class, supervised. A round whose metrics cannot be read (the master failing over, a RegionServer
 * restarting) or whose policy cannot be applied (a table being altered elsewhere) is logged with
 * the table, the cause and what happens next, and retried at the next interval; a class whose
 * policy failed stays pending until it is applied or a newer class replaces it. After
 * {@link PcmKeys#WATCH_MAX_FAILURES} failed rounds in a row the loop stops and says so, rather
 * than watching nothing for ever. Not thread-safe: one thread runs it.
 */
public final class WatchLoop {
  private static final Logger LOG = LoggerFactory.getLogger(WatchLoop.class);

  /** Applies the policy of a class to the watched table. */
  public interface Applier {
    void apply(WorkloadClass c, TableSample now) throws IOException;
  }

  /** Waits between rounds; tests replace it. */
  public interface Sleeper {
    void sleep(long ms) throws InterruptedException;
  }

  /**
   * What a run did.
   *
   * @param applied  classes whose policy was applied, in order
   * @param failures one line per failed round
   * @param gaveUp   the run stopped after too many failed rounds in a row
   */
  public static final class Result {
    private final List<String> applied;
    private final List<String> failures;
    private final boolean gaveUp;

    public Result(List<String> applied, List<String> failures, boolean gaveUp) {
      this.applied = applied;
      this.failures = failures;
      this.gaveUp = gaveUp;
    }

    public List<String> applied() {
      return applied;
    }

    public List<String> failures() {
      return failures;
    }

    public boolean gaveUp() {
      return gaveUp;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Result)) {
        return false;
      }
      Result o = (Result) other;
      return Objects.equals(applied, o.applied)
        && Objects.equals(failures, o.failures)
        && gaveUp == o.gaveUp;
    }

    @Override
    public int hashCode() {
      return Objects.hash(applied, failures, gaveUp);
    }

    @Override
    public String toString() {
      return "Result[applied=" + applied + ", failures=" + failures + ", gaveUp=" + gaveUp + "]";
    }
  }

  private final WorkloadMonitor monitor;
  private final long intervalMs;
  private final int maxFailures;
  private final Applier applier;
  private final Sleeper sleeper;

  public WatchLoop(WorkloadMonitor monitor, long intervalMs, int maxFailures, Applier applier,
    Sleeper sleeper) {
    if (maxFailures < 1) {
      throw new IllegalArgumentException("maxFailures must be at least 1, not " + maxFailures);
    }
    this.monitor = monitor;
    this.intervalMs = intervalMs;
    this.maxFailures = maxFailures;
    this.applier = applier;
    this.sleeper = sleeper;
  }

  /** Runs {@code rounds} rounds (each one read of the metrics), showing each observation. */
  public Result run(long rounds, Consumer<WorkloadMonitor.Observation> onObservation)
    throws InterruptedException {
    List<String> applied = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    WorkloadClass pending = null;
    int inARow = 0;
    for (long i = 0; i < rounds; i++) {
      if (i > 0) {
        sleeper.sleep(intervalMs);
      }
      WorkloadMonitor.Observation o;
      try {
        o = monitor.observe();
      } catch (IOException | RuntimeException e) {
        inARow++;
        failures.add("round " + i + ": reading the metrics: " + e);
        LOG.warn("PCM watch of table {}: cannot read the cluster's metrics ({} failed round(s) "
          + "in a row of {} allowed): {}; retrying in {} ms", monitor.table(), inARow,
          maxFailures, e.toString(), intervalMs);
        if (inARow >= maxFailures) {
          return giveUp(applied, failures, inARow);
        }
        continue;
      }
      if (inARow > 0) {
        LOG.info("PCM watch of table {}: reading the cluster's metrics again after {} failed "
          + "round(s)", monitor.table(), inARow);
      }
      inARow = 0;
      onObservation.accept(o);
      if (o.changed().isPresent()) {
        pending = o.changed().get();
      }
      if (pending == null) {
        continue;
      }
      try {
        applier.apply(pending, o.sample());
        applied.add(pending.label());
        pending = null;
      } catch (IOException | RuntimeException e) {
        inARow++;
        failures.add("round " + i + ": applying " + pending + ": " + e);
        LOG.warn("PCM watch of table {}: applying the {} policy failed ({} failed round(s) in a "
          + "row of {} allowed): {}; trying again in {} ms", monitor.table(), pending, inARow,
          maxFailures, e.toString(), intervalMs);
        if (inARow >= maxFailures) {
          return giveUp(applied, failures, inARow);
        }
      }
    }
    return new Result(applied, failures, false);
  }

  private Result giveUp(List<String> applied, List<String> failures, int inARow) {
    LOG.error("PCM watch of table {}: stopping after {} failed rounds in a row ({}); the table "
      + "keeps the settings it has now. Last failure: {}", monitor.table(), inARow,
      PcmKeys.WATCH_MAX_FAILURES, failures.get(failures.size() - 1));
    return new Result(applied, failures, true);
  }
}
