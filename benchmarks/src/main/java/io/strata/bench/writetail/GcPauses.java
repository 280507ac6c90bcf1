package io.strata.bench.writetail;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.ListenerNotFoundException;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The JVM's stop-the-world collections while it runs, so that each Put's tail can be set against
 * the pauses of the one JVM that holds the client, the RegionServer and the DataNodes.
 * Collectors that report concurrent work (G1's "Concurrent GC" on newer JDKs) are left out.
 */
final class GcPauses implements AutoCloseable {
  /** One collection: start in ms of JVM uptime, duration in ms. */
  record Pause(long startUptimeMs, long durationMs) {
  }

  /** Pauses that started within some intervals of uptime. */
  record Summary(long pauses, long totalMs, long maxMs) {
  }

  private final List<Pause> pauses = new ArrayList<>();
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final NotificationListener listener = (n, handback) -> {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info =
      GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
    if (info.getGcName().contains("Concurrent")) {
      return;
    }
    synchronized (pauses) {
      pauses.add(new Pause(info.getGcInfo().getStartTime(), info.getGcInfo().getDuration()));
    }
  };

  GcPauses() {
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter e) {
        e.addNotificationListener(listener, null, null);
        emitters.add(e);
      }
    }
  }

  static long uptimeMs() {
    return ManagementFactory.getRuntimeMXBean().getUptime();
  }

  /** Pauses that started in one of {@code intervals} ({@code [start, end]} ms of uptime). */
  List<Pause> listWithin(List<long[]> intervals) {
    List<Pause> out = new ArrayList<>();
    synchronized (pauses) {
      for (Pause p : pauses) {
        for (long[] i : intervals) {
          if (p.startUptimeMs() >= i[0] && p.startUptimeMs() <= i[1]) {
            out.add(p);
            break;
          }
        }
      }
    }
    return out;
  }

  /** Pauses that started in one of {@code intervals} ({@code [start, end]} ms of uptime). */
  Summary within(List<long[]> intervals) {
    long n = 0;
    long total = 0;
    long max = 0;
    synchronized (pauses) {
      for (Pause p : pauses) {
        for (long[] i : intervals) {
          if (p.startUptimeMs() >= i[0] && p.startUptimeMs() <= i[1]) {
            n++;
            total += p.durationMs();
            max = Math.max(max, p.durationMs());
            break;
          }
        }
      }
    }
    return new Summary(n, total, max);
  }

  @Override
  public void close() {
    for (NotificationEmitter e : emitters) {
      try {
        e.removeNotificationListener(listener);
      } catch (ListenerNotFoundException ignored) {
        // never added: nothing to remove
      }
    }
  }
}
