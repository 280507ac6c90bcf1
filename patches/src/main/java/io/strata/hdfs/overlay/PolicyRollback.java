package io.strata.hdfs.overlay;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockStoragePolicySuite;
import org.apache.hadoop.hdfs.server.mover.Mover;
import org.apache.hadoop.hdfs.tools.DFSAdmin;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.util.ToolRunner;

/**
 * {@code strata rollback-policies --map NAME=BUILTIN... [--path P] [--checkpoint]}: the HDFS
 * half of removing Strata (INSTALL.md, Rollback, step 3), run while the NameNode still has the
 * overlay. It gives every directory and file under P that carries a configured policy (one the
 * overlay adds, such as {@code RAM_SSD}) or an id that nothing defines any more a built-in policy,
 * moves their blocks with HDFS's own Mover, checks every replica's storage type, and with
 * {@code --checkpoint} saves the namespace, so that a NameNode without the overlay never meets
 * such an id: neither in an inode nor in an edit it replays.
 *
 * <p>Nothing is changed before the whole plan is known: each id found needs a {@code --map}
 * (by name, or by number for an id already undefined) to a built-in policy, else the command
 * names the ids and changes nothing. Exit status: 0 done; 1 policies reassigned but some blocks
 * not (yet) on their policy's types, or an entry left carrying a retiring id; 2 usage error or
 * a refusal before any change.
 */
public final class PolicyRollback {

  private final DistributedFileSystem fs;
  private final Configuration conf;
  private final PrintStream out;
  /** Retiring id to the built-in policy it becomes. */
  private final Map<Byte, BlockStoragePolicy> plan = new TreeMap<>();
  /** Retiring ids to their names (configured policies; undefined ids have none). */
  private final Map<Byte, String> retiring = new TreeMap<>();

  PolicyRollback(DistributedFileSystem fs, Configuration conf, PrintStream out) {
    this.fs = fs;
    this.conf = conf;
    this.out = out;
  }

  /**
   * Runs the rollback; returns the exit code: 0 done, 1 policies reassigned but some blocks not
   * (yet) on their policy's types, 2 bad input or a refusal before any change.
   *
   * @param hdfs       the NameNode, or null for fs.defaultFS
   * @param maps       FROM=BUILTIN mappings, one per retiring policy or undefined id; null: none
   * @param path       where to look
   * @param dryRun     print the plan and change nothing
   * @param move       move the blocks (false: reassign the policies only)
   * @param checkpoint save the namespace at the end
   * @param timeoutMs  how long to wait for the blocks to reach their types
   */
  public static int rollback(Configuration conf, URI hdfs, List<String> maps, String path,
    boolean dryRun, boolean move, boolean checkpoint, long timeoutMs, PrintStream out,
    PrintStream err) throws Exception {
    if (hdfs != null) {
      conf.set(CommonConfigurationKeysPublic.FS_DEFAULT_NAME_KEY, hdfs.toString());
    }
    FileSystem f = FileSystem.get(conf);
    if (!(f instanceof DistributedFileSystem)) {
      err.println("strata rollback-policies: " + f.getUri() + " is not HDFS; give --hdfs "
        + "hdfs://HOST:PORT");
      return 2;
    }
    PolicyRollback r = new PolicyRollback((DistributedFileSystem) f, conf, out);
    String refusal = r.planFor(maps == null ? null : maps.toArray(new String[0]));
    if (refusal != null) {
      err.println("strata rollback-policies: " + refusal);
      return 2;
    }
    Path root = new Path(path);
    Map<Path, Byte> found = r.find(root);
    Set<Byte> unmapped = new LinkedHashSet<>(found.values());
    unmapped.removeAll(r.plan.keySet());
    if (!unmapped.isEmpty()) {
      err.println("strata rollback-policies: entries under " + root + " carry "
        + r.describe(unmapped) + " and no --map names " + (unmapped.size() == 1 ? "it" : "them")
        + ": give --map FROM=BUILTIN for each (built-in: " + builtInNames() + "); nothing "
        + "was changed");
      return 2;
    }
    r.printPlan(root, found);
    if (dryRun) {
      out.println("dry run: nothing changed");
      return 0;
    }
    try {
      return r.execute(root, found, move, checkpoint, timeoutMs);
    } catch (IOException e) {
      err.println("strata rollback-policies: " + e.getMessage());
      return 1;
    }
  }

