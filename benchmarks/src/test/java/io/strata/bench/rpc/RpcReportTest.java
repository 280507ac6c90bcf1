package io.strata.bench.rpc;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** The rpc report describes the machine and the transport its run recorded, not fixed ones. */
public class RpcReportTest {
  @Test
  public void theReportStatesTheRecordedProcessorsAndTransport() {
    RpcResult r = RpcResults.sample(7, "loopback");
    String md = RpcReport.markdown(r);
    assertTrue(md, md.contains("a machine with 7 processors"));
    assertFalse(md, md.contains("2-core"));
    assertTrue(md, md.contains("endpoint on the loopback transport"));
    assertTrue(md, md.contains("in-process loopback transport, not RDMA hardware"));
    assertTrue(RpcReport.summary(r), RpcReport.summary(r).contains("endpoint (loopback)"));

    md = RpcReport.markdown(RpcResults.sample(7, "verbs"));
    assertTrue(md, md.contains("endpoint on the verbs transport"));
    assertFalse(md, md.contains("in-process loopback transport"));
  }

  @Test
  public void aRunRecordedWithoutItsTransportRanOnLoopback() {
    assertTrue(RpcReport.markdown(RpcResults.sample(2, null))
      .contains("endpoint on the loopback transport"));
  }

  /** Every section is rendered from the record: its figures, not blanks. */
  @Test
  public void theReportRendersEverySectionFromTheResult() {
    String md = RpcReport.markdown(RpcResults.sample(2, "loopback"));
    for (String s : new String[] { "| 1 KiB | 40.5 µs | 20.5 µs | 0.51× |", "| handler | 9.5 | 9.5 |",
      "| client serialization | — | 2.5 |", "sockets 40.0 / 41.0 µs, endpoint 20.0 / 20.5 µs",
      "| 8 | 20000 | 30000 | 1.50× |", "25 % | 50 % |", "p50 45.5 µs over sockets, 22.5 µs",
      "no — largest endpoint stage: handler_us (9.5 of 27.0 us)", "## Monitoring" }) {
      assertTrue(s + " in\n" + md, md.contains(s));
    }
  }
}
