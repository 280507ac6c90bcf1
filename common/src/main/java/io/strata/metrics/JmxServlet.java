package io.strata.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads MBeans from a Hadoop or HBase daemon's {@code /jmx} servlet (its info server), the way a
 * remote monitor reads them: {@code GET http://HOST:PORT/jmx?qry=PATTERN}, the beans of the
 * answer's {@code beans} array. The pattern is a JMX {@code ObjectName}, wildcards allowed
 * ({@code sub=Server*}). Only the JDK's HTTP client and Jackson, so that any module can read
 * metrics without a Hadoop dependency. Thread-safe: the HTTP client is, and nothing else changes.
 */
public final class JmxServlet {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final Duration timeout;

  /** @param timeout for connecting and for each answer */
  public JmxServlet(Duration timeout) {
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  /** The servlet's address for {@code pattern}. */
  public static URI uri(String host, int port, String pattern) {
    return URI.create("http://" + host + ":" + port + "/jmx?qry="
      + URLEncoder.encode(pattern, StandardCharsets.UTF_8));
  }

  /**
   * The beans matching {@code pattern} (none is an empty list); fails on a connection error, an
   * answer other than HTTP 200 (naming the address and the status) or one that is not JSON.
   */
  public List<JsonNode> query(String host, int port, String pattern) throws IOException {
    URI uri = uri(host, port, pattern);
    HttpResponse<String> r;
    try {
      r = http.send(HttpRequest.newBuilder(uri).timeout(timeout).build(),
        HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted reading " + uri, e);
    }
    if (r.statusCode() != 200) {
      throw new IOException(uri + " answered HTTP " + r.statusCode());
    }
    return beans(r.body());
  }

  /** The beans of one {@code /jmx} answer. */
  public static List<JsonNode> beans(String json) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    JSON.readTree(json).path("beans").forEach(out::add);
    return out;
  }

  /** The bean named exactly {@code name} among {@code beans}, or null. */
  public static JsonNode named(List<JsonNode> beans, String name) {
    for (JsonNode b : beans) {
      if (name.equals(b.path("name").asText())) {
        return b;
      }
    }
    return null;
  }

  /**
   * A whole-number attribute matched without case (metrics2 keeps the spelling its registry was
   * given, which is not always the one documented), or -1 when the bean has none.
   */
  public static long attribute(JsonNode bean, String name) {
    for (Iterator<Map.Entry<String, JsonNode>> it = bean.fields(); it.hasNext();) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
        return e.getValue().asLong(-1);
      }
    }
    return -1;
  }
}
