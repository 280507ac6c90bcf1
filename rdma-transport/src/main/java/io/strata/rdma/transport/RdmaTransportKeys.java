package io.strata.rdma.transport;

/**
 * Configuration keys of the RDMA transports (verbs and loopback alike), each with its default
 * and one validating typed getter; a bad value fails with an {@link IllegalArgumentException}
 * naming the key, its value and what is allowed. Keys of the verbs transport alone are in
 * {@code io.strata.rdma.verbs.VerbsKeys} (strata-native), those of the hybrid HBase RPC in
 * {@code io.strata.hbase.rdma.HybridRpcKeys} (strata-hbase-rdma-rpc). Stateless; thread-safe.
 */
public final class RdmaTransportKeys {
  private RdmaTransportKeys() {
  }

  /**
   * Bytes per pre-registered send/receive buffer; messages up to this size go eagerly
   * (send/recv), larger ones by RDMA WRITE (loopback: into a buffer made for the message).
   * Default 8192; [64, 1 MiB].
   */
  public static final String EAGER_THRESHOLD = "strata.rdma.eager.threshold";
  public static final int EAGER_THRESHOLD_DEFAULT = 8192;

  /** Receive buffers posted per endpoint = send credits granted to the peer. Default 64. */
  public static final String CREDITS = "strata.rdma.credits";
  public static final int CREDITS_DEFAULT = 64;

  /**
   * Largest message an endpoint carries (the rendezvous buffer bound). Default 4 MiB;
   * [eager threshold, 1 GiB].
   */
  public static final String MAX_MESSAGE = "strata.rdma.max.message.bytes";
  public static final int MAX_MESSAGE_DEFAULT = 4 << 20;

  /**
   * Microseconds the completion thread busy-polls before it waits on the completion channel
   * (loopback: before it parks, with {@code poller} delivery). Default 100; [0, 10000000].
   */
  public static final String POLL_SPIN_US = "strata.rdma.poll.spin.us";
  public static final int POLL_SPIN_US_DEFAULT = 100;

  /**
   * Longest a send waits for the peer's credit (a free receive buffer), ms. A peer that returns
   * none for that long (it stopped reading: a frozen or hostile client) has its endpoint closed:
   * the waiting handler is freed, the peer's calls in flight fail and its client retries them
   * over sockets — as HBase's RPC server drops a connection whose client does not read its
   * responses. Default 10000; [1, 86400000].
   */
  public static final String SEND_TIMEOUT_MS = "strata.rdma.send.timeout.ms";
  public static final int SEND_TIMEOUT_MS_DEFAULT = 10_000;

  /**
   * How the loopback transport runs receive completions: {@code inline} on the sending thread
   * when the receiving endpoint is idle (a completion thread always polling on its own core),
   * or {@code poller} on a completion thread per transport that spins
   * {@code strata.rdma.poll.spin.us} and then parks. Default {@code inline}.
   */
  public static final String LOOPBACK_DELIVERY = "strata.rdma.loopback.delivery";
  public static final String LOOPBACK_DELIVERY_DEFAULT = "inline";
  public static final String LOOPBACK_DELIVERY_INLINE = "inline";
  public static final String LOOPBACK_DELIVERY_POLLER = "poller";

  /** {@link #EAGER_THRESHOLD}, in [64, 1 MiB]. */
  public static int eagerThreshold(TransportConf conf) {
    return range(conf, EAGER_THRESHOLD, EAGER_THRESHOLD_DEFAULT, 64, 1 << 20);
  }

  /**
   * {@link #CREDITS}, in [4, 4096] (data needs two credits, and with four neither side can wait
   * for credits the other owes), with credits x (eager threshold + 16) below 2^31: the receive
   * buffers are one region addressed by int offsets.
   */
  public static int credits(TransportConf conf) {
    int credits = range(conf, CREDITS, CREDITS_DEFAULT, 4, 4096);
    int eager = eagerThreshold(conf);
    long pool = (long) credits * (eager + 16);
    if (pool > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(CREDITS + "=" + credits + " x (" + EAGER_THRESHOLD + "="
        + eager + " + 16) = " + pool + " bytes of receive buffers per endpoint, above "
        + Integer.MAX_VALUE + "; lower either");
    }
    return credits;
  }

  /** {@link #MAX_MESSAGE}, in [eager threshold, 1 GiB]. */
  public static int maxMessage(TransportConf conf) {
    return range(conf, MAX_MESSAGE, MAX_MESSAGE_DEFAULT, eagerThreshold(conf), 1 << 30);
  }

  /** {@link #POLL_SPIN_US}, in [0, 10000000]. */
  public static int pollSpinUs(TransportConf conf) {
    return range(conf, POLL_SPIN_US, POLL_SPIN_US_DEFAULT, 0, 10_000_000);
  }

  /** {@link #SEND_TIMEOUT_MS}, in [1, 86400000]. */
  public static int sendTimeoutMs(TransportConf conf) {
    return range(conf, SEND_TIMEOUT_MS, SEND_TIMEOUT_MS_DEFAULT, 1, 86_400_000);
  }

  /** {@link #LOOPBACK_DELIVERY}: {@code inline} or {@code poller}. */
  public static String loopbackDelivery(TransportConf conf) {
    String delivery = string(conf, LOOPBACK_DELIVERY, LOOPBACK_DELIVERY_DEFAULT);
    if (!delivery.equals(LOOPBACK_DELIVERY_INLINE) && !delivery.equals(LOOPBACK_DELIVERY_POLLER)) {
      throw new IllegalArgumentException(LOOPBACK_DELIVERY + "=" + delivery
        + " is not a delivery mode; use inline or poller");
    }
    return delivery;
  }

  /** The value of {@code key}, or {@code dflt} when it is not set. */
  public static String string(TransportConf conf, String key, String dflt) {
    String v = conf.get(key);
    return v == null ? dflt : v;
  }

  /**
   * An int key in [min, max]; outside, an error naming the key, its value and the range. Read as
   * Hadoop's {@code Configuration.getInt} reads it (trimmed; decimal, or hex after {@code 0x}).
   */
  public static int range(TransportConf conf, String key, int dflt, int min, int max) {
    int v = intValue(conf, key, dflt);
    if (v < min || v > max) {
      throw new IllegalArgumentException(key + "=" + v + " is outside [" + min + ", " + max + "]");
    }
    return v;
  }

  /** An int key, {@code dflt} when unset; a value that is no int names the key. */
  public static int intValue(TransportConf conf, String key, int dflt) {
    String raw = conf.get(key);
    if (raw == null) {
      return dflt;
    }
    String v = raw.trim();
    try {
      boolean negative = v.startsWith("-");
      String digits = negative ? v.substring(1) : v;
      if (digits.startsWith("0x") || digits.startsWith("0X")) {
        int hex = Integer.parseInt(digits.substring(2), 16);
        return negative ? -hex : hex;
      }
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + "=" + raw + " is not an int", e);
    }
  }
}
