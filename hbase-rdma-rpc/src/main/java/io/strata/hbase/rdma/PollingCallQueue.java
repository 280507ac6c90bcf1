package io.strata.hbase.rdma;

import io.strata.rdma.transport.PollPause;
import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.conf.ConfigurationObserver;
import org.apache.hadoop.hbase.ipc.CallRunner;
import org.apache.hadoop.hbase.ipc.PriorityFunction;
import org.apache.hadoop.hbase.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RegionServer call queue (HBase's {@code pluggable} call queue type) whose idle handler, after
 * a call that came over an RDMA endpoint, polls for the next call for
 * {@code strata.rpc.handler.poll.us} before it parks, so that a call arriving meanwhile — the next
 * Get of a client that just got its answer — is picked up without waking a parked thread. After
 * a socket call a handler parks at once: socket calls arrive through Netty's event loops, which
 * need the cores a polling handler would hold. A handful of pollers per JVM ({@code strata.rpc.handler.pollers}), at
 * most one per queue; all other handlers wait as on HBase's FIFO queue, and a call handed to a
 * polling handler wakes nobody. Calls run on HBase's own handlers, in arrival order.
 *
 * <p>Install with {@link PollingRpcSchedulerFactory}, or with HBase's keys:
 * {@code hbase.ipc.server.callqueue.type=pluggable},
 * {@code hbase.ipc.server.callqueue.pluggable.queue.class.name=} this class and
 * {@code hbase.ipc.server.callqueue.balancer.class=} {@link PollingQueueBalancer}.
 */
public final class PollingCallQueue extends AbstractQueue<CallRunner>
  implements BlockingQueue<CallRunner>, ConfigurationObserver {
  private static final Logger LOG = LoggerFactory.getLogger(PollingCallQueue.class);
  /** Polling handlers across the JVM's call queues. */
  static final PollerSlots POLLERS = new PollerSlots(HybridRpcKeys.Handler.POLLERS_DEFAULT);

  private final int capacity;
  private final ConcurrentLinkedQueue<CallRunner> calls = new ConcurrentLinkedQueue<>();
  private final AtomicInteger count = new AtomicInteger();
  /** Whether a handler polls this queue now (at most one does). */
  private final AtomicBoolean polling = new AtomicBoolean();
  /**
   * Set by the polling handler while it has no call; the first offer that clears it leaves the
   * wake-up out, the poller being bound to take a call after that.
   */
  private final AtomicBoolean pollerIdle = new AtomicBoolean();
  private final AtomicInteger parked = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notEmpty = lock.newCondition();
  private static final Counter POLLED = RdmaRpcMetrics.counter("server.calls.polled");
  private static final Counter WOKEN = RdmaRpcMetrics.counter("server.calls.woken");
  private final LongAdder polledTakes = new LongAdder();
  private final LongAdder wakeUps = new LongAdder();
  private volatile long pollNanos;
  /** Whether the last call the handler on this thread took came over an endpoint. */
  private static final ThreadLocal<boolean[]> AFTER_ENDPOINT_CALL =
    ThreadLocal.withInitial(() -> new boolean[1]);

  /** The constructor HBase's RpcExecutor calls for a pluggable call queue. */
  public PollingCallQueue(int maxQueueLength, PriorityFunction priority, Configuration conf) {
    this.capacity = maxQueueLength;
    String bad = apply(conf);
    if (bad != null) {
      throw new IllegalArgumentException(bad);
    }
  }

  /** Takes new polling settings (HBase's online configuration change); bad ones are refused. */
  @Override
  public void onConfigurationChange(Configuration conf) {
    String bad = apply(conf);
    if (bad != null) {
      LOG.warn("{}: handlers keep polling {} us, {} at a time", bad,
        TimeUnit.NANOSECONDS.toMicros(pollNanos), POLLERS.max());
    }
  }

  /** Applies both settings, or neither: null, else what is wrong with them. */
  private String apply(Configuration conf) {
    long us;
    int pollers;
    try {
      us = HybridRpcKeys.Handler.pollUs(conf);
      pollers = HybridRpcKeys.Handler.pollers(conf);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    pollNanos = TimeUnit.MICROSECONDS.toNanos(us);
    POLLERS.max(pollers);
    return null;
  }

  /** Whether a handler polls this queue with no call: a call offered now is taken at once. */
  public boolean hasIdlePoller() {
    return pollerIdle.get();
  }

  /** Calls taken by a polling handler, without a wake-up. */
  public long polledTakes() {
    return polledTakes.sum();
  }

  /** Parked handlers woken for a call. */
  public long wakeUps() {
    return wakeUps.sum();
  }

  @Override
  public boolean offer(CallRunner call) {
    if (call == null) {
      throw new NullPointerException();
    }
    if (count.incrementAndGet() > capacity) {
      count.decrementAndGet();
      return false;
    }
    calls.offer(call);
    if (pollerIdle.get() && pollerIdle.compareAndSet(true, false)) {
      return true;
    }
    if (parked.get() > 0) {
      signal();
    }
    return true;
  }

  private void signal() {
    lock.lock();
    try {
      notEmpty.signal();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public CallRunner poll() {
    CallRunner c = calls.poll();
    if (c != null) {
      count.decrementAndGet();
    }
    return c;
  }

  @Override
  public CallRunner take() throws InterruptedException {
    boolean[] afterEndpointCall = AFTER_ENDPOINT_CALL.get();
    CallRunner c = poll();
    if (c == null && afterEndpointCall[0]) {
      c = pollForCall();
    }
    if (c == null) {
      c = await(-1);
    }
    afterEndpointCall[0] = c.getRpcCall() instanceof EndpointCall;
    return c;
  }

  @Override
  public CallRunner poll(long timeout, TimeUnit unit) throws InterruptedException {
    CallRunner c = poll();
    return c != null ? c : await(Math.max(0, unit.toNanos(timeout)));
  }

  /** Polls for a call if no other handler of this queue does and a poller slot is free. */
  private CallRunner pollForCall() {
    long nanos = pollNanos;
    if (nanos == 0 || !polling.compareAndSet(false, true)) {
      return null;
    }
    if (!POLLERS.tryTake()) {
      polling.set(false);
      return null;
    }
    try {
      pollerIdle.set(true);
      long deadline = System.nanoTime() + nanos;
      int looks = 0;
      do {
        CallRunner c = poll();
        if (c != null) {
          if (!pollerIdle.compareAndSet(true, false) && !calls.isEmpty() && parked.get() > 0) {
            // An offer counted on this handler after it had found this call: wake a handler
            // for that one.
            signal();
          }
          polledTakes.increment();
          POLLED.increment();
          return c;
        }
        PollPause.pause(looks++);
      } while (System.nanoTime() - deadline < 0);
      if (pollerIdle.compareAndSet(true, false)) {
        return null;
      }
      // An offer counted on this handler and woke nobody: take a call if one is left (another
      // handler may have taken it on its way in).
      CallRunner c = poll();
      if (c != null) {
        polledTakes.increment();
        POLLED.increment();
      }
      return c;
    } finally {
      POLLERS.release();
      polling.set(false);
    }
  }

  /** Waits for a call, {@code nanos < 0} without a limit; null when the time is up. */
  private CallRunner await(long nanos) throws InterruptedException {
    lock.lockInterruptibly();
    try {
      parked.incrementAndGet();
      try {
        boolean waited = false;
        for (;;) {
          CallRunner c = poll();
          if (c != null) {
            if (waited) {
              wakeUps.increment();
              WOKEN.increment();
            }
            if (!calls.isEmpty()) {
              notEmpty.signal(); // more calls than wake-ups: pass it on
            }
            return c;
          }
          if (nanos < 0) {
            notEmpty.await();
          } else if (nanos == 0) {
            return null;
          } else {
            nanos = notEmpty.awaitNanos(nanos);
            nanos = Math.max(nanos, 0);
          }
          waited = true;
        }
      } finally {
        parked.decrementAndGet();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void put(CallRunner call) throws InterruptedException {
    while (!offer(call)) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      LockSupport.parkNanos(100_000);
    }
  }

  @Override
  public boolean offer(CallRunner call, long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (!offer(call)) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      LockSupport.parkNanos(100_000);
    }
    return true;
  }

  @Override
  public CallRunner peek() {
    return calls.peek();
  }

  @Override
  public int size() {
    return Math.max(0, count.get());
  }

  @Override
  public int remainingCapacity() {
    return Math.max(0, capacity - size());
  }

  @Override
  public Iterator<CallRunner> iterator() {
    Iterator<CallRunner> it = calls.iterator();
    return new Iterator<CallRunner>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public CallRunner next() {
        return it.next();
      }

      @Override
      public void remove() {
        it.remove();
        count.decrementAndGet();
      }
    };
  }

  @Override
  public boolean remove(Object o) {
    if (calls.remove(o)) {
      count.decrementAndGet();
      return true;
    }
    return false;
  }

  @Override
  public int drainTo(Collection<? super CallRunner> to) {
    return drainTo(to, Integer.MAX_VALUE);
  }

  @Override
  public int drainTo(Collection<? super CallRunner> to, int max) {
    if (to == this) {
      throw new IllegalArgumentException("drainTo itself");
    }
    int n = 0;
    for (CallRunner c; n < max && (c = poll()) != null; n++) {
      to.add(c);
    }
    return n;
  }
}
