package io.strata.rdma.verbs;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.rdma.transport.MapTransportConf;
import io.strata.rdma.transport.TransportUnavailableException;
import org.junit.Test;

/** A library path that does not load is reported with the path and the key (own JVM: the load
 * result is per JVM). */
public class NativeLibraryPathTest {

  @Test
  public void unloadableLibraryIsOneClearReason() throws Exception {
    MapTransportConf conf = new MapTransportConf();
    conf.set(VerbsKeys.NATIVE_LIBRARY, "/nonexistent/libstrata_rdma.so");
    for (int i = 0; i < 2; i++) { // the same answer the second time
      try {
        new VerbsTransport(conf).close();
        fail("loaded a missing library");
      } catch (TransportUnavailableException e) {
        String msg = e.getMessage();
        assertTrue(msg, msg.contains("/nonexistent/libstrata_rdma.so"));
        assertTrue(msg, msg.contains(VerbsKeys.NATIVE_LIBRARY));
        assertTrue(msg, !msg.contains("\n"));
      }
    }
  }
}
