package io.strata.hbase.rdma;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

public class EndpointTokensTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final EndpointTokens<String> tokens = new EndpointTokens<>(500, now::get);

  @Test
  public void aTokenGrantsOnceWhatItWasIssuedFor() {
    byte[] t = tokens.issue("alice");
    ByteBuffer pd = EndpointTokens.privateData(t);
    assertEquals(EndpointTokens.PRIVATE_DATA_BYTES, pd.remaining());
    assertEquals("alice", tokens.redeem(pd));
    assertNull("single use", tokens.redeem(EndpointTokens.privateData(t)));
  }

  @Test
  public void forgedMalformedAndExpiredTokensGrantNothing() {
    byte[] real = tokens.issue("bob");
    byte[] forged = real.clone();
    forged[0] ^= 1;
    assertNull(tokens.redeem(EndpointTokens.privateData(forged)));
    assertNull(tokens.redeem(ByteBuffer.allocate(0)));
    assertNull(tokens.redeem(null));
    ByteBuffer badMagic = EndpointTokens.privateData(real);
    badMagic.put(0, (byte) 0);
    assertNull(tokens.redeem(badMagic));
    now.addAndGet(501);
    assertNull("expired", tokens.redeem(EndpointTokens.privateData(real)));
    assertEquals(0, tokens.outstanding());
  }

  /** Expiry drops the oldest tokens, in issue order, and only the expired ones. */
  @Test
  public void expiryDropsOnlyTheExpiredInIssueOrder() {
    byte[] first = tokens.issue("a");
    now.addAndGet(200);
    byte[] second = tokens.issue("b");
    now.addAndGet(200);
    byte[] third = tokens.issue("a");
    assertEquals(3, tokens.outstanding());
    assertEquals(2, tokens.outstanding("a"::equals));
    assertEquals("b", tokens.redeem(EndpointTokens.privateData(second)));
    now.addAndGet(101); // the first is 501 ms old
    assertEquals(1, tokens.outstanding());
    assertNull(tokens.redeem(EndpointTokens.privateData(first)));
    assertEquals("a", tokens.redeem(EndpointTokens.privateData(third)));
    for (int i = 0; i < 10_000; i++) {
      tokens.issue("many");
    }
    now.addAndGet(501);
    assertEquals(0, tokens.outstanding());
  }

  @Test
  public void rateLimitedLogLetsOneLinePerIntervalAndCountsTheRest() {
    AtomicLong nanos = new AtomicLong();
    RateLimitedLog log = new RateLimitedLog(10, java.util.concurrent.TimeUnit.SECONDS, nanos::get);
    assertEquals(0, log.tryLog());
    assertEquals(-1, log.tryLog());
    assertEquals(-1, log.tryLog());
    nanos.addAndGet(10_000_000_000L);
    assertEquals("the next line says two were held back", 2, log.tryLog());
    assertEquals(-1, log.tryLog());
  }

  @Test(expected = IllegalArgumentException.class)
  public void ttlMustBePositive() {
    new EndpointTokens<String>(0, now::get);
  }
}
