package io.strata.hbase.rdma;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ipc.CallRunner;
import org.apache.hadoop.hbase.ipc.CallRunners;
import org.apache.hadoop.hbase.ipc.RpcExecutor;
import org.junit.After;
import org.junit.Test;

public class PollingCallQueueTest {
  private final List<Thread> threads = new ArrayList<>();

  @After
  public void stopThreads() throws InterruptedException {
    for (Thread t : threads) {
      t.interrupt();
      t.join(5000);
    }
    PollingCallQueue.POLLERS.max(HybridRpcKeys.Handler.POLLERS_DEFAULT);
  }

  private static Configuration conf(long pollUs, int pollers) {
    Configuration c = new Configuration(false);
    c.setLong(HybridRpcKeys.Handler.POLL_US, pollUs);
    c.setInt(HybridRpcKeys.Handler.POLLERS, pollers);
    return c;
  }

  /**
   * A handler thread that takes {@code first} (offered here), then one call into the result:
   * after an endpoint call a handler polls for the next one.
   */
  private CompletableFuture<CallRunner> takeAfter(BlockingQueue<CallRunner> q, CallRunner first) {
    if (first != null) {
      assertTrue(q.offer(first));
    }
    CompletableFuture<CallRunner> got = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        if (first != null) {
          assertSame(first, q.take());
        }
        got.complete(q.take());
      } catch (InterruptedException | AssertionError e) {
        got.completeExceptionally(e);
      }
    }, "handler");
    t.setDaemon(true);
    threads.add(t);
    t.start();
    return got;
  }

  private static void await(String what, java.util.function.BooleanSupplier condition)
    throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting until " + what);
      }
      Thread.sleep(1);
    }
  }

  @Test
  public void keepsArrivalOrderSizeAndCapacity() throws Exception {
    PollingCallQueue q = new PollingCallQueue(3, null, conf(0, 1));
    CallRunner a = CallRunners.socket();
    CallRunner b = CallRunners.socket();
    CallRunner c = CallRunners.socket();
    assertTrue(q.offer(a));
    assertTrue(q.offer(b));
    assertTrue(q.offer(c));
    assertFalse("a full queue refuses", q.offer(CallRunners.socket()));
    assertEquals(3, q.size());
    assertEquals(0, q.remainingCapacity());
    assertSame(a, q.peek());
    Map<CallRunner, Boolean> seen = new IdentityHashMap<>();
    for (java.util.Iterator<CallRunner> it = q.iterator(); it.hasNext();) {
      CallRunner r = it.next();
      seen.put(r, true);
      if (r == b) {
        it.remove();
      }
    }
    assertEquals(3, seen.size());
    assertEquals(2, q.size());
    assertSame(a, q.take());
    List<CallRunner> rest = new ArrayList<>();
    assertEquals(1, q.drainTo(rest));
    assertEquals(Collections.singletonList(c), rest);
    assertEquals(0, q.size());
    assertNull(q.poll(10, TimeUnit.MILLISECONDS));
  }

  @Test
  public void afterAnEndpointCallAHandlerPollsAndTakesTheNextWithoutAWakeUp() throws Exception {
    PollingCallQueue q = new PollingCallQueue(100, null, conf(10_000_000, 1));
    CompletableFuture<CallRunner> got = takeAfter(q, CallRunners.endpoint());
    await("the handler polls", q::hasIdlePoller);
    CallRunner call = CallRunners.socket();
    assertTrue(q.offer(call));
    assertSame(call, got.get(10, TimeUnit.SECONDS));
    assertEquals(1, q.polledTakes());
    assertEquals(0, q.wakeUps());
    assertFalse(q.hasIdlePoller());
  }

  @Test
  public void afterASocketCallAHandlerParksAtOnce() throws Exception {
    assertParksAndIsWoken(new PollingCallQueue(100, null, conf(10_000_000, 1)),
      CallRunners.socket());
  }

  @Test
  public void withoutPollingAParkedHandlerIsWoken() throws Exception {
    assertParksAndIsWoken(new PollingCallQueue(100, null, conf(0, 1)), CallRunners.endpoint());
  }

  /** After {@code first}, a handler parks without polling, and the next call wakes it. */
  private void assertParksAndIsWoken(PollingCallQueue q, CallRunner first) throws Exception {
    CompletableFuture<CallRunner> got = takeAfter(q, first);
    Thread handler = threads.get(0);
    await("the handler parks", () -> handler.getState() == Thread.State.WAITING);
    assertFalse(q.hasIdlePoller());
    CallRunner call = CallRunners.endpoint();
    q.offer(call);
    assertSame(call, got.get(10, TimeUnit.SECONDS));
    assertEquals(0, q.polledTakes());
    assertEquals(1, q.wakeUps());
  }

  @Test
  public void aHandlerPollsOnlyForItsTimeThenParksAndIsWoken() throws Exception {
    PollingCallQueue q = new PollingCallQueue(100, null, conf(2_000, 1));
    CompletableFuture<CallRunner> got = takeAfter(q, CallRunners.endpoint());
    Thread handler = threads.get(0);
    await("the handler stops polling and parks",
      () -> !q.hasIdlePoller() && handler.getState() == Thread.State.WAITING);
    CallRunner call = CallRunners.socket();
    q.offer(call);
    assertSame(call, got.get(10, TimeUnit.SECONDS));
    assertEquals(1, q.wakeUps());
    assertEquals(0, PollingCallQueue.POLLERS.taken());
  }

  @Test
  public void pollersAreBoundedAcrossQueuesAndTheBalancerPicksTheIdleOne() throws Exception {
    PollingCallQueue first = new PollingCallQueue(100, null, conf(10_000_000, 1));
    PollingCallQueue second = new PollingCallQueue(100, null, conf(10_000_000, 1));
    List<BlockingQueue<CallRunner>> queues = Arrays.asList(first, second);
    PollingQueueBalancer balancer = new PollingQueueBalancer(new Configuration(false), "test",
      queues);
    CompletableFuture<CallRunner> onSecond = takeAfter(second, CallRunners.endpoint());
    await("the second queue's handler polls", second::hasIdlePoller);
    CompletableFuture<CallRunner> onFirst = takeAfter(first, CallRunners.endpoint());
    Thread firstHandler = threads.get(1);
    await("the first queue's handler parks: no poller slot left",
      () -> firstHandler.getState() == Thread.State.WAITING);
    assertFalse(first.hasIdlePoller());
    assertEquals(1, PollingCallQueue.POLLERS.taken());
    for (int i = 0; i < 20; i++) {
      assertEquals("the call goes where a handler polls", 1, balancer.getNextQueue(null));
    }
    CallRunner call = CallRunners.socket();
    queues.get(balancer.getNextQueue(call)).offer(call);
    assertSame(call, onSecond.get(10, TimeUnit.SECONDS));
    assertEquals(0, second.wakeUps());
    CallRunner next = CallRunners.socket();
    first.offer(next);
    assertSame(next, onFirst.get(10, TimeUnit.SECONDS));
    assertEquals(1, first.wakeUps());
  }

  /**
   * Producers and handlers race through many short polls and parks: every call is taken exactly
   * once and none is left behind (a lost wake-up would leave a call with every handler parked).
   */
  @Test
  public void everyCallIsTakenOnceUnderRaces() throws Exception {
    PollingCallQueue q = new PollingCallQueue(1_000_000, null, conf(5, 2));
    int producers = 3;
    int perProducer = 30_000;
    int total = producers * perProducer;
    Map<CallRunner, Boolean> taken = new ConcurrentHashMap<>();
    AtomicInteger duplicates = new AtomicInteger();
    AtomicInteger count = new AtomicInteger();
    for (int h = 0; h < 5; h++) {
      Thread t = new Thread(() -> {
        try {
          for (;;) {
            CallRunner c = q.take();
            if (taken.put(c, true) != null) {
              duplicates.incrementAndGet();
            }
            count.incrementAndGet();
            if ((count.get() & 63) == 0) {
              Thread.yield();
            }
          }
        } catch (InterruptedException e) {
          // done
        }
      }, "handler-" + h);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    List<Thread> senders = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      Thread t = new Thread(() -> {
        for (int i = 0; i < perProducer; i++) {
          CallRunner c = (i & 1) == 0 ? CallRunners.endpoint() : CallRunners.socket();
          while (!q.offer(c)) {
            Thread.yield();
          }
          if ((i & 255) == 0) {
            try {
              Thread.sleep(0, 50_000); // let handlers run dry, poll out and park
            } catch (InterruptedException e) {
              return;
            }
          }
        }
      }, "producer-" + p);
      senders.add(t);
      t.start();
    }
    for (Thread t : senders) {
      t.join();
    }
    await("every call is taken (" + count.get() + " of " + total + ", " + q.size()
      + " queued)", () -> count.get() == total);
    assertEquals(0, duplicates.get());
    assertEquals(total, taken.size());
    assertEquals(0, q.size());
    assertTrue("some calls were taken by polling", q.polledTakes() > 0);
    assertTrue("some handlers were woken", q.wakeUps() > 0);
  }

  /**
   * Pairs of calls offered back to back while handlers poll briefly and park, each pair waited
   * for before the next: a wake-up lost between a handler ending its poll and an offer would
   * leave a call behind with no later offer to rescue it.
   */
  @Test
  public void noCallIsLeftBehindBetweenPollsAndParks() throws Exception {
    PollingCallQueue q = new PollingCallQueue(1000, null, conf(3, 2));
    AtomicInteger count = new AtomicInteger();
    for (int h = 0; h < 3; h++) {
      Thread t = new Thread(() -> {
        try {
          for (;;) {
            q.take();
            count.incrementAndGet();
          }
        } catch (InterruptedException e) {
          // done
        }
      }, "handler-" + h);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    int pairs = 20_000;
    for (int i = 0; i < pairs; i++) {
      q.offer(CallRunners.endpoint());
      q.offer(CallRunners.endpoint());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
      while (count.get() < 2 * (i + 1)) {
        if (System.nanoTime() > deadline) {
          fail("pair " + i + ": a call was left in the queue (" + q.size() + " queued)");
        }
        Thread.onSpinWait();
      }
      if ((i & 7) == 0) {
        LockSupport.parkNanos(20_000); // let the handlers poll out and park
      }
    }
    assertEquals(0, q.size());
  }

  @Test
  public void negativeSettingsAreRefusedByName() {
    try {
      new PollingCallQueue(10, null, conf(-1, 1));
      fail("a negative poll time must be refused");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(HybridRpcKeys.Handler.POLL_US));
    }
    PollingCallQueue q = new PollingCallQueue(10, null, conf(7, 1));
    q.onConfigurationChange(conf(-5, 1)); // kept, with a WARN
    q.onConfigurationChange(conf(0, 3));
    assertEquals(3, PollingCallQueue.POLLERS.max());
  }

  @Test
  public void theSchedulerFactoryInstallsTheQueueUnlessTheOperatorChoseAnother() {
    Configuration stock = new Configuration(false);
    Configuration polling = PollingRpcSchedulerFactory.pollingConf(stock);
    assertEquals("pluggable", polling.get(RpcExecutor.CALL_QUEUE_TYPE_CONF_KEY));
    assertEquals(PollingCallQueue.class.getName(),
      polling.get(RpcExecutor.PLUGGABLE_CALL_QUEUE_CLASS_NAME));
    assertFalse(polling.getBoolean(RpcExecutor.PLUGGABLE_CALL_QUEUE_WITH_FAST_PATH_ENABLED, true));
    assertEquals(PollingQueueBalancer.class.getName(),
      polling.get(RpcExecutor.CALL_QUEUE_QUEUE_BALANCER_CLASS));
    assertNull("the operator's configuration is not changed",
      stock.get(RpcExecutor.CALL_QUEUE_TYPE_CONF_KEY));

    Configuration deadline = new Configuration(false);
    deadline.set(RpcExecutor.CALL_QUEUE_TYPE_CONF_KEY, "deadline");
    assertSame(deadline, PollingRpcSchedulerFactory.pollingConf(deadline));
    Configuration readWrite = new Configuration(false);
    readWrite.setFloat("hbase.ipc.server.callqueue.read.ratio", 0.5f);
    assertSame(readWrite, PollingRpcSchedulerFactory.pollingConf(readWrite));
  }
}
