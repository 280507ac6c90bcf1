package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.Properties;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.ipc.SaslCallRecorder;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.UserGroupInformation.AuthenticationMethod;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@link ProtectedRpcIT} with the protection real: a KDC in this JVM ({@link MiniKdc}), the master
 * and RegionServer logged in from a keytab as {@code hbase/localhost}, a client user logged in
 * from its own keytab, {@code hbase.security.authentication=kerberos} and
 * {@code hbase.rpc.protection=privacy} on both sides, so every socket connection negotiates
 * Kerberos (GSSAPI) SASL with confidentiality ({@code auth-conf}). The hybrid server and client
 * are otherwise set up as in the other hybrid tests (loopback transport). Checks, on the
 * RegionServer, that each Put and Get came over such a connection as the client's principal, and
 * that no endpoint was offered, used or served. One mini cluster, ~15-25 s.
 */
public class SecureProtectedRpcIT {
  private static final String SERVER_PRINCIPAL = "hbase/localhost";
  private static final String CLIENT_USER = "alice";
  private static final String PROTECTION = "privacy";
  private static File dir;
  private static MiniKdc kdc;
  private static MiniHBase cluster;
  private static Configuration security;
  private static File clientKeytab;

  @BeforeClass
  public static void start() throws Exception {
    dir = new File(System.getProperty(MiniHBase.WORK_DIR, "target/it-work"),
      "secure-kdc-" + UUID.randomUUID().toString().substring(0, 8)).getAbsoluteFile();
    assertTrue(dir.mkdirs());
    Properties kdcConf = MiniKdc.createConf();
    kdc = new MiniKdc(kdcConf, new File(dir, "kdc"));
    kdc.start(); // also points java.security.krb5.conf at its krb5.conf
    String realm = kdc.getRealm();
    File serverKeytab = new File(dir, "hbase.keytab");
    clientKeytab = new File(dir, CLIENT_USER + ".keytab");
    kdc.createPrincipal(serverKeytab, SERVER_PRINCIPAL);
    kdc.createPrincipal(clientKeytab, CLIENT_USER);

    security = new Configuration(false);
    security.set("hadoop.security.authentication", "kerberos");
    security.set(User.HBASE_SECURITY_CONF_KEY, "kerberos");
    security.set(RpcProtection.RPC_PROTECTION, PROTECTION);
    security.set("hbase.master.kerberos.principal", SERVER_PRINCIPAL + "@" + realm);
    security.set("hbase.regionserver.kerberos.principal", SERVER_PRINCIPAL + "@" + realm);
    // Principals map to their first component (hbase, alice) whatever the realm.
    security.set("hadoop.security.auth_to_local", "RULE:[1:$1]\nRULE:[2:$1]\nDEFAULT");
    // Hadoop's security mode is process-wide: switched on before anything logs in.
    Configuration ugiConf = new Configuration();
    ugiConf.addResource(security);
    UserGroupInformation.setConfiguration(ugiConf);
    // This JVM is the servers' process: its login user is the service principal, as a
    // RegionServer's would be; the master and RegionServer log in from the keytab themselves too.
    UserGroupInformation.loginUserFromKeytab(SERVER_PRINCIPAL + "@" + realm,
      serverKeytab.getPath());

    Configuration conf = RpcTestSupport.hybridServer();
    conf.addResource(security);
    conf.set("hbase.master.keytab.file", serverKeytab.getPath());
    conf.set("hbase.regionserver.keytab.file", serverKeytab.getPath());
    cluster = MiniHBase.start("secure-protected-rpc", conf);
  }

  @AfterClass
  public static void stop() throws Exception {
    try {
      if (cluster != null) {
        cluster.close();
      }
    } finally {
      if (kdc != null) {
        kdc.stop();
      }
      if (dir != null) {
        FileUtil.fullyDelete(dir);
      }
    }
  }

  /** The cluster's client settings with Kerberos and the protection asked for. */
  private static Configuration clientConf() {
    Configuration c = cluster.clientConf();
    for (java.util.Map.Entry<String, String> e : security) {
      c.set(e.getKey(), e.getValue());
    }
    return c;
  }

  @Test
  public void kerberosPrivacyCallsStayOffTheEndpoint() throws Exception {
    UserGroupInformation ugi = UserGroupInformation.loginUserFromKeytabAndReturnUGI(
      CLIENT_USER + "@" + kdc.getRealm(), clientKeytab.getPath());
    assertEquals(AuthenticationMethod.KERBEROS, ugi.getAuthenticationMethod());
    User alice = User.create(ugi);
    TableName name = TableName.valueOf("secure_protected");
    try (Connection admin = ConnectionFactory.createConnection(clientConf(), alice)) {
      RpcTestSupport.createTable(admin, name, SaslCallRecorder.class.getName());
    }

    Configuration conf = RpcTestSupport.hybridClient(clientConf());
    long offers = RdmaRpcMetrics.count("server.offers");
    long rdma = RdmaRpcMetrics.count("client.Get.rdma") + RdmaRpcMetrics.count("client.Mutate.rdma");
    long serverCalls =
      RdmaRpcMetrics.count("server.Get.calls") + RdmaRpcMetrics.count("server.Mutate.calls");
    int rows = 20;
    try (Connection c = ConnectionFactory.createConnection(conf, alice);
      Table t = c.getTable(name)) {
      for (int i = 0; i < rows; i++) {
        byte[] row = Bytes.toBytes("row" + i);
        t.put(new Put(row).addColumn(FAMILY, QUALIFIER, row));
        assertArrayEquals(row, t.get(new Get(row)).getValue(FAMILY, QUALIFIER));
        Thread.sleep(20); // time for an endpoint to connect, were one offered
      }
    }
    // Offers made, calls the client sent over an endpoint, endpoint calls the server ran: none.
    assertEquals("endpoint counters moved", "offers=0 client.rdma=0 server.calls=0",
      "offers=" + (RdmaRpcMetrics.count("server.offers") - offers) + " client.rdma="
        + (RdmaRpcMetrics.count("client.Get.rdma") + RdmaRpcMetrics.count("client.Mutate.rdma")
          - rdma)
        + " server.calls=" + (RdmaRpcMetrics.count("server.Get.calls")
          + RdmaRpcMetrics.count("server.Mutate.calls") - serverCalls));
    // Each call reached the RegionServer over a Kerberos SASL connection with confidentiality,
    // as alice: a cluster that fell back to SIMPLE, or to SASL without privacy, fails here.
    String expected = "SASL KERBEROS qop=auth-conf user=" + CLIENT_USER;
    for (int i = 0; i < rows; i++) {
      String row = "row" + i;
      assertNotNull("no Put recorded for " + row, SaslCallRecorder.PUTS.get(row));
      assertEquals("Put " + row, expected, SaslCallRecorder.PUTS.get(row));
      assertEquals("Get " + row, expected, SaslCallRecorder.GETS.get(row));
    }
  }
}
