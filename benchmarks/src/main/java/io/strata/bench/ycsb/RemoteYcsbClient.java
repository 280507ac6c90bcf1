package io.strata.bench.ycsb;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.JvmCommand;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * YCSB phases run in a client JVM of its own: what {@code --rpc-compare} uses when the RDMA
 * transport connects across processes (verbs), so that client and RegionServer are apart as in
 * the RDMA HBase study. One child JVM per path holds one HBase connection for all the runs
 * (its JVM start and its endpoint's set-up are paid once); each run is {@link InProcessYcsb} in
 * the child, which sends back the figures (latency histograms encoded whole, so that rounds
 * merge exactly as in-process ones do) and the client-side endpoint counters' increments.
 *
 * <p>The protocol is one JSON line per request on the child's standard input and one line per
 * answer on its standard output, prefixed {@value #ANSWER} (anything else the child prints, its
 * logging, is relayed as it is). The child exits when its input ends, so a parent that dies
 * takes its clients with it.
 *
 * <p>Thread-safety: one run at a time per instance ({@link #run} is synchronized).
 */
final class RemoteYcsbClient implements AutoCloseable {
  static final String ANSWER = "@@ycsb ";
  /** One line per message, a part that is absent (null) left out, an unknown field refused. */
  static final ObjectMapper JSON = new ObjectMapper()
    .setSerializationInclusion(JsonInclude.Include.NON_NULL)
    .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private static final Duration START_TIMEOUT = Duration.ofMinutes(10);
  /** The child's wait for its endpoint: an emulated guest sets one up in seconds, not minutes. */
  private static final Duration ENDPOINT_TIMEOUT = Duration.ofMinutes(2);
  /** A run's answer may come this long after its time limit (YCSB's threads stop, figures). */
  private static final Duration ANSWER_GRACE = Duration.ofMinutes(3);
  private static final Object END = new Object();

  /** A run asked of the child: {@link InProcessYcsb#run}'s arguments, the counters to count. */
  record Request(@JsonProperty("properties") Map<String, String> properties,
    @JsonProperty("transactions") boolean transactions, @JsonProperty("threads") int threads,
    @JsonProperty("operations") long operations, @JsonProperty("max_ms") long maxMs,
    @JsonProperty("counters") List<String> counters) {
  }

  /**
   * A line from the child: {@code detail} when ready, {@code figures} and {@code counters} (their
   * increments) after a run, or {@code error}.
   */
  record Answer(@JsonProperty("detail") String detail,
    @JsonProperty("figures") EncodedFigures figures,
    @JsonProperty("counters") Map<String, Long> counters, @JsonProperty("error") String error) {
    static Answer failed(String error) {
      return new Answer(null, null, null, error);
    }
  }

  /** A run's figures with its latency histograms encoded whole ({@link #encode}). */
  record EncodedFigures(@JsonProperty("operations") long operations,
    @JsonProperty("failed") long failed, @JsonProperty("seconds") double seconds,
    @JsonProperty("all") String all, @JsonProperty("by_type") Map<String, String> byType) {
    static EncodedFigures of(InProcessYcsb.Figures f) {
      Map<String, String> types = new LinkedHashMap<>();
      f.byTypeNs().forEach((type, h) -> types.put(type, encode(h)));
      return new EncodedFigures(f.operations(), f.failed(), f.seconds(), encode(f.allNs()),
        types);
    }

    InProcessYcsb.Figures figures() throws IOException {
      Map<String, Histogram> types = new TreeMap<>();
      for (Map.Entry<String, String> e : byType.entrySet()) {
        types.put(e.getKey(), decode(e.getValue()));
      }
      return new InProcessYcsb.Figures(operations, failed, seconds, decode(all), types);
    }
  }

  private final String name;
  private final Process process;
  private final BufferedWriter requests;
  private final BlockingQueue<Object> answers = new ArrayBlockingQueue<>(16);
  private final Thread reader;

  private RemoteYcsbClient(String name, Process process, Consumer<String> relay) {
    this.name = name;
    this.process = process;
    this.requests = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(),
      StandardCharsets.UTF_8));
    this.reader = new Thread(() -> read(relay), "ycsb-client-" + name + "-output");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts the client JVM of path {@code name}: HBase's configuration {@code conf} (the
   * cluster's with the path's RPC client over it) is written to {@code dir} for it, its log goes
   * there too. Returns once the child holds its connection and, with {@code awaitEndpoint}, has
   * its RDMA endpoint ({@link RpcCompare#awaitEndpoint}).
   *
   * @throws IOException when the child exits, answers an error or does not answer in time
   */
  static RemoteYcsbClient start(String name, Configuration conf, boolean awaitEndpoint,
    Path dir, String maxHeap, Consumer<String> relay) throws IOException, InterruptedException {
    File site = dir.resolve("ycsb-client-" + name + "-site.xml").toFile();
    try (FileOutputStream out = new FileOutputStream(site)) {
      conf.writeXml(out);
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(JvmCommand.javaExecutable());
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      // The parent's options (module flags, the emulated guest's JIT and GC choices), less what
      // is the parent's own: its heap, its log file, agents.
      if (!a.startsWith("-Xmx") && !a.startsWith("-Dstrata.log.file=")
        && !a.startsWith("-agentlib") && !a.startsWith("-javaagent") && !a.startsWith("-Xrunjdwp")
        && !a.startsWith("-XX:MaxDirectMemorySize")) {
        cmd.add(a);
      }
    }
    cmd.add("-Xmx" + maxHeap);
    cmd.add("-Dstrata.log.file=" + dir.resolve("ycsb-client-" + name + ".log").toAbsolutePath());
    cmd.add("-cp");
    cmd.add(JvmCommand.absoluteClassPath(String.join(File.pathSeparator,
      JvmCommand.currentClassPath())));
    cmd.add(RemoteYcsbClient.class.getName());
    cmd.add(site.getAbsolutePath());
    cmd.add(name);
    cmd.add(Boolean.toString(awaitEndpoint));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    RemoteYcsbClient c = new RemoteYcsbClient(name, p, relay);
    try {
      Answer ready = c.answer(START_TIMEOUT);
      relay.accept("[rpc-compare] client JVM " + name + " (pid " + p.pid() + ") ready: "
        + ready.detail());
      return c;
    } catch (IOException | RuntimeException | InterruptedException e) {
      c.close();
      throw e;
    }
  }

  /**
   * Runs YCSB in the child as {@link InProcessYcsb#run} would here; the counters are the
   * child's increments of {@code counters} (client-side ones: the server's are this JVM's).
   */
  synchronized RpcCompare.PathRun run(Properties props, boolean transactions, int threads,
    long operations, Duration maxTime, List<String> counters) throws IOException,
    InterruptedException {
    Map<String, String> p = new LinkedHashMap<>();
    props.stringPropertyNames().forEach(k -> p.put(k, props.getProperty(k)));
    requests.write(JSON.writeValueAsString(new Request(p, transactions, threads, operations,
      maxTime.toMillis(), List.copyOf(counters))));
    requests.newLine();
    requests.flush();
    Answer a = answer(maxTime.plus(ANSWER_GRACE));
    if (a.figures() == null || a.counters() == null) {
      throw new IOException("the YCSB client JVM " + name + " answered a run without its "
        + "figures or counters");
    }
    return new RpcCompare.PathRun(a.figures().figures(), new LinkedHashMap<>(a.counters()));
  }

  private Answer answer(Duration timeout) throws IOException, InterruptedException {
    Object o = answers.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (o == null) {
      throw new IOException("the YCSB client JVM " + name + " (pid " + process.pid()
        + ") did not answer within " + timeout.toSeconds() + " s (its log is beside its "
        + "site file)");
    }
    if (o == END) {
      answers.offer(END);
      throw new IOException("the YCSB client JVM " + name + " ended"
        + (process.isAlive() ? "" : " with exit status " + process.waitFor()) + " (its output "
        + "is above)");
    }
    Answer a = (Answer) o;
    if (a.error() != null) {
      throw new IOException("the YCSB client JVM " + name + ": " + a.error());
    }
    return a;
  }

  private void read(Consumer<String> relay) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
      StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith(ANSWER)) {
          answers.put(JSON.readValue(line.substring(ANSWER.length()), Answer.class));
        } else {
          relay.accept("  [" + name + " client] " + line);
        }
      }
    } catch (IOException | InterruptedException e) {
      relay.accept("  [" + name + " client] output unreadable: " + e);
    } finally {
      answers.offer(END);
    }
  }

  /** Ends the child: its input closes (it exits), and after 30 s it is killed. */
  @Override
  public void close() throws InterruptedException {
    try {
      requests.close();
    } catch (IOException e) {
      // Already gone: nothing to tell it.
    }
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    reader.join(5_000);
  }

  // ---------------------------------------------------------------------------------------
  // The encoding of figures (both sides).

  static String encode(Histogram h) {
    ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(b);
    byte[] bytes = new byte[n];
    b.flip();
    b.get(bytes);
    return Base64.getEncoder().encodeToString(bytes);
  }

  static Histogram decode(String base64) throws IOException {
    try {
      return Histogram.decodeFromCompressedByteBuffer(
        ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
    } catch (DataFormatException | IllegalArgumentException e) {
      throw new IOException("a latency histogram from a YCSB client JVM is unreadable: " + e, e);
    }
  }

  // ---------------------------------------------------------------------------------------
  // The child.

  /**
   * The client JVM: {@code SITE_XML PATH_NAME AWAIT_ENDPOINT} (true: read rows of {@link
   * RpcCompare#TABLE} until the hybrid client has its endpoint). Answers "ready" once connected,
   * then one answer per request line until its input ends.
   */
  public static void main(String[] args) throws Exception {
    PrintStream answers = System.out;
    // Everything else this JVM prints (HBase's logging to the console) must not look like an
    // answer: it goes to standard error, which the parent reads with the output.
    System.setOut(System.err);
    Configuration conf = HBaseConfiguration.create();
    conf.addResource(new org.apache.hadoop.fs.Path(new File(args[0]).toURI()));
    String name = args[1];
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      String detail = "RPC client " + conf.get("hbase.rpc.client.impl", "(HBase's default)");
      if (Boolean.parseBoolean(args[2])) {
        detail += ", endpoint connected after "
          + RpcCompare.awaitEndpoint(connection, 0, ENDPOINT_TIMEOUT) + " read(s)";
      }
      HBaseClient26.provideConnection(RpcCompare.connectionName(name), connection);
      answers.println(ANSWER + JSON.writeValueAsString(new Answer(detail, null, null, null)));
      answers.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        Answer a;
        try {
          a = serve(JSON.readValue(line, Request.class));
        } catch (Exception e) {
          a = Answer.failed(String.valueOf(e));
          e.printStackTrace();
        }
        answers.println(ANSWER + JSON.writeValueAsString(a));
        answers.flush();
      }
    } catch (Exception e) {
      answers.println(ANSWER + JSON.writeValueAsString(Answer.failed("could not start: " + e)));
      answers.flush();
      throw e;
    }
    // HBase's client leaves non-daemon threads behind.
    System.exit(0);
  }

  private static Answer serve(Request req) throws Exception {
    Properties props = new Properties();
    req.properties().forEach(props::setProperty);
    Map<String, Long> before = new LinkedHashMap<>();
    req.counters().forEach(c -> before.put(c, RdmaRpcMetrics.count(c)));
    InProcessYcsb.Figures f = InProcessYcsb.run(props, req.transactions(), req.threads(),
      req.operations(), Duration.ofMillis(req.maxMs()));
    Map<String, Long> counted = new LinkedHashMap<>();
    req.counters().forEach(k -> counted.put(k, RdmaRpcMetrics.count(k) - before.get(k)));
    return new Answer(null, EncodedFigures.of(f), counted, null);
  }
}
