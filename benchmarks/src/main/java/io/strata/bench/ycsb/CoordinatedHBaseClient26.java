package io.strata.bench.ycsb;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.DBException;

/**
 * {@link HBaseClient26} whose YCSB process starts and ends its phase together with the other
 * client processes of a coordinated run: through a ZooKeeper double barrier (Curator's {@link
 * DistributedDoubleBarrier}, one member per process), entered once the process's first binding
 * instance is connected and left when its last instance (of YCSB's {@code threadcount}) has
 * cleaned up. So the operations of all processes start within the barrier's wake-up time
 * instead of the processes' start-up skew.
 *
 * <p>YCSB times its run from before its threads' {@code init()}, so its {@code [OVERALL]}
 * figures include the wait at the barrier; the process writes its own timestamps (epoch
 * microseconds, this machine's clock) to the file named by {@value #TIMES_FILE}: {@code
 * jvm_started_us} (the process started), {@code arrived_us} (barrier entered), {@code
 * started_us} (barrier passed), {@code finished_us} (last operation and cleanup done) and {@code
 * left_us} (barrier left).
 */
public class CoordinatedHBaseClient26 extends HBaseClient26 {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatedHBaseClient26.class);

  /** ZooKeeper connect string, e.g. {@code localhost:2181} (required). */
  public static final String CONNECT = "strata.barrier.connect";
  /** Barrier znode, one per phase of a run (required). */
  public static final String PATH = "strata.barrier.path";
  /** Client processes in the barrier (required). */
  public static final String MEMBERS = "strata.barrier.members";
  /** How long to wait for the others, entering and leaving; default 120000. */
  public static final String TIMEOUT_MS = "strata.barrier.timeout.ms";
  public static final long TIMEOUT_MS_DEFAULT = 120_000;
  /** File the process's timestamps are written to (required). */
  public static final String TIMES_FILE = "strata.barrier.times";

  private static final Object LOCK = new Object();
  private static ProcessBarrier barrier;

  private ProcessBarrier joined;

  @Override
  public void init() throws DBException {
    super.init();
    ProcessBarrier b;
    try {
      synchronized (LOCK) {
        if (barrier == null) {
          barrier = new ProcessBarrier(getProperties());
        }
        b = barrier;
      }
      b.enter();
    } catch (DBException | RuntimeException e) {
      super.cleanup();
      throw e;
    }
    joined = b;
  }

  @Override
  public void cleanup() throws DBException {
    try {
      super.cleanup();
    } finally {
      if (joined != null) {
        ProcessBarrier b = joined;
        joined = null;
        b.cleanedUp();
      }
    }
  }

  /** The barrier of this process: entered once, left after the last of its threads. */
  private static final class ProcessBarrier {
    private final String path;
    private final int members;
    private final long timeoutMs;
    private final Path timesFile;
    private final int threads;
    private final CuratorFramework zk;
    private final DistributedDoubleBarrier barrier;
    private boolean entered;
    private int cleanedUp;
    private long arrivedUs;
    private long startedUs;

    ProcessBarrier(Properties p) throws DBException {
      String connect = required(p, CONNECT);
      path = required(p, PATH);
      members = positive(p, MEMBERS, required(p, MEMBERS));
      timeoutMs = positive(p, TIMEOUT_MS, p.getProperty(TIMEOUT_MS,
        Long.toString(TIMEOUT_MS_DEFAULT)));
      timesFile = Path.of(required(p, TIMES_FILE));
      // YCSB puts -threads into the properties; every thread has its own binding instance.
      threads = positive(p, "threadcount", p.getProperty("threadcount", "1"));
      zk = CuratorFrameworkFactory.newClient(connect, new ExponentialBackoffRetry(200, 5));
      zk.start();
      barrier = new DistributedDoubleBarrier(zk, path, members);
    }

    synchronized void enter() throws DBException {
      if (entered) {
        return;
      }
      arrivedUs = nowUs();
      boolean all;
      try {
        all = barrier.enter(timeoutMs, TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        throw new DBException("Entering the barrier " + path + " failed", e);
      }
      if (!all) {
        throw new DBException("Not all " + members + " clients reached the barrier " + path
          + " within " + timeoutMs + " ms; a client failed to start or the count is wrong");
      }
      startedUs = nowUs();
      entered = true;
      LOG.info("All {} clients at barrier {}: waited {} ms", members, path,
        (startedUs - arrivedUs) / 1000);
    }

    synchronized void cleanedUp() throws DBException {
      if (++cleanedUp < threads) {
        return;
      }
      long finishedUs = nowUs();
      try {
        if (!barrier.leave(timeoutMs, TimeUnit.MILLISECONDS)) {
          LOG.warn("Not all {} clients left barrier {} within {} ms", members, path, timeoutMs);
        }
      } catch (Exception e) {
        throw new DBException("Leaving the barrier " + path + " failed", e);
      } finally {
        zk.close();
      }
      long leftUs = nowUs();
      Properties times = new Properties();
      times.setProperty("jvm_started_us",
        Long.toString(ManagementFactory.getRuntimeMXBean().getStartTime() * 1000));
      times.setProperty("arrived_us", Long.toString(arrivedUs));
      times.setProperty("started_us", Long.toString(startedUs));
      times.setProperty("finished_us", Long.toString(finishedUs));
      times.setProperty("left_us", Long.toString(leftUs));
      try {
        Path tmp = timesFile.resolveSibling(timesFile.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
          times.store(out, "barrier " + path);
        }
        Files.move(tmp, timesFile, StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        throw new DBException("Cannot write the barrier times to " + timesFile, e);
      }
    }

    private static String required(Properties p, String key) throws DBException {
      String v = p.getProperty(key);
      if (v == null || v.isBlank()) {
        throw new DBException("Coordinated client without '" + key + "'");
      }
      return v.trim();
    }

    private static int positive(Properties p, String key, String v) throws DBException {
      try {
        int n = Integer.parseInt(v.trim());
        if (n > 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new DBException("'" + key + "' takes a positive whole number, not '" + v + "'");
    }
  }

  static long nowUs() {
    return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
  }
}
