package io.strata.hdfs.mover;

import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.sps.MoverIdHolder;
import io.strata.hdfs.sps.SatisfierMarks;
import io.strata.hdfs.sps.SatisfierHealth;
import io.strata.hdfs.sps.SatisfierStatus;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.server.common.HdfsServerConstants;

/**
 * {@code strata mover -p PATH...}: moves the blocks of exactly these files (and the files below
 * these directories) to their storage policy through the Storage Policy Satisfier, and waits
 * until they are there. Unlike HDFS's Mover it never scans the namespace. Its options are parsed
 * by the tools module's {@code MoverCommand}.
 */
public final class FileMover {
  private FileMover() {
  }

  /**
   * Moves the blocks of {@code paths} (files, and the files below directories) to their storage
   * policy through the Storage Policy Satisfier; returns the exit code: 0 placed (or queued, with
   * {@code noWait}), 1 a path missing or not placed within the timeout, 2 bad input.
   *
   * @param hdfs     the NameNode, or null for the first path's file system
   * @param timeoutS seconds to wait for the blocks
   */
  public static int move(Configuration conf, List<String> paths, URI hdfs, long timeoutS,
    boolean noWait, PrintStream out) throws Exception {
    if (paths.isEmpty()) {
      System.err.println("strata mover: give at least one -p PATH (see --help)");
      return 2;
    }
    FileSystem fs = hdfs != null ? FileSystem.get(hdfs, conf)
      : new Path(paths.get(0)).getFileSystem(conf);
    if (!(fs instanceof DistributedFileSystem)) {
      System.err.println("strata mover: " + fs.getUri() + " is not HDFS");
      return 2;
    }
    DistributedFileSystem dfs = (DistributedFileSystem) fs;
    List<Path> files = new ArrayList<>();
    for (String p : paths) {
      Path path = dfs.makeQualified(new Path(p));
      FileStatus st;
      try {
        st = dfs.getFileStatus(path);
      } catch (FileNotFoundException e) {
        System.err.println("strata mover: no such file or directory: " + path);
        return 1;
      }
      if (st.isDirectory()) {
        RemoteIterator<LocatedFileStatus> it = dfs.listFiles(path, true);
        while (it.hasNext()) {
          files.add(it.next().getPath());
        }
      } else {
        files.add(path);
      }
    }
    List<Path> queued = new ArrayList<>();
    // A file left marked by a satisfier that died holding it is ignored by the NameNode when
    // asked again: such stale marks are cleared first.
    SatisfierMarks marks = new SatisfierMarks(dfs, conf);
    int cleared = 0;
    for (Path f : files) {
      if (PlacementCheck.satisfied(dfs, f)) {
        continue;
      }
      try {
        if (marks.request(f) == SatisfierMarks.Outcome.CLEARED_STALE_MARK) {
          cleared++;
          out.println("cleared a stale Storage Policy Satisfier mark on " + f
            + " (no satisfier held it) and asked again");
        }
      } catch (IOException e) {
        System.err.println("strata mover: cannot queue " + f + ": " + e.getMessage());
        return 1;
      }
      queued.add(f);
    }
    out.printf(Locale.ROOT, "%d files, %d to move%s%n", files.size(), queued.size(),
      cleared == 0 ? "" : ", " + cleared + " stale satisfier marks cleared");
    if (queued.isEmpty()) {
      return 0;
    }
    if (noWait) {
      SatisfierStatus sps = new MoverIdHolder(dfs).status();
      if (!sps.running()) {
        System.err.println("strata mover: no Storage Policy Satisfier is running for "
          + dfs.getUri() + " (" + sps.where() + "); the moves wait at the NameNode until one "
          + "starts: " + MoverIdHolder.howToStart());
      }
      return 0;
    }
    return waitUntilPlaced(dfs, queued, timeoutS * 1000, out);
  }

