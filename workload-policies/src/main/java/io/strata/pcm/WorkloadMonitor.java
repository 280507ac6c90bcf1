package io.strata.pcm;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import org.apache.hadoop.hbase.TableName;

/**
 * The paper's Workload Monitor with the classifier behind it, for one table: each
 * {@link #observe()} reads the table's counters, adds them to the sliding window, classifies the
 * window's rates and passes the class through the hysteresis. The caller paces the calls (the
 * configured interval). Not thread-safe: one loop owns it.
 */
public final class WorkloadMonitor {
  private final TableName table;
  private final MetricsSource source;
  private final WorkloadWindow window;
  private final WorkloadClassifier classifier;
  private final Hysteresis hysteresis;

  public WorkloadMonitor(TableName table, MetricsSource source, int windowSamples,
    WorkloadClassifier classifier, int stableWindows) {
    this(table, source, new WorkloadWindow(windowSamples), classifier, stableWindows);
  }

  /** @param window an empty window, which this monitor then owns */
  public WorkloadMonitor(TableName table, MetricsSource source, WorkloadWindow window,
    WorkloadClassifier classifier, int stableWindows) {
    this.table = table;
    this.source = source;
    this.window = window;
    this.classifier = classifier;
    this.hysteresis = new Hysteresis(stableWindows);
  }

  /**
   * One observation.
   *
   * @param sample   the counters read
   * @param rates    the window's rates; null until the window has two samples
   * @param observed this window's class; empty when idle or not yet known
   * @param changed  the new stable class when this observation made it change
   * @param stable   the stable class after this observation; null before one held
   * @param run      consecutive windows the current class has held
   */
  public static final class Observation {
    private final TableSample sample;
    private final WorkloadRates rates;
    private final Optional<WorkloadClass> observed;
    private final Optional<WorkloadClass> changed;
    private final WorkloadClass stable;
    private final int run;

    public Observation(TableSample sample, WorkloadRates rates, Optional<WorkloadClass> observed,
      Optional<WorkloadClass> changed, WorkloadClass stable, int run) {
      this.sample = sample;
      this.rates = rates;
      this.observed = observed;
      this.changed = changed;
      this.stable = stable;
      this.run = run;
    }

    public TableSample sample() {
      return sample;
    }

    public WorkloadRates rates() {
      return rates;
    }

    public Optional<WorkloadClass> observed() {
      return observed;
    }

    public Optional<WorkloadClass> changed() {
      return changed;
    }

    public WorkloadClass stable() {
      return stable;
    }

    public int run() {
      return run;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Observation)) {
        return false;
      }
      Observation o = (Observation) other;
      return Objects.equals(sample, o.sample)
        && Objects.equals(rates, o.rates)
        && Objects.equals(observed, o.observed)
        && Objects.equals(changed, o.changed)
        && Objects.equals(stable, o.stable)
        && run == o.run;
    }

    @Override
    public int hashCode() {
      return Objects.hash(sample, rates, observed, changed, stable, run);
    }

    @Override
    public String toString() {
      return "Observation[sample=" + sample + ", rates=" + rates + ", observed=" + observed +
        ", changed=" + changed + ", stable=" + stable + ", run=" + run + "]";
    }
  }

  /** Reads, classifies and debounces once. */
  public Observation observe() throws IOException {
    TableSample s = source.sample(table);
    window.add(s);
    if (!window.ready()) {
      return new Observation(s, null, Optional.empty(), Optional.empty(), hysteresis.stable(), 0);
    }
    WorkloadRates rates = window.rates();
    Optional<WorkloadClass> observed = classifier.classify(rates);
    Optional<WorkloadClass> changed = hysteresis.offer(observed);
    return new Observation(s, rates, observed, changed, hysteresis.stable(), hysteresis.run());
  }

  public TableName table() {
    return table;
  }
}
