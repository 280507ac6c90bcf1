package io.strata.rdma.verbs;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

/** The ownership rule every native handle follows (no native code involved). */
public class NativeReferenceTest {

  /** Counts releases instead of freeing anything. */
  private static final class Counted extends NativeReference {
    final AtomicInteger released = new AtomicInteger();

    Counted() {
      super(0x1234);
    }

    @Override
    protected void disposeInternal(long nativeHandle) {
      assertEquals(0x1234, nativeHandle);
      released.incrementAndGet();
    }
  }

  @Test
  public void closeReleasesExactlyOnceFromManyThreads() throws Exception {
    for (int round = 0; round < 50; round++) {
      Counted ref = new Counted();
      CountDownLatch go = new CountDownLatch(1);
      Thread[] closers = new Thread[4];
      for (int i = 0; i < closers.length; i++) {
        closers[i] = new Thread(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          ref.close();
        });
        closers[i].start();
      }
      go.countDown();
      for (Thread t : closers) {
        t.join();
      }
      ref.close();
      assertEquals(1, ref.released.get());
      assertFalse(ref.isOwningHandle());
    }
  }

  @Test
  public void useAfterCloseIsAnExceptionNotAFreedPointer() {
    Counted ref = new Counted();
    assertTrue(ref.isOwningHandle());
    assertEquals(0x1234, ref.handleOrThrow());
    ref.close();
    try {
      ref.handleOrThrow();
      fail("a closed handle was handed out");
    } catch (IllegalStateException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("closed"));
    }
  }

  @Test(expected = IllegalArgumentException.class)
  public void aNullHandleIsRefused() {
    new NativeReference(0) {
      @Override
      protected void disposeInternal(long nativeHandle) {
      }
    };
  }
}
