package io.strata.bench.ycsb;

import io.strata.bench.ycsb.YcsbRunner.Phase;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;

/**
 * YCSB++'s pre-split experiment: YCSB's load into a table created pre-split into N regions by
 * YCSB's hashed key distribution ({@link YcsbTable#splitKeys}) and into one created with a
 * single region, which HBase then splits as it grows, one after the other on the same cluster.
 * Rounds alternate the order, so that neither variant always runs on the warmer cluster.
 */
public final class PresplitComparison {

  /**
   * One load.
   *
   * @param name {@code presplit} or {@code single}
   * @param regionsAtStart regions the table was created with
   * @param load YCSB's figures
   * @param activity the servers' flushes and compactions during the load; its regions gauge is
   *     the table's regions at the end (more than at the start: HBase split the table)
   */
  public record Variant(String name, int regionsAtStart, PhaseFigures load,
    ActivitySnapshot activity) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%-8s %3d -> %3d regions  %s%n    servers: %s", name,
        regionsAtStart, activity.regions(), load, activity);
    }
  }

  /** Both variants of every round and the throughput ratio (pre-split over single). */
  public record Result(int regions, List<Variant> presplit, List<Variant> single) {
    public double ratio() {
      return presplitOpsPerSec() / singleOpsPerSec();
    }

    /** Mean load throughput of the pre-split table over the rounds. */
    public double presplitOpsPerSec() {
      return mean(presplit);
    }

    /** Mean load throughput of the single-region table over the rounds. */
    public double singleOpsPerSec() {
      return mean(single);
    }

    private static double mean(List<Variant> vs) {
      return vs.stream().mapToDouble(v -> v.load().opsPerSec()).average().orElse(Double.NaN);
    }
  }

  private final Admin admin;
  private final TableName table;
  private final String family;
  private final YcsbClients clients;
  private final ServerActivity activity;
  private final Settle settle;
  private final Path dir;

  /** {@code activity} must watch {@code table}; {@code settle} runs before every load. */
  public PresplitComparison(Admin admin, TableName table, String family, YcsbClients clients,
    ServerActivity activity, Settle settle, Path dir) {
    this.admin = admin;
    this.table = table;
    this.family = family;
    this.clients = clients;
    this.activity = activity;
    this.settle = settle;
    this.dir = dir;
  }

  public Result run(int regions, int rounds, Consumer<Variant> progress)
    throws IOException, InterruptedException {
    if (regions < 2 || rounds < 1) {
      throw new IllegalArgumentException("Pre-split comparison needs at least 2 regions and one "
        + "round, not " + regions + " regions and " + rounds + " rounds");
    }
    List<Variant> presplit = new ArrayList<>();
    List<Variant> single = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      boolean presplitFirst = round % 2 == 1;
      for (int k = 0; k < 2; k++) {
        boolean split = presplitFirst == (k == 0);
        Variant v = load(split ? "presplit" : "single", split ? regions : 1,
          dir.resolve("round-" + (round + 1)));
        (split ? presplit : single).add(v);
        progress.accept(v);
      }
    }
    return new Result(regions, presplit, single);
  }

  private Variant load(String name, int regions, Path roundDir)
    throws IOException, InterruptedException {
    YcsbTable.dropIfExists(admin, table);
    YcsbTable.create(admin, table, family, regions);
    settle.await(activity);
    Path d = roundDir.resolve(name);
    ActivitySnapshot before = activity.snapshot();
    PhaseFigures load = clients.execute(Phase.LOAD, YcsbWorkloads.write(YcsbWorkloads.A, d),
      Map.of(), d);
    return new Variant(name, regions, load, activity.snapshot().since(before));
  }
}
