package io.strata.distribution;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.Test;

/**
 * The tarball carries what an operator installs the daemons with: the systemd units
 * (conf/systemd/*.service) and the scripts they run (bin/daemon, bin/satisfier,
 * bin/tier-mover), executable.
 */
public class TarballContentsIT {

  @Test
  public void systemdUnitsAndTheirScriptsAreInTheTarball() throws Exception {
    File tarball = new File(System.getProperty("strata.dist.tarball"));
    assertTrue("no distribution at " + tarball + ": run the package phase", tarball.isFile());
    File out = File.createTempFile("tar", ".out", new File("target"));
    Process p = new ProcessBuilder("tar", "--list", "--verbose", "-zf", tarball.getPath())
      .redirectErrorStream(true).redirectOutput(out).start();
    assertTrue(p.waitFor(300, TimeUnit.SECONDS));
    String listing = Files.readString(out.toPath(), StandardCharsets.UTF_8);
    assertEquals(listing, 0, p.exitValue());
    // Entry name (without the top directory) to its mode.
    Map<String, String> modes = new HashMap<>();
    for (String line : listing.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 6) {
        String name = f[f.length - 1];
        modes.put(name.substring(name.indexOf('/') + 1), f[0]);
      }
    }
    for (String unit : List.of("namenode", "datanode", "satisfier", "tier-mover", "master",
      "regionserver")) {
      String name = "conf/systemd/strata-" + unit + ".service";
      assertEquals(name, "-rw-r--r--", modes.get(name));
    }
    for (String script : List.of("bin/daemon", "bin/satisfier", "bin/tier-mover",
      "bin/strata-env.sh", "bin/strata-daemon.sh")) {
      assertEquals(script, "-rwxr-xr-x", modes.get(script));
    }
  }
}
