package io.strata.bench.rpc;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.strata.bench.common.RunLabels;
import io.strata.bench.common.BenchJson;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code strata bench rpc} measured, as results.json holds it: per value size, the 1 KiB
 * figures of each path, the stages of a 1 KiB call, the bytes on the wire, what the stamps cost,
 * per client-thread count, {@code AsyncTable}, the monitoring timeline, the run's settings and the
 * goals. The JSON field names are the {@code @JsonProperty} names, kept as the bench has always
 * written them (RpcResultJsonTest holds them); the report is rendered from this record. Labelled
 * first ({@code commit}, {@code date}, {@code transport}, {@code emulation}: see
 * io.strata.bench.common.RunLabels), decided as the run starts and joined once it has finished.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record RpcResult(@JsonProperty("commit") String commit, @JsonProperty("date") String date,
  @JsonProperty("transport") String transport, @JsonProperty("emulation") String emulation,
  @JsonProperty("sizes") List<SizeRow> sizes,
  @JsonProperty(RpcBench.NETTY) OneKib netty, @JsonProperty(RpcBench.RDMA) OneKib rdma,
  @JsonProperty("get_p50_ratio") double getP50Ratio,
  @JsonProperty("put_p50_ratio") double putP50Ratio,
  @JsonProperty("stages") PerPath<Stages> stages,
  @JsonProperty("stages_put") PerPath<Stages> stagesPut,
  @JsonProperty("wire_bytes") PerPath<Wire> wireBytes,
  @JsonProperty("instrumentation") PerPath<Instrumentation> instrumentation,
  @JsonProperty("threads") List<ThreadRow> threads, @JsonProperty("async") Async async,
  @JsonProperty("monitoring") JsonNode monitoring, @JsonProperty("run") Run run,
  @JsonProperty("goals") List<Goal> goals) {

  /** The figures measured on the cluster; the labels and what is known after it stopped later. */
  static RpcResult measured(List<SizeRow> sizes, OneKib netty, OneKib rdma, double getP50Ratio,
    double putP50Ratio, PerPath<Stages> stages, PerPath<Stages> stagesPut,
    PerPath<Wire> wireBytes, PerPath<Instrumentation> instrumentation, List<ThreadRow> threads,
    Async async) {
    return new RpcResult(null, null, null, null, sizes, netty, rdma, getP50Ratio, putP50Ratio,
      stages, stagesPut, wireBytes, instrumentation, threads, async, null, null, null);
  }

  /**
   * The same result labelled, with the parts known once the cluster has stopped; no labels when
   * {@code labels} is null.
   */
  RpcResult finished(RunLabels labels, JsonNode monitoringSection, Run runSettings,
    List<Goal> evaluated) {
    return new RpcResult(labels == null ? null : labels.commit(),
      labels == null ? null : labels.date(), labels == null ? null : labels.transport(),
      labels == null ? null : labels.emulation(), sizes, netty, rdma, getP50Ratio, putP50Ratio,
      stages, stagesPut,
      wireBytes, instrumentation, threads, async, monitoringSection, runSettings, evaluated);
  }

  /** A figure of both paths: over HBase's Netty sockets and over the endpoint. */
  record PerPath<T>(@JsonProperty("netty") T netty, @JsonProperty("rdma") T rdma) {
  }

  /** One path at one value size, one thread. */
  record SizeFigures(@JsonProperty("get_us_p50") double getUsP50,
    @JsonProperty("get_us_p99") double getUsP99, @JsonProperty("put_us_p50") double putUsP50,
    @JsonProperty("put_us_p99") double putUsP99, @JsonProperty("get_calls") long getCalls,
    @JsonProperty("put_calls") long putCalls,
    @JsonProperty("gets_over_endpoint") long getsOverEndpoint,
    @JsonProperty("puts_over_endpoint") long putsOverEndpoint) {
  }

  /** One value size: both paths and the endpoint/sockets ratios of their medians. */
  record SizeRow(@JsonProperty("bytes") int bytes, @JsonProperty("netty") SizeFigures netty,
    @JsonProperty("rdma") SizeFigures rdma, @JsonProperty("get_p50_ratio") double getP50Ratio,
    @JsonProperty("put_p50_ratio") double putP50Ratio) {
  }

  /**
   * One path at 1 KiB, one thread, with its cost per call; the endpoint's also counts the calls
   * that went over it.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record OneKib(@JsonProperty("get_us_p50") double getUsP50,
    @JsonProperty("get_us_p99") double getUsP99, @JsonProperty("put_us_p50") double putUsP50,
    @JsonProperty("put_us_p99") double putUsP99,
    @JsonProperty("get_cpu_us_per_call") double getCpuUsPerCall,
    @JsonProperty("put_cpu_us_per_call") double putCpuUsPerCall,
    @JsonProperty("get_alloc_bytes_per_call") double getAllocBytesPerCall,
    @JsonProperty("put_alloc_bytes_per_call") double putAllocBytesPerCall,
    @JsonProperty("get_samples") long getSamples, @JsonProperty("put_samples") long putSamples,
    @JsonProperty("gets_over_endpoint") Long getsOverEndpoint,
    @JsonProperty("mutates_over_endpoint") Long mutatesOverEndpoint) {
    OneKib overEndpoint(long gets, long mutates) {
      return new OneKib(getUsP50, getUsP99, putUsP50, putUsP99, getCpuUsPerCall, putCpuUsPerCall,
        getAllocBytesPerCall, putAllocBytesPerCall, getSamples, putSamples, gets, mutates);
    }
  }

  /**
   * Mean µs per stage of a 1 KiB call (RpcStageBreakdown's names); the socket path has no
   * client-side split, so its split stages are absent (null).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Stages(@JsonProperty("client_serialization_us") Double clientSerializationUs,
    @JsonProperty("send_and_transport_to_server_us") Double sendAndTransportToServerUs,
    @JsonProperty("server_decode_us") Double serverDecodeUs,
    @JsonProperty("queue_wait_us") Double queueWaitUs,
    @JsonProperty("handler_us") Double handlerUs,
    @JsonProperty("response_serialization_us") Double responseSerializationUs,
    @JsonProperty("transport_back_us") Double transportBackUs,
    @JsonProperty("client_processing_us") Double clientProcessingUs,
    @JsonProperty("client_to_server_us") Double clientToServerUs,
    @JsonProperty("server_to_client_us") Double serverToClientUs,
    @JsonProperty("total_us") Double totalUs, @JsonProperty("total_us_p50") Double totalUsP50,
    @JsonProperty("total_us_mean_all") Double totalUsMeanAll,
    @JsonProperty("calls") int calls, @JsonProperty("calls_out_of_order") int callsOutOfOrder) {

    /** The breakdown's stages by name; a name this record has no field for is refused. */
    static Stages of(RpcStageBreakdown.Breakdown b) {
      Map<String, Object> fields = new LinkedHashMap<>(b.stages());
      fields.put("calls", b.calls());
      fields.put("calls_out_of_order", b.rejected());
      return BenchJson.convert(fields, Stages.class);
    }

    /** The stages present, by their JSON names, in the order of a call. */
    Map<String, Double> byName() {
      Map<String, Double> m = new LinkedHashMap<>();
      BenchJson.tree(this).fields().forEachRemaining(e -> {
        if (e.getKey().endsWith("_us") || e.getKey().contains("_us_")) {
          m.put(e.getKey(), e.getValue().asDouble());
        }
      });
      return m;
    }
  }

  /** Bytes on the wire of the last timed 1 KiB call of each kind. */
  record Wire(@JsonProperty("get_request") int getRequest,
    @JsonProperty("get_response") int getResponse, @JsonProperty("put_request") int putRequest,
    @JsonProperty("put_response") int putResponse) {
  }

  /** 1 KiB Get p50 with the stamps off and on. */
  record Instrumentation(@JsonProperty("get_us_p50_recording_off") double offUs,
    @JsonProperty("get_us_p50_recording_on") double onUs) {
  }

  /** One path with N client threads; the endpoint's also who was woken. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record ThreadFigures(@JsonProperty("get_ops_per_s") double getOpsPerS,
    @JsonProperty("get_us_mean") double getUsMean, @JsonProperty("get_us_p50") double getUsP50,
    @JsonProperty("get_us_p99") double getUsP99,
    @JsonProperty("cpu_us_per_get") double cpuUsPerGet,
    @JsonProperty("put_ops_per_s") double putOpsPerS,
    @JsonProperty("put_us_mean") double putUsMean, @JsonProperty("put_us_p99") double putUsP99,
    @JsonProperty("cpu_us_per_put") double cpuUsPerPut,
    @JsonProperty("gets_over_endpoint") long getsOverEndpoint,
    @JsonProperty("callers_parked_share") Double callersParkedShare,
    @JsonProperty("handlers_woken_share") Double handlersWokenShare) {
  }

  /** N client threads: both paths and the ratios. */
  record ThreadRow(@JsonProperty("threads") int threads,
    @JsonProperty("netty") ThreadFigures netty, @JsonProperty("rdma") ThreadFigures rdma,
    @JsonProperty("get_ops_ratio") double getOpsRatio,
    @JsonProperty("cpu_per_get_ratio") double cpuPerGetRatio,
    @JsonProperty("put_ops_ratio") double putOpsRatio) {
  }

  /** One variant of {@code AsyncTable} Gets. */
  record AsyncFigures(@JsonProperty("get_us_p50") double getUsP50,
    @JsonProperty("get_us_p99") double getUsP99,
    @JsonProperty("cpu_us_per_get") double cpuUsPerGet, @JsonProperty("get_calls") long getCalls,
    @JsonProperty("gets_over_endpoint") long getsOverEndpoint) {
  }

  /** {@code AsyncTable} Gets over sockets, over the endpoint polled and unpolled. */
  record Async(@JsonProperty("netty") AsyncFigures netty, @JsonProperty("rdma") AsyncFigures rdma,
    @JsonProperty("rdma_unpolled") AsyncFigures rdmaUnpolled,
    @JsonProperty("get_p50_ratio") double getP50Ratio) {
  }

  /** What the run was given, and where it ran. */
  record Run(@JsonProperty("scale") String scale, @JsonProperty("cell_ms") long cellMs,
    @JsonProperty("warmup_ms") long warmupMs, @JsonProperty("stage_calls") int stageCalls,
    @JsonProperty("transport") String transport,
    @JsonProperty("loopback_delivery") String loopbackDelivery,
    @JsonProperty("handler_poll_us") long handlerPollUs,
    @JsonProperty("client_poll_us") long clientPollUs,
    @JsonProperty("processors") int processors,
    @JsonProperty("hbase") Map<String, String> hbase, @JsonProperty("seconds") double seconds,
    @JsonProperty("command") String command) {

    /** The transport the endpoint path ran on; runs recorded before it was stored: loopback. */
    String transportOrLoopback() {
      return transport != null ? transport : "loopback";
    }
  }

  /** A goal: a ratio and its target; one not met names what held it back. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Goal(@JsonProperty("goal") String goal, @JsonProperty("value") double value,
    @JsonProperty("target") String target, @JsonProperty("met") boolean met,
    @JsonProperty("held_back_by") String heldBackBy) {
  }
}
