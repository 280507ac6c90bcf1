package io.strata.bench.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.Test;

/**
 * A daemon that did not come back is explained from its own files: the log4j log's telling lines
 * and the JVM's exit message in its .out (an OutOfMemoryError exit is written only there).
 */
public class WhyDownTest {
  @Test
  public void namesTheOutOfMemoryExitAndTheAbortNotTheJvmFlags() throws Exception {
    File dir = Files.createTempDirectory("why-down").toFile();
    File log = new File(dir, "regionserver-2.log");
    Files.writeString(log.toPath(), String.join("\n",
      "2026-11-27 20:31:43,296 INFO  [main] util.ServerCommandLine: vmInputArguments=[-Xmx384m, "
        + "-XX:+ExitOnOutOfMemoryError]",
      "2026-11-27 20:33:01,000 INFO  [rs] regionserver.HRegion: Flushing 1/1 column families",
      "2026-11-27 20:33:02,000 ERROR [rs] regionserver.HRegionServer: ***** ABORTING region "
        + "server rs2: Replay of WAL required *****",
      "Caused by: java.io.IOException: sync failed", ""), StandardCharsets.UTF_8);
    Files.writeString(new File(dir, "regionserver-2.out").toPath(),
      "Terminating due to java.lang.OutOfMemoryError: Java heap space\n", StandardCharsets.UTF_8);
    String why = FaultCampaign.whyDown("regionserver-2", log);
    assertTrue(why, why.contains("regionserver-2.out: Terminating due to java.lang."
      + "OutOfMemoryError: Java heap space"));
    assertTrue(why, why.contains("ABORTING region server rs2"));
    assertTrue(why, why.contains("Caused by: java.io.IOException: sync failed"));
    assertFalse(why, why.contains("vmInputArguments"));
    assertFalse(why, why.contains("Flushing"));
  }

  @Test
  public void saysSoWhenNothingExplainsIt() throws Exception {
    File dir = Files.createTempDirectory("why-down").toFile();
    assertEquals("  nothing in its logs says why",
      FaultCampaign.whyDown("tier-mover", new File(dir, "tier-mover.log")));
  }
}
