package io.strata.bench.pcm;

import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import site.ycsb.generator.CounterGenerator;
import site.ycsb.generator.ScrambledZipfianGenerator;
import site.ycsb.generator.SkewedLatestGenerator;

/**
 * How a workload picks the existing record it reads, updates or starts a scan at, as YCSB's
 * {@code requestdistribution} does (the PCM paper's Fig. 6): uniform over the records, Zipfian
 * (a few records far more often, scattered over the key space, YCSB's scrambled Zipfian), or
 * latest (the most recently inserted records most often, YCSB's skewed-latest). The skewed
 * choosers are YCSB's own generators, fixed to the records the table held when the chooser was
 * made.
 */
public enum KeyDistribution {
  UNIFORM, ZIPFIAN, LATEST;

  /** Picks record numbers in {@code [0, records)}; thread-safe. */
  interface Chooser {
    long next(ThreadLocalRandom rnd);
  }

  /** The name in the report and JSON. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * A chooser over the records {@code keys} holds now (uniform: over those it holds at each
   * pick). The skewed ones do not follow records inserted after they were made: meant for mixes
   * that do not insert.
   */
  Chooser over(LoadDriver.KeySpace keys) {
    long n = Math.max(1, keys.inserted());
    switch (this) {
      case ZIPFIAN: {
        ScrambledZipfianGenerator g = new ScrambledZipfianGenerator(0, n - 1);
        return rnd -> Math.min(n - 1, g.nextValue());
      }
      case LATEST: {
        // The newest record is the counter's last value, n - 1.
        SkewedLatestGenerator g = new SkewedLatestGenerator(new CounterGenerator(n));
        return rnd -> Math.max(0, Math.min(n - 1, g.nextValue()));
      }
      default:
        return rnd -> rnd.nextLong(Math.max(1, keys.inserted()));
    }
  }
}
