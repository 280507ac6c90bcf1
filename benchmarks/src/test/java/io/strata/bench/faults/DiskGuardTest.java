package io.strata.bench.faults;

import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import org.junit.Test;

/** The disk guard's decision: when a campaign stops injecting faults, and what it says. */
public class DiskGuardTest {
  private static final long GB = 1L << 30;
  private static final File DIR = new File("/data/strata-cluster");

  @Test
  public void enoughFreeSpaceGoesOn() {
    assertNull(DiskGuard.stopReason(DIR, 11 * GB, 10 * GB));
    assertNull(DiskGuard.stopReason(DIR, 10 * GB, 10 * GB));
  }

  @Test
  public void belowTheMinimumStopsNamingDirectoryBytesAndOption() {
    String why = DiskGuard.stopReason(DIR, 10 * GB - 1, 10 * GB);
    assertTrue(why, why.contains("/data/strata-cluster"));
    assertTrue(why, why.contains(Long.toString(10 * GB - 1) + " bytes"));
    assertTrue(why, why.contains("--min-free-gb 10"));
  }

  @Test
  public void zeroIsNoCheck() {
    assertNull(DiskGuard.stopReason(DIR, 0, 0));
  }

  @Test
  public void aDirectoryThatDoesNotExistStops() {
    // getUsableSpace() is 0 for a path that does not exist: never taken for enough.
    String why = new DiskGuard(new File("/nonexistent/strata-cluster"), GB).check();
    assertTrue(why, why != null && why.contains("/nonexistent/strata-cluster"));
  }

  @Test
  public void theRealFileSystemIsRead() {
    File tmp = new File(System.getProperty("java.io.tmpdir"));
    assertNull(new DiskGuard(tmp, 1).check());
    assertTrue(new DiskGuard(tmp, Long.MAX_VALUE).check() != null);
  }
}
