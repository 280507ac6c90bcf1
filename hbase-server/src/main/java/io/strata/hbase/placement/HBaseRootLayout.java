package io.strata.hbase.placement;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.io.HFileLink;
import org.apache.hadoop.hbase.regionserver.StoreFileInfo;

/**
 * Tells, from its path alone, what a file under an HBase root directory is. Store files in a
 * family directory cannot be told apart by path ({@link Location#STORE_FILE}): whether they came
 * from a flush or a compaction is in the file itself, see {@link StoreFileOrigin}.
 *
 * <p>Layout of HBase 2.x: {@code WALs/<server>/<wal>}, {@code oldWALs/<wal>},
 * {@code data/<ns>/<table>/<region>/<family>/<hfile>},
 * {@code data/<ns>/<table>/<region>/recovered.edits/<file>},
 * {@code archive/data/<ns>/<table>/<region>/<family>/<hfile>}, {@code MasterData/...}.
 */
public final class HBaseRootLayout {

  /** Where in the layout a file sits. */
  public enum Location {
    WAL, OLDWAL, STORE_FILE, ARCHIVED_STORE_FILE, OTHER
  }

  private static final String MASTER_STORE_DIR = "MasterData";

  private HBaseRootLayout() {
  }

  /**
   * @param relative the file's path relative to the HBase root, '/'-separated, no leading '/'
   */
  public static Location locate(String relative) {
    String[] parts = relative.split("/");
    if (parts.length < 2) {
      return Location.OTHER;
    }
    String top = parts[0];
    String name = parts[parts.length - 1];
    if (HConstants.HREGION_LOGDIR_NAME.equals(top)) {
      return Location.WAL;
    }
    if (HConstants.HREGION_OLDLOGDIR_NAME.equals(top)) {
      return Location.OLDWAL;
    }
    if (HConstants.BASE_NAMESPACE_DIR.equals(top)) {
      // data/<ns>/<table>/<region>/<family-or-recovered.edits>/<file>
      if (parts.length == 6) {
        if (HConstants.RECOVERED_EDITS_DIR.equals(parts[4])) {
          return Location.WAL;
        }
        if (isPlainStoreFileName(parts[3], parts[4], name)) {
          return Location.STORE_FILE;
        }
      }
      return Location.OTHER;
    }
    if (HConstants.HFILE_ARCHIVE_DIRECTORY.equals(top)) {
      // archive/data/<ns>/<table>/<region>/<family>/<hfile>
      if (parts.length == 7 && HConstants.BASE_NAMESPACE_DIR.equals(parts[1])
        && isPlainStoreFileName(parts[4], parts[5], name)) {
        return Location.ARCHIVED_STORE_FILE;
      }
      return Location.OTHER;
    }
    if (MASTER_STORE_DIR.equals(top)) {
      return Location.OTHER;
    }
    return Location.OTHER;
  }

  private static boolean isPlainStoreFileName(String region, String family, String name) {
    return !region.startsWith(".") && !family.startsWith(".") && !name.startsWith(".")
      && StoreFileInfo.isHFile(name) && !HFileLink.isHFileLink(name)
      && !StoreFileInfo.isReference(name);
  }

  /** The path of {@code file} relative to {@code root}, or null if it is not below it. */
  public static String relativize(Path root, Path file) {
    String r = Path.getPathWithoutSchemeAndAuthority(root).toString();
    String f = Path.getPathWithoutSchemeAndAuthority(file).toString();
    if (r.endsWith("/")) {
      r = r.substring(0, r.length() - 1);
    }
    if (!f.startsWith(r + "/")) {
      return null;
    }
    return f.substring(r.length() + 1);
  }
}
