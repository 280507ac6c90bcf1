package io.strata.bench.ycsb;

import io.strata.bench.media.BarChart;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The access-control cost as YCSB++ plots it (its Figures 17 and 19): per variant, insert and
 * scan throughput relative to HBase without the {@code AccessController}, beside the paper's
 * ratios for cell-level ACLs (insert at 4 and 11 entries; scans 40-50 % lower at any count,
 * drawn at the middle). Stateless.
 */
final class AclPlot {
  static final String PNG = "acl-throughput.png";
  private static final Color INSERT = new Color(40, 100, 190);
  private static final Color SCAN = new Color(90, 170, 90);
  private static final Color PAPER_INSERT = new Color(150, 180, 230);
  private static final Color PAPER_SCAN = new Color(180, 220, 180);

  private AclPlot() {
  }

  static void write(AclComparison.Result r, File png) throws IOException {
    Files.createDirectories(png.getAbsoluteFile().toPath().getParent());
    List<String> cats = new ArrayList<>();
    int n = r.variants().size();
    double[] insert = new double[n];
    double[] scan = new double[n];
    double[] paperInsert = new double[n];
    double[] paperScan = new double[n];
    for (int i = 0; i < n; i++) {
      AclComparison.Variant v = r.variants().get(i);
      cats.add(v.label());
      insert[i] = r.insertRatio(v);
      scan[i] = r.scanRatio(v);
      boolean cell = "cell".equals(v.level());
      boolean none = "none".equals(v.level());
      Double p = AclComparison.PAPER_INSERT_RATIO.get(v.entries());
      paperInsert[i] = none ? 1.0 : cell && p != null ? p : Double.NaN;
      paperScan[i] = none ? 1.0 : cell ? AclComparison.PAPER_SCAN_RATIO : Double.NaN;
    }
    BarChart.grouped("Access-control cost: throughput over no AccessController (user "
      + AclComparison.USER + ", " + r.settings().threads() + " threads)",
      "throughput / no AccessController", cats, List.of(
        new BarChart.Series("insert ops/s (Strata)", INSERT, insert),
        new BarChart.Series("scan rows/s (Strata)", SCAN, scan),
        new BarChart.Series("insert (YCSB++, cell ACLs)", PAPER_INSERT, paperInsert),
        new BarChart.Series("scan (YCSB++, 0.5-0.6)", PAPER_SCAN, paperScan)),
      v -> String.format(Locale.ROOT, "%.2f", v)).reference(1.0, "1.0").write(png);
  }
}
