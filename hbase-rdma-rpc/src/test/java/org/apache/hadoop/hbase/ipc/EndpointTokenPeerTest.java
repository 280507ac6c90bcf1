package org.apache.hadoop.hbase.ipc;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.strata.hbase.rdma.RpcProtection;
import java.net.InetAddress;
import org.apache.hadoop.conf.Configuration;
import org.junit.Test;
import org.apache.hadoop.hbase.shaded.protobuf.generated.HBaseProtos.VersionInfo;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.ConnectionHeader;

/**
 * Who may redeem an endpoint token, what an offer may ask for, and when the endpoint is off for
 * protection.
 */
public class EndpointTokenPeerTest {

  @Test
  public void aTokenWorksOnlyForThePeerThatAskedForIt() throws Exception {
    InetAddress a = InetAddress.getByName("10.1.2.3");
    InetAddress b = InetAddress.getByName("10.1.2.4");
    assertTrue(HybridRpcServer.samePeer(a, a));
    assertFalse("another host", HybridRpcServer.samePeer(a, b));
    assertFalse("no peer recorded", HybridRpcServer.samePeer(null, a));
    InetAddress loopback = InetAddress.getLoopbackAddress();
    assertTrue(HybridRpcServer.samePeer(loopback, loopback));
    // a client on this host: socket over loopback, endpoint over a local interface
    assertFalse("a socket peer elsewhere does not cover a local requester",
      HybridRpcServer.samePeer(b, loopback));
    assertFalse("a local socket peer does not cover a remote requester",
      HybridRpcServer.samePeer(loopback, b));
  }

  @Test
  public void anOfferTakesTheSocketsServiceAndCodecsOnly() {
    ConnectionHeader socket = ConnectionHeader.newBuilder().setServiceName("ClientService")
      .setCellBlockCodecClass("org.apache.hadoop.hbase.codec.KeyValueCodec").build();
    assertNull(HybridRpcServer.headerMismatch(socket, socket));
    assertNull("attributes and version are the socket's anyway", HybridRpcServer.headerMismatch(
      socket.toBuilder().setVersionInfo(VersionInfo.newBuilder().setVersion("0").setUrl("")
        .setRevision("").setUser("").setDate("").setSrcChecksum("")).build(), socket));
    assertTrue(HybridRpcServer.headerMismatch(socket.toBuilder().setServiceName("AdminService")
      .build(), socket).contains("AdminService"));
    assertTrue(HybridRpcServer.headerMismatch(socket.toBuilder().setCellBlockCodecClass(
      "java.lang.Thread").build(), socket).contains("java.lang.Thread"));
    assertTrue(HybridRpcServer.headerMismatch(socket.toBuilder().setCellBlockCompressorClass(
      "org.apache.hadoop.io.compress.GzipCodec").build(), socket).contains("GzipCodec"));
    assertTrue(HybridRpcServer.headerMismatch(socket, null).contains("socket"));
    assertTrue(HybridRpcServer.headerMismatch(socket, socket.toBuilder().setServiceName(
      "AdminService").build()).contains("AdminService"));
  }

  @Test
  public void endpointIsOffWhereProtectionAsksForMoreThanAuthentication() {
    Configuration conf = new Configuration(false);
    assertTrue(RpcProtection.whyNoEndpoint(conf, true) == null);
    conf.set(RpcProtection.RPC_PROTECTION, "authentication");
    assertTrue(RpcProtection.whyNoEndpoint(conf, false) == null);
    for (String qop : new String[] { "privacy", "integrity", "authentication,privacy" }) {
      conf.set(RpcProtection.RPC_PROTECTION, qop);
      String why = RpcProtection.whyNoEndpoint(conf, true);
      assertTrue(qop + ": " + why, why != null && why.contains(RpcProtection.RPC_PROTECTION));
    }
    conf = new Configuration(false);
    conf.setBoolean(RpcProtection.SERVER_TLS, true);
    assertTrue(RpcProtection.whyNoEndpoint(conf, true).contains(RpcProtection.SERVER_TLS));
    assertTrue("client TLS is the client's key", RpcProtection.whyNoEndpoint(conf, false) == null);
    conf.setBoolean(RpcProtection.CLIENT_TLS, true);
    assertTrue(RpcProtection.whyNoEndpoint(conf, false).contains(RpcProtection.CLIENT_TLS));
  }
}
