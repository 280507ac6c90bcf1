package io.strata.bench.monitor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.metrics.JmxServlet;
import java.util.List;
import java.util.Set;
import org.junit.Test;

public class RegionServerJmxTest {
  /** Two RegionServers' beans in one JVM, and a stopped one's left behind. */
  private static final String ANSWER = "{\"beans\":["
    + bean("Server", "old,1,1", 999) + "," + bean("Server-1", "rs-a,2,2", 1 << 20) + ","
    + bean("Server-2", "rs-b,3,3", 3 << 20) + "]}";

  private static String bean(String sub, String server, long memstore) {
    return "{\"name\":\"Hadoop:service=HBase,name=RegionServer,sub=" + sub + "\","
      + "\"tag.serverName\":\"" + server + "\",\"memStoreSize\":" + memstore
      + ",\"flushQueueLength\":1,\"storeFileCount\":4,\"blockedRequestCount\":2}";
  }

  @Test
  public void eachServerIsReadFromItsOwnBeanNeverAnothers() throws Exception {
    List<JsonNode> beans = JmxServlet.beans(ANSWER);
    assertEquals(1 << 20, RegionServerJmx.own(beans, "rs-a,2,2").path("memStoreSize").asLong());
    assertEquals(3 << 20, RegionServerJmx.own(beans, "rs-b,3,3").path("memStoreSize").asLong());
    assertNull(RegionServerJmx.own(beans, "rs-c,4,4"));
    // The JVM is known by its live servers: the stopped one's bean does not count.
    assertEquals(Set.of("rs-a,2,2", "rs-b,3,3"),
      RegionServerJmx.liveIn(beans, Set.of("rs-a,2,2", "rs-b,3,3")));
  }

  @Test
  public void sumsServersAndCountsEachJvmsGcOnce() throws Exception {
    List<JsonNode> beans = JmxServlet.beans(ANSWER);
    JsonNode jvm = JmxServlet.beans("{\"beans\":[{\"GcTimeMillis\":70}]}").get(0);
    RegionServerJmx.Reading r = RegionServerJmx.sum(List.of(RegionServerJmx.own(beans,
      "rs-a,2,2"), RegionServerJmx.own(beans, "rs-b,3,3")), List.of(jvm));
    assertEquals(4.0, r.memstoreMb(), 1e-9);
    assertEquals(2.0, r.flushQueue(), 1e-9);
    assertEquals(8.0, r.storeFiles(), 1e-9);
    assertEquals(4, r.blockedRequests());
    assertEquals(70, r.gcMs());
    assertEquals(2, r.servers());
  }
}
