package io.strata.bench.media;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The SSDs of every emulated DataNode: how many SSD volumes it has and whether a disk controller
 * caps their combined bandwidth. The storage-media paper's servers had eight SSDs behind two
 * SATA controllers that let 1536 MB/s through in all (its "Disk Bandwidth Limitation" and Table
 * 13): about 3.4 SSDs' worth of its 446 MB/s per SSD, so eight SSDs gained almost nothing over
 * four (its Figures 4 and 5).
 *
 * <p>The cap is the paper's own figure, not scaled: the per-volume rates of {@link Medium} are the
 * paper's device figures as they are (the bench shrinks data sizes, not rates), and each emulated
 * DataNode stands for one of the paper's DataNode hosts. Decimal megabytes, as in {@link Medium}.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 *
 * <p>Immutable; thread-safe.
 *
 * @param volumes SSD volumes per DataNode
 * @param controllerBytesPerSecond bandwidth shared by all SSD volumes of a DataNode (bytes/s);
 *   0: no controller cap, each volume only has its own
 */
public record SsdSetup(int volumes, long controllerBytesPerSecond) {
  /** The layout of the study's eleven cases here: one SSD volume, no controller cap. */
  public static final SsdSetup ONE_VOLUME = new SsdSetup(1, 0);
  /** The study's two SATA controllers together: 2 x 6 Gbps, which it gives as 1536 MB/s. */
  public static final long STUDY_CONTROLLER_BYTES_PER_SECOND = 1_536_000_000L;
  /**
   * Most SSD volumes a DataNode may have: every volume is a directory on this machine's one disk
   * with DataNode threads of its own, and the study went up to eight.
   */
  public static final int MAX_VOLUMES = 16;

  public SsdSetup {
    if (volumes < 1 || volumes > MAX_VOLUMES) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
        "SSD volumes per DataNode must be 1 to %d, not %d", MAX_VOLUMES, volumes));
    }
    if (controllerBytesPerSecond < 0) {
      throw new IllegalArgumentException("negative controller bandwidth: "
        + controllerBytesPerSecond);
    }
  }

  public boolean capped() {
    return controllerBytesPerSecond > 0;
  }

  /** The cap in decimal MB/s, as the option takes it. */
  public long controllerMegabytesPerSecond() {
    return controllerBytesPerSecond / 1_000_000;
  }

  /** Whether the controller lets less through than the volumes could write together. */
  public boolean capBinds() {
    return capped() && controllerBytesPerSecond < volumes * Medium.SSD.bytesPerSecond();
  }

  /** {@code 8 SSD, controller cap 1536 MB/s} or {@code 8 SSD, no controller cap}. */
  public String describe() {
    return volumes + " SSD, " + (capped() ? "controller cap " + controllerMegabytesPerSecond()
      + " MB/s" : "no controller cap");
  }

  /**
   * The SSD volume counts of {@code --ssd-volumes}: a comma-separated list of whole numbers from
   * 1 to {@link #MAX_VOLUMES}, in the order given (the order the counts run in: the first case
   * of a run also warms the JVM up, so repeats can alternate it), without repeats.
   *
   * @throws IllegalArgumentException naming the bad entry and what is allowed
   */
  public static List<Integer> parseVolumes(String list) {
    List<Integer> counts = new ArrayList<>();
    for (String item : list.split(",", -1)) {
      String s = item.trim();
      if (s.isEmpty()) {
        continue;
      }
      int n;
      try {
        n = Integer.parseInt(s);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(String.format(Locale.ROOT, "--ssd-volumes: '%s' is "
          + "not a number of SSD volumes per DataNode (1 to %d), e.g. 4,8", s, MAX_VOLUMES));
      }
      if (n < 1 || n > MAX_VOLUMES) {
        throw new IllegalArgumentException(String.format(Locale.ROOT, "--ssd-volumes: %d is out "
          + "of range; a DataNode can have 1 to %d SSD volumes here", n, MAX_VOLUMES));
      }
      if (!counts.contains(n)) {
        counts.add(n);
      }
    }
    if (counts.isEmpty()) {
      throw new IllegalArgumentException("--ssd-volumes: no count in '" + list + "'; give e.g. "
        + "4,8");
    }
    return counts;
  }

  /**
   * The controller caps of {@code --controller-cap}, in bytes/s (0: none): a comma-separated list
   * of {@code none}, {@code study} (1536 MB/s) or a whole number of MB/s, in the order given,
   * without repeats.
   *
   * @throws IllegalArgumentException naming the bad entry and what is allowed
   */
  public static List<Long> parseCaps(String list) {
    List<Long> caps = new ArrayList<>();
    for (String item : list.split(",", -1)) {
      String s = item.trim().toLowerCase(Locale.ROOT);
      if (s.isEmpty()) {
        continue;
      }
      long bytes;
      if (s.equals("none")) {
        bytes = 0;
      } else if (s.equals("study")) {
        bytes = STUDY_CONTROLLER_BYTES_PER_SECOND;
      } else {
        long mb;
        try {
          mb = Long.parseLong(s);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("--controller-cap: '" + item.trim() + "' is not "
            + "none, study or a bandwidth in MB/s");
        }
        // The upper bound only keeps bytes/s within a long; no disk controller comes near it.
        if (mb < 1 || mb > 1_000_000_000L) {
          throw new IllegalArgumentException("--controller-cap: " + mb + " MB/s is out of range; "
            + "give at least 1 MB/s, or none for no cap");
        }
        bytes = mb * 1_000_000;
      }
      if (!caps.contains(bytes)) {
        caps.add(bytes);
      }
    }
    if (caps.isEmpty()) {
      throw new IllegalArgumentException("--controller-cap: no cap in '" + list + "'; give e.g. "
        + "none,study");
    }
    return caps;
  }
}