  /** Reads the --map values against the NameNode's policies; a refusal, or null. */
  String planFor(String[] maps) throws IOException {
    Map<String, BlockStoragePolicy> builtIn = new HashMap<>();
    Set<Byte> builtInIds = new HashSet<>();
    for (BlockStoragePolicy p : BlockStoragePolicySuite.createDefaultSuite().getAllPolicies()) {
      builtIn.put(p.getName(), p);
      builtInIds.add(p.getId());
    }
    Map<String, Byte> configured = new LinkedHashMap<>();
    for (BlockStoragePolicy p : fs.getStoragePolicies()) {
      if (!builtInIds.contains(p.getId())) {
        configured.put(p.getName(), p.getId());
        retiring.put(p.getId(), p.getName());
      }
    }
    if (maps == null) {
      return null;
    }
    for (String m : maps) {
      int eq = m.indexOf('=');
      if (eq <= 0 || eq == m.length() - 1) {
        return "--map " + m + ": expected FROM=BUILTIN, e.g. RAM_SSD=ONE_SSD";
      }
      String from = m.substring(0, eq).trim();
      String to = m.substring(eq + 1).trim().toUpperCase(Locale.ROOT);
      BlockStoragePolicy target = builtIn.get(to);
      if (target == null) {
        return "--map " + m + ": " + to + " is not a built-in storage policy (" + builtInNames()
          + "); the target must be one a NameNode without the overlay knows";
      }
      byte id;
      if (configured.containsKey(from)) {
        id = configured.get(from);
      } else if (from.matches("\\d{1,3}") && Integer.parseInt(from) < 128) {
        id = (byte) Integer.parseInt(from);
        if (builtInIds.contains(id)) {
          return "--map " + m + ": id " + id + " is a built-in policy's; only configured "
            + "policies and undefined ids are retired";
        }
      } else if (builtIn.containsKey(from.toUpperCase(Locale.ROOT))) {
        return "--map " + m + ": " + from + " is a built-in policy; only configured policies "
          + "(" + configured.keySet() + ") and undefined ids are retired";
      } else {
        return "--map " + m + ": " + from + " is neither a configured policy of " + fs.getUri()
          + " (" + configured.keySet() + ") nor an id";
      }
      plan.put(id, target);
    }
    return null;
  }

  /** Every entry under root carrying a retiring or undefined id: directories where set, files. */
  Map<Path, Byte> find(Path root) throws IOException {
    UndefinedPolicyFiles scan = new UndefinedPolicyFiles(fs, new HashSet<>(retiring.values()));
    Map<Path, Byte> found = new LinkedHashMap<>();
    scan.scan(root, (st, id) -> found.put(Path.getPathWithoutSchemeAndAuthority(st.getPath()),
      id));
    return found;
  }

  private String describe(Set<Byte> ids) {
    List<String> s = new ArrayList<>();
    for (byte id : ids) {
      s.add(retiring.containsKey(id) ? retiring.get(id) + " (id " + id + ")"
        : "id " + id + " (defined by no policy)");
    }
    return String.join(", ", s);
  }

  private void printPlan(Path root, Map<Path, Byte> found) {
    Map<Byte, Integer> count = new TreeMap<>();
    found.values().forEach(id -> count.merge(id, 1, Integer::sum));
    if (found.isEmpty()) {
      out.println("nothing under " + root + " carries a configured policy "
        + retiring.values() + " or an undefined id");
    }
    count.forEach((id, n) -> out.printf("%s -> %s: %d entr%s under %s%n",
      describe(Set.of(id)), plan.get(id).getName(), n, n == 1 ? "y" : "ies", root));
  }

  /**
   * Sets the built-in policies (directories first, then whatever still carries a retiring id:
   * files with their own policy, directories below), moves the blocks, verifies, checkpoints.
   */
  int execute(Path root, Map<Path, Byte> found, boolean move, boolean checkpoint, long timeoutMs)
    throws Exception {
    Set<Path> changed = new LinkedHashSet<>();
    Map<Path, Byte> pending = found;
    for (int round = 0; round < 3 && !pending.isEmpty(); round++) {
      for (Map.Entry<Path, Byte> e : pending.entrySet()) {
        boolean dir = fs.getFileStatus(e.getKey()).isDirectory();
        // First round: where a directory sets the id, its files inherit; later rounds: the rest.
        if (round > 0 || dir) {
          String to = plan.get(e.getValue()).getName();
          fs.setStoragePolicy(e.getKey(), to);
          changed.add(e.getKey());
          out.printf("set %s on %s %s (was %s)%n", to, dir ? "dir" : "file", e.getKey(),
            describe(Set.of(e.getValue())));
        }
      }
      pending = find(root);
    }
    if (!pending.isEmpty()) {
      out.println("still carrying a retiring id after three rounds (written meanwhile? HBase "
        + "must no longer set these policies): " + pending.keySet());
      return 1;
    }
    out.println("policies: every entry under " + root + " carries a built-in policy ("
      + changed.size() + " set)");
    int status = 0;
    if (move && !changed.isEmpty()) {
      status = moveAndVerify(new ArrayList<>(changed), timeoutMs);
    }
    if (checkpoint) {
      checkpoint();
    } else {
      out.println("not checkpointed: before starting a NameNode without the overlay, run "
        + "`hdfs dfsadmin -safemode enter`, `hdfs dfsadmin -saveNamespace`, `hdfs dfsadmin "
        + "-safemode leave` (or this command with --checkpoint)");
    }
    return status;
  }

