package io.strata.hdfs.tiermover;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The progress of re-placements that a service other than the tier mover hands to the Storage
 * Policy Satisfier: today a RegionServer's age chore, which re-pins store files whose data grew
 * old. Each such service publishes its report as one small JSON file in a directory in HDFS
 * ({@link io.strata.hdfs.HdfsKeys#TIERMOVER_AGING_DIR}), replacing it after each pass; the tier mover reads the directory and
 * shows the sum in its status, beside the moves it asked for itself, so that one status tells an
 * operator how much data is on its way between tiers and why.
 *
 * <p>A report is a snapshot of counters since its publisher started ({@code replaced_*},
 * {@code failures}) and of what waits now ({@code pending_*}); {@code updated_ms} and
 * {@code interval_ms} tell a live publisher from one that stopped (a RegionServer that died or
 * was restarted leaves its last report behind).
 *
 * <p>Immutable; its JSON field names are those of the file.
 */
public final class ReplacementReport {
  private static final Logger LOG = LoggerFactory.getLogger(ReplacementReport.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String SUFFIX = ".json";

  private final String source;
  private final long updatedMs;
  private final long intervalMs;
  private final long replacedFiles;
  private final long replacedBytes;
  private final long pendingFiles;
  private final long pendingBytes;
  private final long failures;

  /**
   * @param source        who re-places, as logs name it (e.g. the RegionServer's host and pid)
   * @param updatedMs     when the report was taken, in epoch milliseconds
   * @param intervalMs    how often the publisher reports
   * @param replacedFiles files handed to the satisfier since the publisher started
   * @param replacedBytes their bytes
   * @param pendingFiles  files due for re-placement not handed over yet (rate bound, failures)
   * @param pendingBytes  their bytes
   * @param failures      calls to the NameNode that failed since the publisher started
   */
  @JsonCreator
  public ReplacementReport(@JsonProperty("source") String source,
    @JsonProperty("updated_ms") long updatedMs, @JsonProperty("interval_ms") long intervalMs,
    @JsonProperty("replaced_files") long replacedFiles,
    @JsonProperty("replaced_bytes") long replacedBytes,
    @JsonProperty("pending_files") long pendingFiles,
    @JsonProperty("pending_bytes") long pendingBytes, @JsonProperty("failures") long failures) {
    this.source = Objects.requireNonNull(source, "source");
    this.updatedMs = updatedMs;
    this.intervalMs = intervalMs;
    this.replacedFiles = replacedFiles;
    this.replacedBytes = replacedBytes;
    this.pendingFiles = pendingFiles;
    this.pendingBytes = pendingBytes;
    this.failures = failures;
  }

  @JsonProperty("source")
  public String source() {
    return source;
  }

  @JsonProperty("updated_ms")
  public long updatedMs() {
    return updatedMs;
  }

  @JsonProperty("interval_ms")
  public long intervalMs() {
    return intervalMs;
  }

  @JsonProperty("replaced_files")
  public long replacedFiles() {
    return replacedFiles;
  }

  @JsonProperty("replaced_bytes")
  public long replacedBytes() {
    return replacedBytes;
  }

  @JsonProperty("pending_files")
  public long pendingFiles() {
    return pendingFiles;
  }

  @JsonProperty("pending_bytes")
  public long pendingBytes() {
    return pendingBytes;
  }

  @JsonProperty("failures")
  public long failures() {
    return failures;
  }

  /**
   * Whether the publisher is taken as stopped at {@code nowMs}: no report for three of its
   * intervals (and at least a minute, so that a slow NameNode call is not a death).
   */
  public boolean staleAt(long nowMs) {
    return nowMs - updatedMs > Math.max(60_000L, 3 * intervalMs);
  }

  /**
   * Writes this report as {@code dir/name.json}, replacing the previous one in one rename, so a
   * reader sees the old or the new report and never half of one.
   */
  public void publish(FileSystem fs, Path dir, String name) throws IOException {
    Path target = new Path(dir, name + SUFFIX);
    Path tmp = new Path(dir, "." + name + SUFFIX + ".tmp");
    fs.mkdirs(dir);
    try (OutputStream out = fs.create(tmp, true)) {
      JSON.writeValue(out, this);
    }
    FileContext.getFileContext(fs.getUri(), fs.getConf()).rename(tmp, target,
      Options.Rename.OVERWRITE);
  }

  /**
   * The reports in {@code dir}; none when it does not exist. A file that cannot be parsed is
   * skipped with a WARN naming it (a publisher of another version, or a partial copy by hand).
   */
  public static List<ReplacementReport> readAll(FileSystem fs, Path dir) throws IOException {
    List<ReplacementReport> out = new ArrayList<>();
    FileStatus[] files;
    try {
      files = fs.listStatus(dir);
    } catch (FileNotFoundException e) {
      return out;
    }
    for (FileStatus f : files) {
      String n = f.getPath().getName();
      if (!f.isFile() || n.startsWith(".") || !n.endsWith(SUFFIX)) {
        continue;
      }
      try (InputStream in = fs.open(f.getPath())) {
        out.add(JSON.readValue(in, ReplacementReport.class));
      } catch (FileNotFoundException e) {
        // replaced or removed between the listing and the read
      } catch (IOException e) {
        LOG.warn("Re-placement report {} cannot be read ({}); it is left out of the tier "
          + "mover's status until its publisher replaces it", f.getPath(), e.toString());
      }
    }
    return out;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ReplacementReport)) {
      return false;
    }
    ReplacementReport o = (ReplacementReport) other;
    return source.equals(o.source) && updatedMs == o.updatedMs && intervalMs == o.intervalMs
      && replacedFiles == o.replacedFiles && replacedBytes == o.replacedBytes
      && pendingFiles == o.pendingFiles && pendingBytes == o.pendingBytes
      && failures == o.failures;
  }

  @Override
  public int hashCode() {
    return Objects.hash(source, updatedMs, intervalMs, replacedFiles, replacedBytes, pendingFiles,
      pendingBytes, failures);
  }

  @Override
  public String toString() {
    return "ReplacementReport[source=" + source + ", updatedMs=" + updatedMs + ", intervalMs="
      + intervalMs + ", replacedFiles=" + replacedFiles + ", replacedBytes=" + replacedBytes
      + ", pendingFiles=" + pendingFiles + ", pendingBytes=" + pendingBytes + ", failures="
      + failures + "]";
  }
}
