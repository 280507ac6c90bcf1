package io.strata.bench.ycsb;

import java.io.IOException;

/** Where a benchmark reads the servers' flush and compaction activity from. */
@FunctionalInterface
public interface ServerActivity {
  ActivitySnapshot snapshot() throws IOException;
}
