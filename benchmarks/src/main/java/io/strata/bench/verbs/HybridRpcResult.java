package io.strata.bench.verbs;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * What {@link HybridRpcLatency} measured, as its {@code --json} file holds it (written after each
 * row, {@code complete} false until the end). The JSON field names are the
 * {@code @JsonProperty} names, kept as the program wrote them when it built the text by hand
 * (docs/benchmarks/softroce.md and the kept runs in benchmarks/results/rpc-verbs hold them);
 * latencies, rates and CPU times are rounded to 0.1 as before. Labelled first (commit, date,
 * transport, emulation: see io.strata.bench.common.RunLabels): the transport names both paths,
 * the endpoint's ({@code verbs-softroce} or {@code loopback}) and {@code netty}; the runs kept
 * before the program labelled itself say {@code verbs}, the endpoint's alone.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record HybridRpcResult(@JsonProperty("commit") String commit, @JsonProperty("date") String date,
  @JsonProperty("transport") String transport, @JsonProperty("emulation") String emulation,
  @JsonProperty("complete") boolean complete,
  @JsonProperty("eager_threshold_bytes") int eagerThresholdBytes,
  @JsonProperty("max_message_bytes") int maxMessageBytes,
  @JsonProperty("calls_per_size_and_path") int callsPerSizeAndPath,
  @JsonProperty("rounds") int rounds, @JsonProperty("thread_value_bytes") int threadValueBytes,
  @JsonProperty("warmup_ms") int warmupMs, @JsonProperty("measure_ms") int measureMs,
  @JsonProperty("processors") int processors,
  @JsonProperty("all_over_endpoint") boolean allOverEndpoint,
  @JsonProperty("sizes") List<Size> sizes, @JsonProperty("threads") List<Threads> threads) {

  /** One value size: both paths. */
  record Size(@JsonProperty("bytes") int bytes, @JsonProperty("netty") SizePath netty,
    @JsonProperty("rdma") SizePath rdma) {
  }

  /**
   * One path at one value size (µs); the endpoint's also counts the calls that went over it and
   * the mean message sizes, each with the way it went (eager SEND or RDMA WRITE).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record SizePath(@JsonProperty("get_us_p50") double getUsP50,
    @JsonProperty("get_us_p99") double getUsP99, @JsonProperty("put_us_p50") double putUsP50,
    @JsonProperty("put_us_p99") double putUsP99, @JsonProperty("gets") int gets,
    @JsonProperty("puts") int puts,
    @JsonProperty("gets_over_endpoint") Long getsOverEndpoint,
    @JsonProperty("puts_over_endpoint") Long putsOverEndpoint,
    @JsonProperty("get_response_bytes") Long getResponseBytes,
    @JsonProperty("get_response_path") String getResponsePath,
    @JsonProperty("put_request_bytes") Long putRequestBytes,
    @JsonProperty("put_request_path") String putRequestPath) {
  }

  /** One client thread count: both paths. */
  record Threads(@JsonProperty("threads") int threads, @JsonProperty("netty") ThreadPath netty,
    @JsonProperty("rdma") ThreadPath rdma) {
  }

  /**
   * One path at one thread count: rates, latencies (µs) and CPU per operation over the measured
   * window; the endpoint's also counts the calls made and those that went over it.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record ThreadPath(@JsonProperty("get_ops_per_s") double getOpsPerS,
    @JsonProperty("get_us_mean") double getUsMean, @JsonProperty("get_us_p99") double getUsP99,
    @JsonProperty("cpu_us_per_get") double cpuUsPerGet,
    @JsonProperty("put_ops_per_s") double putOpsPerS,
    @JsonProperty("put_us_mean") double putUsMean, @JsonProperty("put_us_p99") double putUsP99,
    @JsonProperty("cpu_us_per_put") double cpuUsPerPut, @JsonProperty("gets") int gets,
    @JsonProperty("puts") int puts, @JsonProperty("get_calls") Long getCalls,
    @JsonProperty("put_calls") Long putCalls,
    @JsonProperty("gets_over_endpoint") Long getsOverEndpoint,
    @JsonProperty("puts_over_endpoint") Long putsOverEndpoint) {
  }

  /** {@code v} to one decimal, as the figures were printed. */
  static double tenth(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
