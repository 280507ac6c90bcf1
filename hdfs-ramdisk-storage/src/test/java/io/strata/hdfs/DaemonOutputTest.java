package io.strata.hdfs;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;

import io.strata.hdfs.sps.SatisfierTool;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.apache.log4j.Logger;
import org.apache.log4j.PatternLayout;
import org.apache.log4j.WriterAppender;
import org.junit.After;
import org.junit.Test;

/**
 * A tool's status lines: on standard output in the foreground; in its log, line by line, when
 * bin/ runs it as a daemon (-Dstrata.daemon), whose standard output is kept for crash output.
 */
public class DaemonOutputTest {
  private final PrintStream stdout = System.out;

  @After
  public void restore() {
    System.clearProperty(DaemonOutput.DAEMON_PROPERTY);
    System.setOut(stdout);
  }

  @Test
  public void foregroundWritesToStandardOutput() {
    assertSame(System.out, DaemonOutput.forTool(SatisfierTool.class));
  }

  @Test
  public void daemonLogsEachLine() {
    System.setProperty(DaemonOutput.DAEMON_PROPERTY, "satisfier");
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    StringWriter log = new StringWriter();
    WriterAppender appender = new WriterAppender(new PatternLayout("%p %c{1} %m%n"), log);
    Logger logger = Logger.getLogger(SatisfierTool.class);
    logger.addAppender(appender);
    // Only this appender: the tests' console appender would write the log lines to stdout.
    logger.setAdditivity(false);
    try {
      PrintStream out = DaemonOutput.forTool(SatisfierTool.class);
      out.println("{\"pending\": 0}");
      out.print("two ");
      out.print("parts");
      out.println();
      out.println();
    } finally {
      logger.removeAppender(appender);
      logger.setAdditivity(true);
    }
    assertEquals("INFO SatisfierTool {\"pending\": 0}\nINFO SatisfierTool two parts\n",
      log.toString());
    assertEquals("nothing on standard output", "", captured.toString(StandardCharsets.UTF_8));
  }
}
