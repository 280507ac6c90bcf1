package io.strata.rdma.verbs;

import static org.junit.Assert.fail;

import io.strata.rdma.transport.RdmaListener;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.Collections;
import org.junit.Assume;

/**
 * The local address of an RDMA device for tests: {@code $STRATA_RDMA_ADDR}, else the first
 * non-loopback IPv4 address a verbs listener can bind. Without one the test is skipped, or fails
 * when {@code STRATA_RDMA_REQUIRE_DEVICE=1} (as in dev-support/softroce-test).
 */
public final class RdmaAddresses {
  private RdmaAddresses() {
  }

  public static InetAddress deviceAddressOrSkip(VerbsTransport probe) throws IOException {
    String env = System.getenv("STRATA_RDMA_ADDR");
    if (env != null && !env.isEmpty()) {
      return InetAddress.getByName(env);
    }
    if (probe != null) {
      for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (nif.isLoopback() || !nif.isUp()) {
          continue;
        }
        for (InetAddress a : Collections.list(nif.getInetAddresses())) {
          if (!(a instanceof Inet4Address)) {
            continue;
          }
          try (RdmaListener l = probe.listen(new InetSocketAddress(a, 0), (p, d) -> null)) {
            return a;
          } catch (IOException notRdma) {
            // next address
          }
        }
      }
    }
    skipOrFail("no address of an RDMA device on this machine");
    return null;
  }

  public static void skipOrFail(String why) {
    if ("1".equals(System.getenv("STRATA_RDMA_REQUIRE_DEVICE"))) {
      fail(why + " (STRATA_RDMA_REQUIRE_DEVICE=1)");
    }
    Assume.assumeTrue(why + "; runs in dev-support/softroce-test", false);
  }
}
