package io.strata.upstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.runner.Description;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

/**
 * Records, in the JVM that ran an upstream test class, what of Strata that JVM used: which of
 * Strata's plug-in classes were loaded (HBase and HDFS load them only when they instantiate them
 * from the configuration), where HDFS's patched {@code FsDatasetImpl} came from, and how many
 * client calls went over an RDMA endpoint. Writes {@code <evidence dir>/<test class>.txt} for
 * {@link StrataSwitchedOnIT}. Refers to no Strata class, so that it loads none itself.
 */
public class StrataEvidenceListener extends RunListener {
  /** System property: directory of the evidence files. */
  static final String DIR = "strata.evidence.dir";

  /** Plug-in classes whose loading shows that HBase or HDFS took them from the configuration. */
  static final List<String> PLUGINS = List.of(
    "io.strata.hbase.tiering.TieredStoreEngine",
    "io.strata.hbase.tiering.OldWalTiering",
    "io.strata.hbase.tiering.TieringValidator",
    "io.strata.hbase.tiering.WalDurabilityGuard",
    "org.apache.hadoop.hbase.ipc.HybridRpcServer",
    "org.apache.hadoop.hbase.ipc.HybridRpcClient",
    "io.strata.hbase.rdma.PollingRpcSchedulerFactory",
    "io.strata.rdma.loopback.LoopbackEndpoint",
    "io.strata.hdfs.chooser.LatencyAwareVolumeChoosingPolicy",
    // Upstream's defaults, for the record.
    "org.apache.hadoop.hbase.regionserver.DefaultStoreEngine",
    "org.apache.hadoop.hbase.ipc.NettyRpcServer",
    "org.apache.hadoop.hbase.ipc.NettyRpcClient");

  static final String FS_DATASET =
    "org.apache.hadoop.hdfs.server.datanode.fsdataset.impl.FsDatasetImpl";
  static final String METRICS = "io.strata.hbase.rdma.RdmaRpcMetrics";
  static final List<String> METHODS = List.of("Get", "Mutate", "Multi", "Scan");

  private final Set<String> classes = new TreeSet<>();

  @Override
  public void testStarted(Description d) {
    note(d);
  }

  @Override
  public void testFinished(Description d) {
    note(d);
    write();
  }

  @Override
  public void testFailure(Failure f) {
    note(f.getDescription());
  }

  @Override
  public void testIgnored(Description d) {
    note(d);
  }

  @Override
  public void testRunFinished(Result result) {
    write();
  }

  private synchronized void note(Description d) {
    if (d != null && d.getClassName() != null && d.getClassName().contains(".")) {
      classes.add(d.getClassName());
    }
  }

  private synchronized void write() {
    String dir = System.getProperty(DIR);
    if (dir == null || classes.isEmpty()) {
      return;
    }
    List<String> lines = evidence();
    try {
      Path d = Paths.get(dir);
      Files.createDirectories(d);
      for (String c : classes) {
        Files.write(d.resolve(c + ".txt"), lines, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code loaded <class>} lines, {@code fsdataset <location>}, {@code <counter> <value>}. */
  static List<String> evidence() {
    List<String> lines = new ArrayList<>();
    // The site files as HBase reads them (loads no Strata class).
    org.apache.hadoop.conf.Configuration conf =
      org.apache.hadoop.hbase.HBaseConfiguration.create();
    for (String key : List.of("hbase.hstore.engine.class", "hbase.rpc.server.impl",
      "hbase.rpc.client.impl", "hbase.table.sanity.checks")) {
      lines.add("conf " + key + " " + conf.get(key));
    }
    ClassLoader loader = StrataEvidenceListener.class.getClassLoader();
    for (String name : PLUGINS) {
      if (loaded(loader, name) != null) {
        lines.add("loaded " + name);
      }
    }
    Class<?> fsDataset = loaded(loader, FS_DATASET);
    if (fsDataset != null) {
      CodeSource cs = fsDataset.getProtectionDomain().getCodeSource();
      lines.add("fsdataset " + (cs == null ? "unknown" : cs.getLocation()));
    }
    Class<?> metrics = loaded(loader, METRICS);
    if (metrics != null) {
      try {
        Method count = metrics.getMethod("count", String.class);
        for (String m : METHODS) {
          for (String name : List.of("client." + m + ".rdma", "client." + m + ".sockets",
            "server." + m + ".calls")) {
            lines.add(name + " " + count.invoke(null, name));
          }
        }
      } catch (ReflectiveOperationException e) {
        lines.add("metrics unreadable " + e);
      }
    }
    return lines;
  }

  /** The class if this JVM has loaded it, without loading it. */
  private static Class<?> loaded(ClassLoader loader, String name) {
    try {
      Method find = ClassLoader.class.getDeclaredMethod("findLoadedClass", String.class);
      find.setAccessible(true);
      for (ClassLoader l = loader; l != null; l = l.getParent()) {
        Class<?> c = (Class<?>) find.invoke(l, name);
        if (c != null) {
          return c;
        }
      }
      return null;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot ask the class loader what it loaded: " + e, e);
    }
  }
}
