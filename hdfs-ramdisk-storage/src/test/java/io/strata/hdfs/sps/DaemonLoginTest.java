package io.strata.hdfs.sps;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.hdfs.DaemonLogin;
import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.tiermover.TierMoverTool;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.After;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The satisfier and the tier mover on a Kerberos cluster log in from their keytabs (against a
 * real KDC, {@link MiniKdc}), and refuse to start, naming the keys, without one: on the ticket
 * cache of whoever started them they would die at its renew limit.
 */
public class DaemonLoginTest {
  private static MiniKdc kdc;
  private static File keytab;

  @BeforeClass
  public static void startKdc() throws Exception {
    File dir = Files.createTempDirectory("strata-kdc").toFile();
    kdc = new MiniKdc(MiniKdc.createConf(), dir);
    kdc.start();
    keytab = new File(dir, "strata.keytab");
    kdc.createPrincipal(keytab, "strata-sps", "strata-tiermover");
  }

  @AfterClass
  public static void stopKdc() {
    if (kdc != null) {
      kdc.stop();
    }
  }

  @After
  public void simpleAgain() {
    UserGroupInformation.reset();
    UserGroupInformation.setConfiguration(new Configuration(false));
  }

  private static Configuration kerberos() {
    Configuration conf = new Configuration(false);
    conf.set("hadoop.security.authentication", "kerberos");
    return conf;
  }

  @Test
  public void theSatisfierLogsInFromItsKeytab() throws Exception {
    Configuration conf = kerberos();
    conf.set(HdfsKeys.SPS_KEYTAB_FILE, keytab.getPath());
    conf.set(HdfsKeys.SPS_KERBEROS_PRINCIPAL, "strata-sps@" + kdc.getRealm());
    DaemonLogin.login(conf, "strata satisfier", HdfsKeys.SPS_KEYTAB_FILE,
      HdfsKeys.SPS_KERBEROS_PRINCIPAL);
    UserGroupInformation user = UserGroupInformation.getLoginUser();
    assertEquals("strata-sps@" + kdc.getRealm(), user.getUserName());
    assertTrue("logged in from a keytab", user.isFromKeytab());
    assertTrue("holds a Kerberos ticket", user.hasKerberosCredentials());
  }

  @Test
  public void theToolsRefuseToStartWithoutAKeytab() throws Exception {
    URI nowhere = URI.create("hdfs://127.0.0.1:1");
    String err = stderrOf(() -> assertEquals(1, SatisfierTool.satisfy(kerberos(), nowhere, 60,
      System.out)));
    assertTrue(err, err.contains(HdfsKeys.SPS_KEYTAB_FILE) && err.contains("Kerberos"));
    Configuration conf = kerberos();
    conf.set(HdfsKeys.TIERMOVER_KEYTAB_FILE, new File(keytab.getParentFile(), "none").getPath());
    conf.set(HdfsKeys.TIERMOVER_KERBEROS_PRINCIPAL, "strata-tiermover@" + kdc.getRealm());
    err = stderrOf(() -> assertEquals(1, TierMoverTool.follow(conf, nowhere,
      new File(keytab.getParentFile(), "state").getPath(), null, 10, 0, null, System.out)));
    assertTrue(err, err.contains(HdfsKeys.TIERMOVER_KEYTAB_FILE) && err.contains("not a readable"));
  }

  private interface Body {
    void run() throws Exception;
  }

  private static String stderrOf(Body body) throws Exception {
    PrintStream old = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      body.run();
    } finally {
      System.setErr(old);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
