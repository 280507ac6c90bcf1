package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.apache.hadoop.hbase.TableName;
import org.junit.Test;

/**
 * The /jmx answers of a RegionServer, and the scan and insert shares the window makes of the
 * counts.
 */
public class JmxRequestCountersTest {
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
      + "usertable", JmxRequestCounters.beanName(T));
    assertEquals("Hadoop:service=HBase,name=RegionServer,sub=TableRequests_Namespace_default_"
      + "table_t", JmxRequestCounters.beanName(TableName.valueOf("t")));
  }

  @Test
  public void countsAreReadFromTheTablesBean() throws Exception {
    ReadOpCounter.ReadOps ops = JmxRequestCounters.parse(answer("usertable", 40, 7), T);
    assertEquals(40, ops.gets());
    assertEquals(7, ops.scans());
  }

  @Test
  public void anotherTablesBeanOrMissingCountsAreUnknown() throws Exception {
    assertNull(JmxRequestCounters.parse(answer("other", 40, 7), T));
    assertNull(JmxRequestCounters.parse("{\"beans\":[]}", T));
    assertNull(JmxRequestCounters.parse("{\"beans\":[{\"name\":\"" + JmxRequestCounters.beanName(T)
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

  private static String samplerAnswer(String table, long sampled, long inserting) {
    return "{\"beans\":[{\"name\":\"" + JmxRequestCounters.SAMPLER_BEAN + "\","
      + "\"modelerType\":\"RegionServer,sub=Coprocessor.Region.CP_io.strata.pcm.InsertSampler\","
      + "\"Namespace_ns1_table_" + table + "_putsSampled\":" + sampled + ","
      + "\"Namespace_ns1_table_" + table + "_putsInserting\":" + inserting + "}]}";
  }

  @Test
  public void insertCountsAreReadFromTheSamplersBean() throws Exception {
    assertEquals("Hadoop:service=HBase,name=RegionServer,sub=Coprocessor.Region.CP_"
      + "io.strata.pcm.InsertSampler", JmxRequestCounters.SAMPLER_BEAN);
    InsertCounter.InsertCounts c = JmxRequestCounters.parseInserts(samplerAnswer("usertable", 64,
      5), T);
    assertEquals(64, c.sampled());
    assertEquals(5, c.inserting());
    assertNull(JmxRequestCounters.parseInserts(samplerAnswer("other", 64, 5), T));
    assertNull(JmxRequestCounters.parseInserts(answer("usertable", 40, 7), T));
  }

  private static TableSample puts(long sec, long sampled, long inserting) {
    return new TableSample(sec * 1000, 0, 0, 0, 1, 1, 1, 0, 1, 1, 0, -1, -1, sampled, inserting);
  }

  @Test
  public void insertShareIsInsertingOverSampledPuts() {
    assertEquals(0.25, WorkloadWindow.insertShare(puts(0, 10, 5), puts(10, 50, 15), 20), 1e-9);
    // too few sampled Puts in the window: unknown
    assertTrue(Double.isNaN(WorkloadWindow.insertShare(puts(0, 10, 5), puts(10, 29, 15), 20)));
    assertTrue(Double.isNaN(WorkloadWindow.insertShare(puts(0, -1, -1), puts(10, 50, 15), 20)));
    assertTrue(Double.isNaN(WorkloadWindow.insertShare(puts(0, 90, 5), puts(10, 50, 15), 20)));
  }
}