  /**
   * Waits until every file of {@code queued} is where its policy wants it, printing progress
   * every 5 s; returns 0 when they are, 1 (with the files left) after {@code timeoutMs}, and 1 at
   * once when no Storage Policy Satisfier serves the namespace (the {@code /system/mover.id}
   * holder check of {@link MoverIdHolder}).
   */
  public static int waitUntilPlaced(DistributedFileSystem dfs, List<Path> queued, long timeoutMs,
    PrintStream out) throws IOException, InterruptedException {
    return waitUntilPlaced(dfs, queued, timeoutMs, new MoverIdHolder(dfs),
      HdfsKeys.moveNoProgressMs(dfs.getConf()), out);
  }

  /**
   * As {@link #waitUntilPlaced(DistributedFileSystem, List, long, PrintStream)}, asking
   * {@code satisfier} whether a satisfier runs (before waiting, and every 5 s), and saying so
   * once when no misplaced block of these files has reached its tier for {@code noProgressMs}.
   */
  public static int waitUntilPlaced(DistributedFileSystem dfs, List<Path> queued, long timeoutMs,
    SatisfierHealth satisfier, long noProgressMs, PrintStream out)
    throws IOException, InterruptedException {
    if (queued.isEmpty()) {
      return 0;
    }
    long start = System.currentTimeMillis();
    List<Path> pending = queued;
    long lastReport = 0;
    long lastHealthCheck = 0;
    long misplacedAtProgress = Long.MAX_VALUE;
    long progressAt = start;
    boolean stallReported = false;
    while (true) {
      long now = System.currentTimeMillis();
      if (now - lastHealthCheck >= 5_000) {
        SatisfierStatus sps = satisfier.status();
        if (!sps.running()) {
          System.err.printf(Locale.ROOT, "strata: no Storage Policy Satisfier is running for %s "
            + "(%s), so %d of %d files cannot reach their tier (e.g. %s); the requests wait at the "
            + "NameNode: %s%n", dfs.getUri(), sps.where(), pending.size(), queued.size(),
            pending.get(0), MoverIdHolder.howToStart());
          return 1;
        }
        lastHealthCheck = now;
      }
      List<Path> left = new ArrayList<>();
      long misplaced = 0;
      for (Path p : pending) {
        try {
          int n = PlacementCheck.inspect(dfs, p).misplaced().size();
          if (n > 0) {
            left.add(p);
            misplaced += n;
          }
        } catch (FileNotFoundException gone) {
          // deleted or compacted away meanwhile: nothing left to move
        }
      }
      pending = left;
      now = System.currentTimeMillis();
      if (pending.isEmpty() || now - lastReport > 5_000) {
        out.printf(Locale.ROOT, "moved %d/%d files (%.0f s)%n", queued.size() - pending.size(),
          queued.size(), (now - start) / 1000.0);
        lastReport = now;
      }
      if (pending.isEmpty()) {
        return 0;
      }
      if (misplaced < misplacedAtProgress) {
        misplacedAtProgress = misplaced;
        progressAt = now;
      } else if (!stallReported && now - progressAt > noProgressMs) {
        System.err.printf(Locale.ROOT, "strata: no block of the %d files left has reached its "
          + "tier for %d s; the Storage Policy Satisfier is %s: is it stuck, did it die (a dead "
          + "process keeps %s until its lease expires), or do the DataNodes lack volumes of the "
          + "policy's storage types with free space?%n", pending.size(), noProgressMs / 1000,
          satisfier.status(), HdfsServerConstants.MOVER_ID_PATH);
        stallReported = true;
      }
      if (now - start > timeoutMs) {
        System.err.printf(Locale.ROOT, "strata: %d files not on their tier after %d s, e.g. %s "
          + "(%d blocks misplaced): is the Storage Policy Satisfier running, and do the DataNodes "
          + "have volumes of the policy's storage types with free space?%n", pending.size(),
          timeoutMs / 1000, pending.get(0), PlacementCheck.misplacedBlocks(dfs, pending.get(0))
            .size());
        return 1;
      }
      Thread.sleep(500);
    }
  }
}
