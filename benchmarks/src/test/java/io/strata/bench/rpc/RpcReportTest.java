package io.strata.bench.rpc;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;

/** The rpc report describes the machine and the transport its run recorded, not fixed ones. */
public class RpcReportTest {
  @Test
  public void theReportStatesTheRecordedProcessorsAndTransport() {
    ObjectNode doc = new ObjectMapper().createObjectNode();
    ObjectNode run = doc.putObject("run");
    run.put("processors", 7);
    run.put("transport", "loopback");
    String md = RpcReport.markdown(doc);
    assertTrue(md, md.contains("a machine with 7 processors"));
    assertFalse(md, md.contains("2-core"));
    assertTrue(md, md.contains("endpoint on the loopback transport"));
    assertTrue(md, md.contains("in-process loopback transport, not RDMA hardware"));
    assertTrue(RpcReport.summary(doc), RpcReport.summary(doc).contains("endpoint (loopback)"));

    run.put("transport", "verbs");
    md = RpcReport.markdown(doc);
    assertTrue(md, md.contains("endpoint on the verbs transport"));
    assertFalse(md, md.contains("in-process loopback transport"));
  }

  @Test
  public void aRunRecordedWithoutItsTransportRanOnLoopback() {
    ObjectNode doc = new ObjectMapper().createObjectNode();
    doc.putObject("run").put("processors", 2);
    assertTrue(RpcReport.markdown(doc).contains("endpoint on the loopback transport"));
  }
}
