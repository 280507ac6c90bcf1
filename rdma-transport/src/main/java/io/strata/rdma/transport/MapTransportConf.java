package io.strata.rdma.transport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link TransportConf} held in a map, for code that runs a transport without a Hadoop
 * {@code Configuration} (tests, tools). Setters return this object, so settings chain.
 * Thread-safe (a concurrent map).
 */
public final class MapTransportConf implements TransportConf {
  private final Map<String, String> values = new ConcurrentHashMap<>();

  @Override
  public String get(String key) {
    return values.get(key);
  }

  public MapTransportConf set(String key, String value) {
    values.put(key, value);
    return this;
  }

  public MapTransportConf setInt(String key, int value) {
    return set(key, Integer.toString(value));
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
