package io.strata.bench.writetail;

import java.lang.reflect.Field;
import org.apache.hadoop.hbase.MemoryCompactionPolicy;
import org.apache.hadoop.hbase.regionserver.CompactingMemStore;
import org.apache.hadoop.hbase.regionserver.DefaultMemStore;
import org.apache.hadoop.hbase.regionserver.HStore;

/**
 * The memstore a store actually runs, read from the live {@link HStore}: the column family's
 * {@code IN_MEMORY_COMPACTION} attribute only asks for a policy, and a site-wide
 * {@code hbase.hregion.compacting.memstore.type} or {@code hbase.regionserver.memstore.class}
 * decides what the store builds. HStore has no accessor for its memstore nor CompactingMemStore
 * for its compactor, so both fields are read (never written) reflectively.
 */
final class MemStoreInspector {
  private static final Field MEMSTORE = field(HStore.class, "memstore");
  private static final Field COMPACTOR = field(CompactingMemStore.class, "compactor");

  private MemStoreInspector() {
  }

  /**
   * The memstore in effect: its class, and for a compacting memstore its compaction strategy's
   * name (BASIC, EAGER, ADAPTIVE) as its compactor describes it, else {@code null}.
   */
  record InEffect(String memStoreClass, String strategy, String compactor) {
    /** Whether this is the memstore HBase builds for {@code policy}. */
    boolean implementsPolicy(MemoryCompactionPolicy policy) {
      if (policy == MemoryCompactionPolicy.NONE) {
        return DefaultMemStore.class.getName().equals(memStoreClass);
      }
      return strategy != null && strategy.equals(policy.name());
    }

    /** E.g. {@code DefaultMemStore} or {@code CompactingMemStore/BASIC}. */
    String shortName() {
      String simple = memStoreClass.substring(memStoreClass.lastIndexOf('.') + 1);
      return strategy == null ? simple : simple + "/" + strategy;
    }
  }

  static InEffect of(HStore store) {
    Object memstore = get(MEMSTORE, store);
    if (!(memstore instanceof CompactingMemStore)) {
      return new InEffect(memstore.getClass().getName(), null, null);
    }
    // MemStoreCompactor#toString: "<strategy name>, pipelineThreshold=N, compactionCellMax=N".
    String compactor = String.valueOf(get(COMPACTOR, memstore));
    int comma = compactor.indexOf(',');
    String strategy = (comma < 0 ? compactor : compactor.substring(0, comma)).trim();
    return new InEffect(memstore.getClass().getName(), strategy, compactor);
  }

  private static Field field(Class<?> type, String name) {
    try {
      Field f = type.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("Cannot read " + type.getName() + "#" + name
        + " in this HBase version; the write-tail bench cannot tell which memstore a store runs",
        e);
    }
  }

  private static Object get(Field f, Object target) {
    try {
      return f.get(target);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("Cannot read " + f, e);
    }
  }
}
