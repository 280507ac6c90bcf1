package io.strata.hdfs;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a tool's status lines go ({@code strata satisfier}, {@code strata tier-mover}): standard
 * output in the foreground; its log when bin/ runs it as a daemon. A daemon's standard output is
 * kept for what cannot go through the log (JVM crash output, thread dumps) and is rotated only
 * at a start, while the log is size-capped: a status line every interval, for months, belongs in
 * the log.
 */
public final class DaemonOutput {
  /**
   * JVM system property that bin/ sets on every daemon it starts, naming it (e.g.
   * {@code satisfier}).
   */
  public static final String DAEMON_PROPERTY = "strata.daemon";

  private DaemonOutput() {
  }

  /** Standard output, or, in a daemon ({@link #DAEMON_PROPERTY} set), {@code tool}'s logger. */
  public static PrintStream forTool(Class<?> tool) {
    String daemon = System.getProperty(DAEMON_PROPERTY, "");
    if (daemon.isEmpty()) {
      return System.out;
    }
    return toLog(LoggerFactory.getLogger(tool));
  }

  /** A stream whose every line is one INFO message of {@code log}. */
  static PrintStream toLog(Logger log) {
    return new PrintStream(new LineLogger(log), true, StandardCharsets.UTF_8);
  }

  private static final class LineLogger extends OutputStream {
    private final Logger log;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LineLogger(Logger log) {
      this.log = log;
    }

    @Override
    public synchronized void write(int b) {
      if (b == '\n') {
        emit();
      } else {
        line.write(b);
      }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      for (int i = off; i < off + len; i++) {
        write(b[i]);
      }
    }

    @Override
    public synchronized void close() {
      emit();
    }

    private void emit() {
      if (line.size() == 0) {
        return;
      }
      String s = line.toString(StandardCharsets.UTF_8);
      line.reset();
      if (s.endsWith("\r")) {
        s = s.substring(0, s.length() - 1);
      }
      log.info(s);
    }
  }
}
