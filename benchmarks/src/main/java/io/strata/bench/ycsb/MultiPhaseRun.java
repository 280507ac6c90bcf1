package io.strata.bench.ycsb;

import io.strata.bench.ycsb.YcsbRunner.Phase;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * YCSB++'s multi-phase run: a sequence of steps — YCSB's load, a workload's transactions, a
 * memstore flush, a settle wait ({@link Settle}) — each with its own figures and the flushes,
 * compactions the servers did, and the regions at its end, while it ran, so that the cost of the background work
 * one phase leaves is seen in the phase that pays for it.
 */
public final class MultiPhaseRun {

  /** Flushes the table's memstores (the {@code flush} step). */
  @FunctionalInterface
  public interface TableFlush {
    void flush() throws IOException;
  }

  /** What a step does. */
  public enum Kind { LOAD, RUN, FLUSH, SETTLE }

  /** One step; {@code workload} is the workload file's name for {@link Kind#RUN}. */
  public record Step(Kind kind, String workload) {
    public String name() {
      return kind == Kind.RUN ? workload : kind.name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One finished step.
   *
   * @param step the step
   * @param seconds its wall time (for YCSB steps, JVM start-up included)
   * @param figures YCSB's figures; null for flush and settle
   * @param activity the servers' activity during the step (counters) and at its end (gauges)
   * @param settle how the wait ended; null unless a settle step
   */
  public record StepResult(Step step, double seconds, PhaseFigures figures,
    ActivitySnapshot activity, Settle.Outcome settle) {
    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-8s %6.1f s", step.name(),
        seconds));
      if (settle != null) {
        sb.append(settle.settled() ? "  settled" : settle.fallback()
          ? "  NOT settled within the bound: waited a fixed quiet period" : "  fixed wait");
      }
      if (figures != null) {
        sb.append("  ").append(figures);
      }
      return sb.append("\n    servers: ").append(activity).toString();
    }
  }

  /**
   * Parses a comma-separated list of steps: {@code load}, {@code flush}, {@code settle}, or a
   * workload to run ({@code a}, {@code b}, {@code c}, {@code f}, {@code update-only}, or a file
   * name of {@link YcsbWorkloads#ALL}).
   */
  public static List<Step> parse(String spec) {
    List<Step> steps = new ArrayList<>();
    for (String raw : spec.split(",")) {
      String s = raw.trim().toLowerCase(Locale.ROOT);
      switch (s) {
        case "load" -> steps.add(new Step(Kind.LOAD, null));
        case "flush" -> steps.add(new Step(Kind.FLUSH, null));
        case "settle" -> steps.add(new Step(Kind.SETTLE, null));
        default -> {
          String file = YcsbWorkloads.ALL.contains(s) ? s
            : YcsbWorkloads.ALL.contains("workload" + s) ? "workload" + s
            : YcsbWorkloads.ALL.contains("workload-" + s) ? "workload-" + s : null;
          if (file == null) {
            throw new IllegalArgumentException("Unknown phase '" + raw.trim() + "' in '" + spec
              + "': use load, flush, settle or a workload (a, b, c, f, update-only)");
          }
          steps.add(new Step(Kind.RUN, file));
        }
      }
    }
    return steps;
  }

  private final YcsbClients clients;
  private final ServerActivity activity;
  private final Settle settle;
  private final TableFlush flush;
  private final Path dir;
  private Consumer<Step> onStep = step -> { };

  /**
   * @param clients the YCSB clients (their properties hold {@code recordcount} and {@code
   *     operationcount})
   * @param dir where each step's output goes, in {@code <n>-<name>/}
   */
  public MultiPhaseRun(YcsbClients clients, ServerActivity activity, Settle settle,
    TableFlush flush, Path dir) {
    this.clients = clients;
    this.activity = activity;
    this.settle = settle;
    this.flush = flush;
    this.dir = dir;
  }

  /** Told of each step as it starts (the monitoring timeline marks it). */
  public MultiPhaseRun onStep(Consumer<Step> listener) {
    this.onStep = listener;
    return this;
  }

  public List<StepResult> run(List<Step> steps, Consumer<StepResult> progress)
    throws IOException, InterruptedException {
    // YCSB loads records of the format of the workload file it is given; all of Strata's agree.
    String loadWorkload = steps.stream().filter(s -> s.kind() == Kind.RUN).map(Step::workload)
      .findFirst().orElse(YcsbWorkloads.A);
    List<StepResult> results = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      Step step = steps.get(i);
      Path stepDir = dir.resolve((i + 1) + "-" + step.name());
      onStep.accept(step);
      ActivitySnapshot before = activity.snapshot();
      long start = System.nanoTime();
      PhaseFigures figures = null;
      Settle.Outcome waited = null;
      switch (step.kind()) {
        case LOAD -> figures = clients.execute(Phase.LOAD,
          YcsbWorkloads.write(loadWorkload, stepDir), Map.of(), stepDir);
        case RUN -> figures = clients.execute(Phase.TRANSACTIONS,
          YcsbWorkloads.write(step.workload(), stepDir), Map.of(), stepDir);
        case FLUSH -> flush.flush();
        case SETTLE -> waited = settle.await(activity);
        default -> throw new IllegalStateException(step.toString());
      }
      double seconds = Duration.ofNanos(System.nanoTime() - start).toNanos() / 1e9;
      StepResult r = new StepResult(step, seconds, figures, activity.snapshot().since(before),
        waited);
      results.add(r);
      progress.accept(r);
    }
    return results;
  }
}
