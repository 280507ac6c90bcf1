package io.strata.hdfs.faults;

import io.strata.conf.KeyValues;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;

/**
 * The keys of the DataNode fault plug-ins in this module, each with its default and its validating
 * getter. These plug-ins are for test and benchmark clusters ({@code bin/strata-cluster}); a
 * production install never puts this module's jar on a DataNode's class path.
 */
public final class FaultKeys {
  private FaultKeys() {
  }

  /**
   * Prefix of the keys, one per storage type ({@code strata.media.emulation.delay.us.ssd},
   * {@code .disk}, {@code .archive}, ...: the type's name in lower case), of an in-process media
   * emulation: the delay, in microseconds, that {@link VolumeStallSwitch} (a DataNode plugin) adds
   * to every file and metadata operation the DataNode starts on a volume of that type. Read once,
   * at the DataNode's start. Default 0: none. {@code bin/strata-cluster} sets them where it cannot
   * emulate the media at the block layer; never set them where the media are real or already
   * emulated (the delays would stack).
   */
  public static final String MEDIA_DELAY_US_PREFIX = "strata.media.emulation.delay.us.";
  /** Longest per-operation media delay: one second (an emulated medium, not a stall). */
  public static final long MEDIA_DELAY_US_MAX = 1_000_000;

  /** {@link #MEDIA_DELAY_US_PREFIX}{@code type}: a whole number of microseconds, 0 to 1 s. */
  public static long mediaDelayUs(Configuration conf, StorageType type) {
    String key = MEDIA_DELAY_US_PREFIX + type.name().toLowerCase(Locale.ROOT);
    return KeyValues.within(key, KeyValues.whole(key, conf.getTrimmed(key), 0), 0,
      MEDIA_DELAY_US_MAX);
  }
}
