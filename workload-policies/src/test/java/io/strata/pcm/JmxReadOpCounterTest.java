package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.apache.hadoop.hbase.TableName;
import org.junit.Test;

/** The /jmx answer of a RegionServer, and the scan share the window makes of the counts. */
public class JmxReadOpCounterTest {
  private static final TableName T = TableName.valueOf("ns1:usertable");

  private static String answer(String table, long gets, long scans) {
    return "{\"beans\":[{\"name\":\"Hadoop:service=HBase,name=RegionServer,sub=TableRequests_"
      + "Namespace_ns1_table_" + table + "\",\"modelerType\":\"RegionServer,sub=TableRequests\","
      + "\"getTime_num_ops\":" + gets + ",\"getTime_min\":0,\"scanTime_num_ops\":" + scans
      + ",\"putTime_num_ops\":12}]}";
  }

  @Test
  public void beanNameFollowsHBasesTableRequests() {
    assertEquals("Hadoop:service=HBase,name=RegionServer,sub=TableRequests_Namespace_ns1_table_"
      + "usertable", JmxReadOpCounter.beanName(T));
    assertEquals("Hadoop:service=HBase,name=RegionServer,sub=TableRequests_Namespace_default_"
      + "table_t", JmxReadOpCounter.beanName(TableName.valueOf("t")));
  }

  @Test
  public void countsAreReadFromTheTablesBean() throws Exception {
    ReadOpCounter.ReadOps ops = JmxReadOpCounter.parse(answer("usertable", 40, 7), T);
    assertEquals(40, ops.gets());
    assertEquals(7, ops.scans());
  }

  @Test
  public void anotherTablesBeanOrMissingCountsAreUnknown() throws Exception {
    assertNull(JmxReadOpCounter.parse(answer("other", 40, 7), T));
    assertNull(JmxReadOpCounter.parse("{\"beans\":[]}", T));
    assertNull(JmxReadOpCounter.parse("{\"beans\":[{\"name\":\"" + JmxReadOpCounter.beanName(T)
      + "\",\"getTime_num_ops\":3}]}", T));
  }

  private static TableSample ops(long sec, long gets, long scans) {
    return new TableSample(sec * 1000, 0, 0, 0, 1, 1, 1, 0, 1, 1, 0, gets, scans);
  }

  @Test
  public void scanShareIsScansOverReadOperations() {
    assertEquals(0.75, WorkloadWindow.scanShare(ops(0, 10, 10), ops(10, 20, 40)), 1e-9);
    assertTrue(Double.isNaN(WorkloadWindow.scanShare(ops(0, -1, -1), ops(10, 20, 40))));
    assertTrue(Double.isNaN(WorkloadWindow.scanShare(ops(0, 10, 10), ops(10, 10, 10))));
    assertTrue(Double.isNaN(WorkloadWindow.scanShare(ops(0, 30, 10), ops(10, 5, 40))));
  }
}
