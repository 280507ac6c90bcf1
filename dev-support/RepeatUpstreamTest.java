import java.lang.management.ManagementFactory;
import java.util.Locale;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;

/**
 * Runs one upstream test method N times in this JVM and prints one line per run (result, seconds,
 * the machine's load average) and a summary. Run through dev-support/repeat-upstream-test, which
 * builds the class path of the chosen variant.
 *
 * <p>Arguments: test class, method, repetitions.
 */
public class RepeatUpstreamTest {
  public static void main(String[] args) throws Exception {
    Class<?> cls = Class.forName(args[0]);
    String method = args[1];
    int n = Integer.parseInt(args[2]);
    int failed = 0;
    for (int i = 1; i <= n; i++) {
      double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      long t0 = System.nanoTime();
      Result r = new JUnitCore().run(Request.method(cls, method));
      double s = (System.nanoTime() - t0) / 1e9;
      String what = r.wasSuccessful() ? "PASS" : "FAIL";
      if (!r.wasSuccessful()) {
        failed++;
      }
      System.out.printf(Locale.ROOT, "run %d/%d %s %.1f s load %.1f%n", i, n, what, s, load);
      for (Failure f : r.getFailures()) {
        System.out.println("  " + f.getMessage());
        StackTraceElement[] st = f.getException().getStackTrace();
        for (int k = 0; k < Math.min(6, st.length); k++) {
          System.out.println("    at " + st[k]);
        }
      }
      System.out.flush();
    }
    System.out.printf(Locale.ROOT, "%s#%s: %d of %d failed%n", cls.getName(), method, failed, n);
    // What this JVM ran: the DataNode's FsDatasetImpl (hadoop-hdfs or the overlay) and the chooser.
    ClassLoader cl = RepeatUpstreamTest.class.getClassLoader();
    Class<?> ds = Class.forName(
      "org.apache.hadoop.hdfs.server.datanode.fsdataset.impl.FsDatasetImpl", false, cl);
    System.out.println("FsDatasetImpl from " + ds.getProtectionDomain().getCodeSource().getLocation());
    java.lang.reflect.Method find = ClassLoader.class.getDeclaredMethod("findLoadedClass", String.class);
    find.setAccessible(true);
    boolean chooser = false;
    for (ClassLoader l = cl; l != null; l = l.getParent()) {
      chooser |= find.invoke(l, "io.strata.hdfs.chooser.LatencyAwareVolumeChoosingPolicy") != null;
    }
    System.out.println("LatencyAwareVolumeChoosingPolicy " + (chooser ? "used" : "not used"));
    System.exit(0);
  }
}
