package io.strata.bench.media;

import static io.strata.bench.media.Dataset.EXCEEDS_RAM;
import static io.strata.bench.media.Dataset.FITS_RAM;
import static io.strata.bench.media.Medium.HDD;
import static io.strata.bench.media.Medium.RAM;
import static io.strata.bench.media.Medium.SSD;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The eleven cases of the storage-media paper's Table 1, named as there, each mapped to Strata's
 * placement. Where the paper says "other files" it means rolled WALs and archived HFiles too;
 * "smaller files (less than 1.5GB)" are flushes and compactions below Strata's size threshold;
 * "All_HDD" puts every compaction, small or large, on HDD and keeps only WALs and flushes fast.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 */
public final class MediaCases {
  private MediaCases() {
  }

  /** The paper's Table 1, in its order. */
  public static final List<MediaCase> ALL = List.of(
    //            name                  dataset       wal  oldwal flush small large archive
    new MediaCase("50G_RAM", FITS_RAM, RAM, RAM, RAM, RAM, RAM, RAM,
      "all files in RAMDISK; data size limited by the RAMDISK's capacity"),
    new MediaCase("50G_SSD", FITS_RAM, SSD, SSD, SSD, SSD, SSD, SSD,
      "all files on SATA SSD"),
    new MediaCase("50G_HDD", FITS_RAM, HDD, HDD, HDD, HDD, HDD, HDD,
      "all files on HDD"),
    new MediaCase("1T_SSD", EXCEEDS_RAM, SSD, SSD, SSD, SSD, SSD, SSD,
      "all files on SATA SSD"),
    new MediaCase("1T_HDD", EXCEEDS_RAM, HDD, HDD, HDD, HDD, HDD, HDD,
      "all files on HDD"),
    new MediaCase("1T_RAM_SSD", EXCEEDS_RAM, RAM, SSD, SSD, SSD, SSD, SSD,
      "WAL in RAMDISK, other files on SSD"),
    new MediaCase("1T_RAM_HDD", EXCEEDS_RAM, RAM, HDD, HDD, HDD, HDD, HDD,
      "WAL in RAMDISK, other files on HDD"),
    new MediaCase("1T_SSD_HDD", EXCEEDS_RAM, SSD, HDD, SSD, SSD, HDD, HDD,
      "WAL and smaller files (< 1.5 GB) on SSD, other files (archived included) on HDD"),
    new MediaCase("1T_SSD_All_HDD", EXCEEDS_RAM, SSD, HDD, SSD, HDD, HDD, HDD,
      "WAL and flushed HFiles on SSD, all other files (compacted, archived) on HDD"),
    new MediaCase("1T_RAM_SSD_HDD", EXCEEDS_RAM, RAM, HDD, SSD, SSD, HDD, HDD,
      "WAL in RAMDISK, smaller files (< 1.5 GB) on SSD, other files (archived included) on HDD"),
    new MediaCase("1T_RAM_SSD_All_HDD", EXCEEDS_RAM, RAM, HDD, SSD, HDD, HDD, HDD,
      "WAL in RAMDISK, flushed HFiles on SSD, all other files (compacted, archived) on HDD"));

  /** The case of that name (case-insensitive). */
  public static Optional<MediaCase> byName(String name) {
    return ALL.stream().filter(c -> c.name().equalsIgnoreCase(name.trim())).findFirst();
  }

  /**
   * The cases named in a comma-separated list, in the paper's order.
   *
   * @throws IllegalArgumentException naming the unknown case and the valid names
   */
  public static List<MediaCase> parse(String list) {
    List<MediaCase> chosen = new ArrayList<>();
    for (String name : list.split(",")) {
      if (name.isBlank()) {
        continue;
      }
      MediaCase c = byName(name).orElseThrow(() -> new IllegalArgumentException(String.format(
        Locale.ROOT, "unknown case '%s'; the cases are %s", name.trim(), names())));
      if (!chosen.contains(c)) {
        chosen.add(c);
      }
    }
    if (chosen.isEmpty()) {
      throw new IllegalArgumentException("no case named in '" + list + "'; the cases are "
        + names());
    }
    chosen.sort((a, b) -> Integer.compare(ALL.indexOf(a), ALL.indexOf(b)));
    return chosen;
  }

  /**
   * The paper's SSD-count cases (its Figures 4 and 5): 50G_SSD on each number of SSD volumes per
   * DataNode, under each controller cap, named as the paper names them ({@code 50G_4SSD},
   * {@code 50G_8SSD}) with {@code _capN} (N MB/s) when a controller cap applies. Grouped by volume
   * count, counts and caps in the order given: each count needs an HDFS of its own, the caps
   * change in place.
   *
   * @param volumes SSD volumes per DataNode, from {@link SsdSetup#parseVolumes}
   * @param caps controller caps in bytes/s (0: none), from {@link SsdSetup#parseCaps}
   */
  public static List<MediaCase> ssdScaling(List<Integer> volumes, List<Long> caps) {
    MediaCase base = byName("50G_SSD").orElseThrow();
    List<MediaCase> cases = new ArrayList<>();
    for (int n : volumes) {
      for (long cap : caps) {
        SsdSetup setup = new SsdSetup(n, cap);
        String name = ssdScalingName(setup);
        String study = String.format(Locale.ROOT, "all files on SATA SSD, %d SSD volumes per "
          + "DataNode%s", n, setup.capped() ? ", sharing a " + setup.controllerMegabytesPerSecond()
            + " MB/s controller" + (cap == SsdSetup.STUDY_CONTROLLER_BYTES_PER_SECOND
              ? " (the study's two SATA controllers)" : "") : ", no controller cap");
        cases.add(base.on(setup, name, study));
      }
    }
    return cases;
  }

  /** {@code 50G_8SSD}, or {@code 50G_8SSD_cap1536} under a 1536 MB/s controller cap. */
  static String ssdScalingName(SsdSetup setup) {
    return "50G_" + setup.volumes() + "SSD"
      + (setup.capped() ? "_cap" + setup.controllerMegabytesPerSecond() : "");
  }

  /** The all-HDD case of a dataset: what the others are compared with. */
  public static MediaCase hddBaseline(Dataset d) {
    return ALL.stream().filter(c -> c.dataset() == d && c.allOn(HDD)).findFirst().orElseThrow();
  }

  static String names() {
    return String.join(", ", ALL.stream().map(MediaCase::name).toList());
  }
}
