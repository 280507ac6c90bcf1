package io.strata.bench.ycsb;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One finished YCSB process: how it was started, where its output went and its parsed report.
 *
 * @param command the full command line
 * @param exitCode the process's exit code (YCSB exits 0 even when operations failed)
 * @param elapsed wall time from start to exit, JVM start-up included
 * @param stdout the process's standard output (binding output)
 * @param stderr the process's standard error (YCSB's progress and {@code -s} status lines)
 * @param reportFile YCSB's text report ({@code exportfile})
 * @param report the figures of {@code reportFile}
 */
public record YcsbRun(List<String> command, int exitCode, Duration elapsed, Path stdout,
  Path stderr, Path reportFile, YcsbReport report) {
}
