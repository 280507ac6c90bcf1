package io.strata.bench.ycsb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.util.Iterator;
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
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofMinutes(10);
  /** The child's wait for its endpoint: an emulated guest sets one up in seconds, not minutes. */
  private static final Duration ENDPOINT_TIMEOUT = Duration.ofMinutes(2);
  /** A run's answer may come this long after its time limit (YCSB's threads stop, figures). */
  private static final Duration ANSWER_GRACE = Duration.ofMinutes(3);
  private static final Object END = new Object();

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
      JsonNode ready = c.answer(START_TIMEOUT);
      relay.accept("[rpc-compare] client JVM " + name + " (pid " + p.pid() + ") ready: "
        + ready.path("detail").asText());
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
    ObjectNode req = JSON.createObjectNode();
    ObjectNode p = req.putObject("properties");
    props.stringPropertyNames().forEach(k -> p.put(k, props.getProperty(k)));
    req.put("transactions", transactions);
    req.put("threads", threads);
    req.put("operations", operations);
    req.put("max_ms", maxTime.toMillis());
    var c = req.putArray("counters");
    counters.forEach(c::add);
    requests.write(JSON.writeValueAsString(req));
    requests.newLine();
    requests.flush();
    JsonNode a = answer(maxTime.plus(ANSWER_GRACE));
    Map<String, Long> counted = new LinkedHashMap<>();
    a.path("counters").fields().forEachRemaining(e -> counted.put(e.getKey(),
      e.getValue().asLong()));
    return new RpcCompare.PathRun(figures(a.path("figures")), counted);
  }

  private JsonNode answer(Duration timeout) throws IOException, InterruptedException {
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
    JsonNode a = (JsonNode) o;
    if (a.has("error")) {
      throw new IOException("the YCSB client JVM " + name + ": " + a.path("error").asText());
    }
    return a;
  }

  private void read(Consumer<String> relay) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
      StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith(ANSWER)) {
          answers.put(JSON.readTree(line.substring(ANSWER.length())));
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

  static ObjectNode toJson(InProcessYcsb.Figures f) {
    ObjectNode n = JSON.createObjectNode();
    n.put("operations", f.operations());
    n.put("failed", f.failed());
    n.put("seconds", f.seconds());
    n.put("all", encode(f.allNs()));
    ObjectNode types = n.putObject("by_type");
    f.byTypeNs().forEach((type, h) -> types.put(type, encode(h)));
    return n;
  }

  static InProcessYcsb.Figures figures(JsonNode n) throws IOException {
    Map<String, Histogram> byType = new TreeMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = n.path("by_type").fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      byType.put(e.getKey(), decode(e.getValue().asText()));
    }
    return new InProcessYcsb.Figures(n.path("operations").asLong(), n.path("failed").asLong(),
      n.path("seconds").asDouble(), decode(n.path("all").asText()), byType);
  }

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
      ObjectNode ready = JSON.createObjectNode();
      ready.put("detail", detail);
      answers.println(ANSWER + JSON.writeValueAsString(ready));
      answers.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        ObjectNode a;
        try {
          a = serve(JSON.readTree(line));
        } catch (Exception e) {
          a = JSON.createObjectNode();
          a.put("error", String.valueOf(e));
          e.printStackTrace();
        }
        answers.println(ANSWER + JSON.writeValueAsString(a));
        answers.flush();
      }
    } catch (Exception e) {
      ObjectNode a = JSON.createObjectNode();
      a.put("error", "could not start: " + e);
      answers.println(ANSWER + JSON.writeValueAsString(a));
      answers.flush();
      throw e;
    }
    // HBase's client leaves non-daemon threads behind.
    System.exit(0);
  }

  private static ObjectNode serve(JsonNode req) throws Exception {
    Properties props = new Properties();
    req.path("properties").fields().forEachRemaining(e -> props.setProperty(e.getKey(),
      e.getValue().asText()));
    List<String> counters = new ArrayList<>();
    req.path("counters").forEach(c -> counters.add(c.asText()));
    Map<String, Long> before = new LinkedHashMap<>();
    counters.forEach(c -> before.put(c, RdmaRpcMetrics.count(c)));
    InProcessYcsb.Figures f = InProcessYcsb.run(props, req.path("transactions").asBoolean(),
      req.path("threads").asInt(), req.path("operations").asLong(),
      Duration.ofMillis(req.path("max_ms").asLong()));
    ObjectNode a = JSON.createObjectNode();
    a.set("figures", toJson(f));
    ObjectNode c = a.putObject("counters");
    counters.forEach(k -> c.put(k, RdmaRpcMetrics.count(k) - before.get(k)));
    return a;
  }
}