  private int moveAndVerify(List<Path> paths, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    List<String> args = new ArrayList<>();
    args.add("-p");
    for (Path p : paths) {
      args.add(fs.makeQualified(p).toString());
    }
    for (int attempt = 1;; attempt++) {
      if (attempt == 2) {
        // Each Mover run registers its metrics sources again; outside this mode the second
        // registration of the same name throws.
        DefaultMetricsSystem.setMiniClusterMode(true);
      }
      out.println("moving the blocks of " + paths.size() + " entr" + (paths.size() == 1 ? "y"
        : "ies") + " with HDFS's Mover (attempt " + attempt + ")");
      int rc = ToolRunner.run(new Configuration(conf), new Mover.Cli(),
        args.toArray(new String[0]));
      List<String> misplaced = misplaced(paths);
      if (misplaced.isEmpty()) {
        out.println("blocks: every replica under the changed entries is on its policy's types");
        return 0;
      }
      if (System.currentTimeMillis() > deadline) {
        out.println("blocks: " + misplaced.size() + " block(s) not on their policy's types after "
          + TimeUnit.MILLISECONDS.toSeconds(timeoutMs) + " s (the Mover's exit status " + rc
          + "; is bin/satisfier stopped? enough volumes of each type?); the policies are set, "
          + "the data is readable; move them later with `hdfs mover -p PATH`. First ones: "
          + misplaced.subList(0, Math.min(10, misplaced.size())));
        return 1;
      }
      Thread.sleep(3000);
    }
  }

  /** Blocks with a replica on a type their file's policy does not ask for (complete blocks). */
  List<String> misplaced(List<Path> paths) throws IOException {
    List<String> bad = new ArrayList<>();
    Map<Byte, BlockStoragePolicy> byId = new HashMap<>();
    for (BlockStoragePolicy p : fs.getStoragePolicies()) {
      byId.put(p.getId(), p);
    }
    for (Path p : paths) {
      FileStatus st = fs.getFileStatus(p);
      if (st.isDirectory()) {
        RemoteIterator<FileStatus> it = fs.listStatusIterator(p);
        List<Path> below = new ArrayList<>();
        while (it.hasNext()) {
          below.add(it.next().getPath());
        }
        bad.addAll(misplaced(below));
        continue;
      }
      BlockStoragePolicy policy = byId.get(((HdfsFileStatus) st).getStoragePolicy());
      String path = Path.getPathWithoutSchemeAndAuthority(p).toString();
      LocatedBlocks lbs = fs.getClient().getLocatedBlocks(path, 0, st.getLen());
      for (LocatedBlock b : lbs.getLocatedBlocks()) {
        if (b == lbs.getLastLocatedBlock() && !lbs.isLastBlockComplete()) {
          continue;
        }
        List<StorageType> want = new ArrayList<>(policy.chooseStorageTypes(st.getReplication()));
        for (StorageType t : b.getStorageTypes()) {
          if (!want.remove(t)) {
            bad.add(path + " " + b.getBlock().getBlockName() + " on " + t + " (" + policy.getName()
              + ")");
            break;
          }
        }
      }
    }
    return bad;
  }

  private void checkpoint() throws Exception {
    out.println("checkpoint: safe mode, save the namespace, leave safe mode");
    Configuration c = new Configuration(conf);
    c.set(CommonConfigurationKeysPublic.FS_DEFAULT_NAME_KEY, fs.getUri().toString());
    int rc = ToolRunner.run(c, new DFSAdmin(c), new String[] { "-safemode", "enter" });
    try {
      if (rc == 0) {
        rc = ToolRunner.run(c, new DFSAdmin(c), new String[] { "-saveNamespace" });
      }
    } finally {
      int leave = ToolRunner.run(c, new DFSAdmin(c), new String[] { "-safemode", "leave" });
      if (leave != 0) {
        throw new IOException("could not leave safe mode (hdfs dfsadmin -safemode leave, exit "
          + leave + "): leave it by hand");
      }
    }
    if (rc != 0) {
      throw new IOException("saving the namespace failed (exit " + rc + "); run `hdfs dfsadmin "
        + "-safemode enter`, `-saveNamespace`, `-safemode leave` by hand");
    }
    out.println("checkpoint: the namespace is saved; a NameNode without the overlay replays no "
      + "edit from before it");
  }

  private static String builtInNames() {
    List<String> names = new ArrayList<>();
    for (BlockStoragePolicy p : BlockStoragePolicySuite.createDefaultSuite().getAllPolicies()) {
      names.add(p.getName());
    }
    return String.join(", ", names);
  }
}
