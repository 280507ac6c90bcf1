package io.strata.bench.ycsb;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * YCSB's HdrHistogram logs ({@code hdrhistogram.fileoutput=true}: one {@code <OPERATION>.hdr}
 * per operation, an interval histogram per status interval), added up over the intervals and
 * over clients: percentiles of several YCSB processes cannot be combined from their text
 * reports, their histograms can.
 */
public final class HdrLogs {
  static final String SUFFIX = ".hdr";

  private HdrLogs() {
  }

  /** Per operation name, the sum of every interval histogram in the {@code .hdr} files of dirs. */
  public static Map<String, Histogram> merge(List<Path> dirs) throws IOException {
    Map<String, Histogram> merged = new TreeMap<>();
    for (Path dir : dirs) {
      List<Path> logs;
      try (Stream<Path> s = Files.list(dir)) {
        logs = s.filter(p -> p.getFileName().toString().endsWith(SUFFIX)).sorted().toList();
      }
      for (Path log : logs) {
        String name = log.getFileName().toString();
        Histogram total = merged.computeIfAbsent(
          name.substring(0, name.length() - SUFFIX.length()), k -> new Histogram(3));
        add(log.toFile(), total);
      }
    }
    return merged;
  }

  private static void add(File log, Histogram total) throws IOException {
    HistogramLogReader reader = new HistogramLogReader(log);
    EncodableHistogram h;
    try {
      while ((h = reader.nextIntervalHistogram()) != null) {
        if (!(h instanceof Histogram interval)) {
          throw new IOException(log + " holds a " + h.getClass().getSimpleName()
            + ", not the integer histograms YCSB writes");
        }
        total.add(interval);
      }
    } catch (RuntimeException e) {
      throw new IOException("Cannot read HdrHistogram log " + log + ": " + e, e);
    }
  }
}
