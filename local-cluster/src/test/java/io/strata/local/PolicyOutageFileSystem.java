package io.strata.local;

import java.io.IOException;
import java.net.ConnectException;
import java.util.Collection;
import org.apache.hadoop.fs.BlockStoragePolicySpi;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;

/**
 * HDFS whose storage-policy calls fail while {@link #outage} is on, the way they fail while a
 * NameNode fails over: with an {@link IOException}, every other call going through. Installed
 * for HBase only, as {@code fs.hdfs.impl} of an HBase root directory URI that no other client of
 * the test uses (the file system cache is keyed by URI authority). Thread-safe: the switch is a
 * volatile flag read by every call.
 */
public class PolicyOutageFileSystem extends DistributedFileSystem {
  private static volatile boolean outage;

  /** Turns the failures on or off for every instance. */
  public static void outage(boolean on) {
    outage = on;
  }

  private static void check(String call, Object path) throws IOException {
    if (outage) {
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
