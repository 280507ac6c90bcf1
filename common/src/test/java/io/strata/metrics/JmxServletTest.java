package io.strata.metrics;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.Test;

public class JmxServletTest {
  private static final String ANSWER = "{\"beans\":[{\"name\":\"Hadoop:service=HBase,name=A\","
    + "\"getTime_num_ops\":40},{\"name\":\"Hadoop:service=HBase,name=B\",\"x\":\"text\"}]}";

  @Test
  public void findsBeansByNameAndAttributesWithoutCase() throws Exception {
    List<JsonNode> beans = JmxServlet.beans(ANSWER);
    assertEquals(2, beans.size());
    JsonNode a = JmxServlet.named(beans, "Hadoop:service=HBase,name=A");
    assertEquals(40, JmxServlet.attribute(a, "GetTime_Num_Ops"));
    assertEquals(-1, JmxServlet.attribute(a, "scanTime_num_ops"));
    assertEquals(-1, JmxServlet.attribute(JmxServlet.named(beans, "Hadoop:service=HBase,name=B"),
      "x"));
    assertNull(JmxServlet.named(beans, "Hadoop:service=HBase,name=C"));
    assertTrue(JmxServlet.beans("{\"beans\":[]}").isEmpty());
    assertTrue(JmxServlet.beans("{}").isEmpty());
  }

  @Test
  public void encodesThePattern() {
    assertEquals("http://h:16030/jmx?qry=Hadoop%3Aservice%3DHBase%2Cname%3DRegionServer%2Csub"
      + "%3DServer*", JmxServlet.uri("h", 16030, "Hadoop:service=HBase,name=RegionServer,"
        + "sub=Server*").toString());
  }
}
