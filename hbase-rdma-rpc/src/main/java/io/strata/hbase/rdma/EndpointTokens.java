package io.strata.hbase.rdma;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * One-time tokens that bind an RDMA connection request to a socket connection that already
 * authenticated: the RPC server issues a token to the user of an authenticated call, the client
 * puts it in the connection request's private data, and the server accepts the endpoint only for
 * an unexpired token it issued and has not seen before; the endpoint's calls then run as that
 * user. Nothing but the token (random, 16 bytes) travels in the connection request.
 *
 * <p>Tokens all live {@code ttlMs}, so issue order is expiry order: expiring looks only at the
 * oldest tokens and stops at the first live one (O(expired), not a scan of every token). The
 * number outstanding is bounded by the caller's caps (see {@code HybridRpcServer}).
 * Thread-safe (one lock; issue and redeem are rare next to calls).
 *
 * @param <G> what a token grants (the user and the client's connection settings)
 */
public final class EndpointTokens<G> {
  /** Bytes of a token. */
  public static final int TOKEN_BYTES = 16;
  /** Private data of a connection request: magic, version, token. */
  public static final int PRIVATE_DATA_BYTES = 4 + 1 + TOKEN_BYTES;
  private static final int MAGIC = 0x53545241; // "STRA"
  private static final byte VERSION = 1;

  /** In issue order, which is expiry order. Guarded by {@code this}. */
  private final LinkedHashMap<ByteBuffer, Entry<G>> issued = new LinkedHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private final long ttlMs;
  private final LongSupplier clockMs;

  public EndpointTokens(long ttlMs, LongSupplier clockMs) {
    if (ttlMs <= 0) {
      throw new IllegalArgumentException(HybridRpcKeys.Server.TOKEN_TTL_MS + " must be > 0, not " + ttlMs);
    }
    this.ttlMs = ttlMs;
    this.clockMs = clockMs;
  }

  /** Issues a fresh token granting {@code grant}; returns the token's bytes. */
  public synchronized byte[] issue(G grant) {
    long now = clockMs.getAsLong();
    expire(now);
    byte[] token = new byte[TOKEN_BYTES];
    do {
      random.nextBytes(token);
    } while (issued.putIfAbsent(ByteBuffer.wrap(token.clone()),
      new Entry<>(grant, now + ttlMs)) != null);
    return token;
  }

  /**
   * What the private data of a connection request grants, or null when it carries no token this
   * server issued, or an expired or already used one. A token works once.
   */
  public synchronized G redeem(ByteBuffer privateData) {
    if (privateData == null || privateData.remaining() < PRIVATE_DATA_BYTES) {
      return null;
    }
    ByteBuffer pd = privateData.duplicate();
    if (pd.getInt() != MAGIC || pd.get() != VERSION) {
      return null;
    }
    byte[] token = new byte[TOKEN_BYTES];
    pd.get(token);
    Entry<G> e = issued.remove(ByteBuffer.wrap(token));
    if (e == null || e.expiresMs < clockMs.getAsLong()) {
      return null;
    }
    return e.grant;
  }

  /** The private data a client sends to present {@code token}. */
  public static ByteBuffer privateData(byte[] token) {
    if (token.length != TOKEN_BYTES) {
      throw new IllegalArgumentException("A token has " + TOKEN_BYTES + " bytes, not "
        + token.length);
    }
    ByteBuffer pd = ByteBuffer.allocate(PRIVATE_DATA_BYTES);
    pd.putInt(MAGIC).put(VERSION).put(token).flip();
    return pd;
  }

  /** Tokens issued and neither used nor expired. */
  public synchronized int outstanding() {
    expire(clockMs.getAsLong());
    return issued.size();
  }

  /** Tokens outstanding whose grant matches {@code which} (bounded by the caller's caps). */
  public synchronized int outstanding(Predicate<G> which) {
    expire(clockMs.getAsLong());
    int n = 0;
    for (Entry<G> e : issued.values()) {
      if (which.test(e.grant)) {
        n++;
      }
    }
    return n;
  }

  /** Drops the expired tokens: the oldest ones, up to the first that is still valid. */
  private void expire(long now) {
    for (Iterator<Entry<G>> it = issued.values().iterator(); it.hasNext();) {
      if (it.next().expiresMs >= now) {
        return;
      }
      it.remove();
    }
  }

  private static final class Entry<G> {
    final G grant;
    final long expiresMs;

    Entry(G grant, long expiresMs) {
      this.grant = grant;
      this.expiresMs = expiresMs;
    }
  }
}
