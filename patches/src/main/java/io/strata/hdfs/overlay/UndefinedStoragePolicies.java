package io.strata.hdfs.overlay;

import java.io.File;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.Collection;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.util.StringUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the NameNode does with a storage policy id that a file or directory carries but no policy
 * defines: a configured policy removed from {@code strata.storage.policies}, renumbered, defined
 * on only one of two HA NameNodes. Every file stores its policy's id in its inode while the
 * definition lives only in configuration, so this happens after any such change.
 *
 * <p>Upstream's {@code BlockStoragePolicySuite.getPolicy(id)} returns null for such an id;
 * {@code addBlock} then fails with a NullPointerException and the redundancy monitor, which
 * catches everything, terminates the NameNode as soon as one such block is under-replicated. The
 * patched suite asks {@link #resolve} instead: the NameNode's default policy
 * ({@code dfs.storage.default.policy}, HOT unless set) places the blocks, and an error naming
 * the id, its former definition when known and the way to list its files is logged, at most once
 * per id every {@link #LOG_INTERVAL_MS}.
 *
 * <p>At start, {@link #compareWithPreviousStart} compares the policies with those of the previous
 * start (a file in the first local {@code dfs.namenode.name.dir}) and logs each dropped,
 * renumbered or redefined one.
 */
public final class UndefinedStoragePolicies {
  private static final Logger LOG = LoggerFactory.getLogger(UndefinedStoragePolicies.class);

  /** How often, at most, the error for one undefined id is repeated while files still use it. */
  public static final long LOG_INTERVAL_MS = 5 * 60 * 1000L;

  /** File in the NameNode's first local name directory: the policies of the last start. */
  public static final String RECORD_FILE = "strata-storage-policies.properties";

  /** Per undefined id: when it was last logged and how many lookups since. */
  private static final Map<Byte, long[]> LOGGED = new ConcurrentHashMap<>();
  /** Per undefined id: its definition at the previous start, when the record had one. */
  private static final Map<Byte, String> FORMERLY = new ConcurrentHashMap<>();
  private static final AtomicLong RESOLVED = new AtomicLong();

  private UndefinedStoragePolicies() {
  }

  /**
   * The policy the NameNode uses for {@code id}, which nothing defines: {@code fallback}, the
   * suite's default policy. Logs an error (rate-limited per id).
   */
  public static BlockStoragePolicy resolve(byte id, BlockStoragePolicy fallback) {
    RESOLVED.incrementAndGet();
    long now = System.currentTimeMillis();
    long[] state = LOGGED.computeIfAbsent(id, k -> new long[] { Long.MIN_VALUE, 0 });
    long suppressed;
    synchronized (state) {
      state[1]++;
      if (state[0] != Long.MIN_VALUE && now - state[0] < LOG_INTERVAL_MS) {
        return fallback;
      }
      suppressed = state[1] - 1;
      state[0] = now;
      state[1] = 0;
    }
    String formerly = FORMERLY.get(id);
    LOG.error("Storage policy id {}{} is not defined on this NameNode (neither built in nor in {}),"
        + " but files or directories carry it; their blocks are placed with the default policy {}"
        + " instead{}. Define it again with the same id, or give its files another policy: list"
        + " them with `strata undefined-policies` (or `hadoop {} /`), then `hdfs storagepolicies"
        + " -setStoragePolicy -path PATH -policy NAME` and the mover or satisfier. Logged at most"
        + " every {} s per id.",
      id, formerly == null ? "" : " (" + formerly + " at the previous start)",
      OverlayKeys.STORAGE_POLICIES, fallback.getName(),
      suppressed > 0 ? " (" + suppressed + " lookups since the last report)" : "",
      UndefinedPolicyFiles.class.getName(), LOG_INTERVAL_MS / 1000);
    return fallback;
  }

  /** How many lookups of an undefined id this JVM has resolved to the fallback. */
  public static long resolvedCount() {
    return RESOLVED.get();
  }

  /**
   * Compares {@code policies} (the NameNode's, indexed by id) with those recorded at the previous
   * start in the first local name directory, logs what changed, and records them. Without a
   * formatted local name directory (not a NameNode, or before formatting) it does nothing.
   */
  static void compareWithPreviousStart(Configuration conf, BlockStoragePolicy[] policies) {
    File dir = firstLocalNameDir(conf);
    if (dir == null || !new File(dir, "current/VERSION").isFile()) {
      return;
    }
    File record = new File(dir, RECORD_FILE);
    Properties before = new Properties();
    if (record.isFile()) {
      try (Reader r = Files.newBufferedReader(record.toPath(), StandardCharsets.UTF_8)) {
        before.load(r);
      } catch (IOException | IllegalArgumentException e) {
        LOG.warn("Cannot read {} ({}); not comparing the storage policies with the previous "
          + "start", record, e.toString());
        before.clear();
      }
    }
    Properties now = new Properties();
    for (BlockStoragePolicy p : policies) {
      if (p != null) {
        now.setProperty(Byte.toString(p.getId()), describe(p));
      }
    }
    for (String key : new TreeMap<>(before).keySet().toArray(new String[0])) {
      byte id;
      try {
        id = Byte.parseByte(key);
      } catch (NumberFormatException e) {
        continue;
      }
      String was = before.getProperty(key);
      String is = now.getProperty(key);
      if (is == null) {
        FORMERLY.put(id, was);
        LOG.error("Storage policy id {} ({}) was defined at the previous start of this NameNode "
            + "and is not now ({} does not define it). Files and directories that carry id {} keep "
            + "it; their blocks are now placed with the default policy, and an error is logged "
            + "when one is met. List them with `strata undefined-policies`; define the policy "
            + "again with id {}, or set another policy on them. See INSTALL.md, Rollback.",
          id, was, OverlayKeys.STORAGE_POLICIES, id, id);
      } else if (!is.equals(was)) {
        LOG.warn("Storage policy id {} was {} at the previous start of this NameNode and is {} "
            + "now: files and directories that carry id {} are placed by the new definition; the "
            + "satisfier or mover moves their existing replicas", id, was, is, id);
      }
    }
    for (String key : now.stringPropertyNames()) {
      if (before.getProperty(key) == null && !before.isEmpty()) {
        LOG.info("Storage policy id {} ({}) is new since the previous start", key,
          now.getProperty(key));
      }
    }
    if (now.equals(before)) {
      return;
    }
    File tmp = new File(dir, RECORD_FILE + ".tmp");
    try (Writer w = Files.newBufferedWriter(tmp.toPath(), StandardCharsets.UTF_8)) {
      now.store(w, "Storage policies of this NameNode's last start (id = name [types]), compared "
        + "at the next start; written by " + UndefinedStoragePolicies.class.getName());
    } catch (IOException e) {
      LOG.warn("Cannot record the storage policies in {} ({}); the next start cannot tell which "
        + "were dropped", record, e.toString());
      return;
    }
    try {
      Files.move(tmp.toPath(), record.toPath(), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      LOG.warn("Cannot record the storage policies in {} ({}); the next start cannot tell which "
        + "were dropped", record, e.toString());
    }
  }

  private static String describe(BlockStoragePolicy p) {
    return p.getName() + " " + java.util.Arrays.toString(p.getStorageTypes());
  }

  private static File firstLocalNameDir(Configuration conf) {
    Collection<String> dirs = conf.getTrimmedStringCollection(
      DFSConfigKeys.DFS_NAMENODE_NAME_DIR_KEY);
    if (conf.get(DFSConfigKeys.DFS_NAMENODE_NAME_DIR_KEY) == null) {
      return null;
    }
    for (String d : dirs) {
      try {
        URI u = new URI(d);
        if (u.getScheme() == null) {
          return new File(d);
        }
        if ("file".equals(u.getScheme())) {
          return new File(u.getPath());
        }
      } catch (java.net.URISyntaxException e) {
        LOG.debug("Name directory {} is not a URI: {}", d, StringUtils.stringifyException(e));
        return new File(d);
      }
    }
    return null;
  }

  /** Forgets what was logged; for tests that start several NameNodes in one JVM. */
  static void reset() {
    LOGGED.clear();
    FORMERLY.clear();
  }
}
