package io.strata.bench.rpc;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CPU time of the whole process per call: client, RPC server, RegionServer and HDFS all run in
 * this JVM, so this is the CPU one call costs end to end, polling threads included.
 */
public class ProcessCpuProfiler implements InternalProfiler {
  static final String CPU_US_PER_OP = "cpu.us/op";
  private final OperatingSystemMXBean os =
    (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private long cpuAtStart;

  @Override
  public String getDescription() {
    return "process CPU time per operation";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    cpuAtStart = os.getProcessCpuTime();
  }

  @Override
  public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
    IterationParams iterationParams, IterationResult result) {
    long ops = result.getMetadata().getAllOps();
    double us = (os.getProcessCpuTime() - cpuAtStart) / 1e3 / Math.max(1, ops);
    return List.of(new ScalarResult(CPU_US_PER_OP, us, "us/op", AggregationPolicy.AVG));
  }
}
