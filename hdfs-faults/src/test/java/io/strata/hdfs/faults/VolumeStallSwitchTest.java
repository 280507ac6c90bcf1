package io.strata.hdfs.faults;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class VolumeStallSwitchTest {
  @Test
  public void wholeMillisecondsWithBlanksAround() {
    assertEquals(4000, VolumeStallSwitch.parseDelayMs("4000"));
    assertEquals(4000, VolumeStallSwitch.parseDelayMs("  4000\n"));
    assertEquals(0, VolumeStallSwitch.parseDelayMs("0"));
    assertEquals(VolumeStallSwitch.MAX_DELAY_MS,
      VolumeStallSwitch.parseDelayMs(Long.toString(VolumeStallSwitch.MAX_DELAY_MS)));
  }

  @Test
  public void anythingElseIsIgnored() {
    for (String s : new String[] { null, "", " \n", "4s", "-1", "4.5", "4 000", "0x10",
      Long.toString(VolumeStallSwitch.MAX_DELAY_MS + 1), "99999999999999999999" }) {
      assertEquals(s, -1, VolumeStallSwitch.parseDelayMs(s));
    }
  }
}
