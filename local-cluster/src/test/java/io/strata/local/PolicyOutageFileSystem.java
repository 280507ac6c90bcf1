package io.strata.local;

import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.hadoop.fs.BlockStoragePolicySpi;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;

/**
 * HDFS whose storage-policy calls fail while {@link #outage} is on, the way they fail while a
 * NameNode fails over: with an {@link IOException}, every other call going through. Installed
 * for HBase only, as {@code fs.hdfs.impl} of an HBase root directory URI that no other client of
 * the test uses (the file system cache is keyed by URI authority). Every storage-policy call is
 * recorded with its path and the name of the thread that made it ({@link #calls}). Thread-safe:
 * the switch is a volatile flag read by every call, the record a concurrent queue.
 */
public class PolicyOutageFileSystem extends DistributedFileSystem {
  private static volatile boolean outage;
  private static final ConcurrentLinkedQueue<Call> CALLS = new ConcurrentLinkedQueue<>();

  /** One storage-policy call: which, on which path, from which thread, during the outage or not. */
  public static final class Call {
    public final String call;
    public final String path;
    public final String thread;
    public final boolean failed;

    Call(String call, String path, String thread, boolean failed) {
      this.call = call;
      this.path = path;
      this.thread = thread;
      this.failed = failed;
    }

    @Override
    public String toString() {
      return call + " " + path + " on " + thread + (failed ? " (failed)" : "");
    }
  }

  /** Turns the failures on or off for every instance. */
  public static void outage(boolean on) {
    outage = on;
  }

  /** The storage-policy calls made so far, oldest first. */
  public static List<Call> calls() {
    return new ArrayList<>(CALLS);
  }

  public static void clearCalls() {
    CALLS.clear();
  }

  private static void check(String call, Object path) throws IOException {
    boolean failing = outage;
    CALLS.add(new Call(call, String.valueOf(path), Thread.currentThread().getName(), failing));
    if (failing) {
      throw new ConnectException("NameNode unavailable (test outage): " + call + " " + path);
    }
  }

  @Override
  public Collection<BlockStoragePolicy> getAllStoragePolicies() throws IOException {
    check("getAllStoragePolicies", "");
    return super.getAllStoragePolicies();
  }

  @Override
  public void setStoragePolicy(Path src, String policyName) throws IOException {
    check("setStoragePolicy", src);
    super.setStoragePolicy(src, policyName);
  }

  @Override
  public BlockStoragePolicySpi getStoragePolicy(Path path) throws IOException {
    check("getStoragePolicy", path);
    return super.getStoragePolicy(path);
  }

  @Override
  public void unsetStoragePolicy(Path src) throws IOException {
    check("unsetStoragePolicy", src);
    super.unsetStoragePolicy(src);
  }

  @Override
  public void satisfyStoragePolicy(Path path) throws IOException {
    check("satisfyStoragePolicy", path);
    super.satisfyStoragePolicy(path);
  }
}
