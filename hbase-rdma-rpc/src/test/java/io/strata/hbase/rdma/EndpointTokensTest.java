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

  @Test(expected = IllegalArgumentException.class)
  public void ttlMustBePositive() {
    new EndpointTokens<String>(0, now::get);
  }
}
