package io.strata.compat;

import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The check every Strata plug-in runs when it starts: the running Hadoop release (and, for the
 * HBase-side plug-ins, the running HBase release) must be exactly the one in
 * {@link SupportedVersions}. With {@link #KEY} at {@code strict} (the default) a mismatch stops
 * the plug-in with an {@link UnsupportedVersionException} naming the plug-in, the version found,
 * the supported one and the key; at {@code warn} the plug-in starts and logs a WARN, once per
 * plug-in in each process (so at every start of the daemon).
 *
 * <p>The running versions are read once per JVM, by name through reflection ({@code
 * org.apache.hadoop.util.VersionInfo.getVersion()}, {@code
 * org.apache.hadoop.hbase.util.VersionInfo.getVersion()}), so this module needs neither Hadoop
 * nor HBase and a check costs a map lookup and a string comparison. A version that cannot be
 * read counts as a mismatch. Thread-safe.
 */
public final class VersionCheck {
  private static final Logger LOG = LoggerFactory.getLogger(VersionCheck.class);

  /**
   * What a plug-in does on a Hadoop or HBase release other than the supported one:
   * {@code strict} (default) refuses to start, {@code warn} starts and logs a WARN. Read from the
   * configuration the plug-in gets (hdfs-site.xml on the HDFS side, hbase-site.xml on the HBase
   * side); each module's keys class declares it with its validating getter.
   */
  public static final String KEY = "strata.version.check";
  public static final String KEY_DEFAULT = "strict";

  /** The values of {@link #KEY}. */
  public enum Mode {
    /** Refuse to start on an unsupported version. */
    STRICT,
    /** Start on an unsupported version, logging a WARN. */
    WARN;

    /** The value as written in the configuration. */
    public String value() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The products whose running version is checked. */
  public enum Product {
    HADOOP("Hadoop", "org.apache.hadoop.util.VersionInfo"),
    HBASE("HBase", "org.apache.hadoop.hbase.util.VersionInfo");

    private final String display;
    private final String versionInfoClass;

    Product(String display, String versionInfoClass) {
      this.display = display;
      this.versionInfoClass = versionInfoClass;
    }

    /** The release Strata supports, from {@link SupportedVersions}. */
    public String supported() {
      return this == HADOOP ? SupportedVersions.HADOOP : SupportedVersions.HBASE;
    }

    @Override
    public String toString() {
      return display;
    }
  }

  /** Running versions, read once per JVM (or set by the test seam). */
  private static final ConcurrentMap<Product, String> FOUND = new ConcurrentHashMap<>();

  /** Plug-in and product pairs already warned about in this JVM. */
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  private VersionCheck() {
  }

  /**
   * {@link #KEY}'s value (as {@code conf.getTrimmed(KEY)} gives it, null when unset) as a mode;
   * unset is {@code strict}; anything but {@code strict} or {@code warn} (any case) is refused.
   */
  public static Mode mode(String raw) {
    if (raw == null || raw.trim().isEmpty()) {
      return Mode.STRICT;
    }
    String v = raw.trim();
    for (Mode m : Mode.values()) {
      if (m.value().equalsIgnoreCase(v)) {
        return m;
      }
    }
    throw new IllegalArgumentException(KEY + " must be strict (refuse to start on a Hadoop or "
      + "HBase release other than the supported one) or warn (start and log a warning), not '"
      + raw + "'");
  }

  /** A plug-in in an HDFS process (NameNode, DataNode, satisfier, tier mover): checks Hadoop. */
  public static void hadoopPlugin(String plugin, Mode mode) {
    check(plugin, mode, Product.HADOOP);
  }

  /** A plug-in in an HBase process (master, RegionServer, client): checks Hadoop and HBase. */
  public static void hbasePlugin(String plugin, Mode mode) {
    check(plugin, mode, Product.HADOOP);
    check(plugin, mode, Product.HBASE);
  }

  private static void check(String plugin, Mode mode, Product product) {
    String warning = compare(plugin, mode, product.toString(), found(product),
      product.supported());
    if (warning != null && WARNED.add(plugin + '\n' + product)) {
      LOG.warn(warning);
    }
  }

  /**
   * The comparison itself: null when {@code found} is exactly {@code supported}; otherwise, in
   * {@link Mode#WARN}, the warning to log, and in {@link Mode#STRICT} an
   * {@link UnsupportedVersionException}.
   */
  static String compare(String plugin, Mode mode, String product, String found,
    String supported) {
    if (supported.equals(found)) {
      return null;
    }
    if (mode == Mode.WARN) {
      return plugin + " runs on " + product + " " + found + ", not the supported " + product + " "
        + supported + ", because " + KEY + "=warn: this combination is untested and may fail "
        + "with NoSuchMethodError or behave differently. Install " + product + " " + supported
        + " and remove " + KEY + " (default strict) to run as tested.";
    }
    throw new UnsupportedVersionException(plugin + " refuses to start: found " + product + " "
      + found + ", but this Strata build supports only " + product + " " + supported
      + " (an exact release: other releases, vendor builds included, may fail with "
      + "NoSuchMethodError or behave differently). Install " + product + " " + supported
      + ", or set " + KEY + "=warn to run on this untested version with a warning at every "
      + "start.");
  }

  /** The running version of {@code product}, read once per JVM. */
  static String found(Product product) {
    return FOUND.computeIfAbsent(product, VersionCheck::read);
  }

  private static String read(Product product) {
    try {
      Class<?> c = Class.forName(product.versionInfoClass, true,
        VersionCheck.class.getClassLoader());
      Method m = c.getMethod("getVersion");
      Object v = m.invoke(null);
      if (v == null || v.toString().trim().isEmpty()) {
        return "unknown (" + product.versionInfoClass + ".getVersion() is empty)";
      }
      return v.toString().trim();
    } catch (ReflectiveOperationException | LinkageError e) {
      return "unknown (" + product.versionInfoClass + ".getVersion() not readable: " + e + ")";
    }
  }

  /**
   * Test seam: makes {@link #found} report {@code version} for {@code product} (null: read the
   * real one again) and forgets the warnings already logged.
   */
  static void setFoundForTest(Product product, String version) {
    if (version == null) {
      FOUND.remove(product);
    } else {
      FOUND.put(product, version);
    }
    WARNED.clear();
  }
}
