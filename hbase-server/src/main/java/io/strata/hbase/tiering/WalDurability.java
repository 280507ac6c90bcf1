package io.strata.hbase.tiering;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockStoragePolicySpi;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the storage policy of live WALs ({@code hbase.wal.storage.policy}, which also places
 * {@code recovered.edits} and the meta and master-region WALs) keeps acknowledged edits through
 * a reboot of the hosts holding a WAL block. HDFS treats NVDIMM as non-transient and never writes
 * those replicas to disk, but Strata's RAM tier is tmpfs: a policy with every replica there
 * loses every unflushed edit when those hosts reboot. A policy is durable when at least
 * {@value #MIN_NON_VOLATILE} of the replicas it places (judged at {@value #REPLICAS_JUDGED}
 * replicas, or the file system's replication if higher) are on non-volatile types. NVDIMM and
 * RAM_DISK are volatile unless {@link TieringKeys#RAM_TIER_PERSISTENT} is set. The storage types
 * are the NameNode's ({@link FileSystem#getAllStoragePolicies()}), so configured policies count
 * as defined. Stateless.
 */
public final class WalDurability {
  private static final Logger LOG = LoggerFactory.getLogger(WalDurability.class);

  /** Replicas a durable WAL policy keeps on non-volatile storage. */
  public static final int MIN_NON_VOLATILE = 2;

  /** The replication a policy is judged at: HDFS's default. */
  public static final int REPLICAS_JUDGED = 3;

  private WalDurability() {
  }

  /** Whether replicas on {@code type} are lost on reboot. */
  public static boolean isVolatile(StorageType type, boolean ramPersistent) {
    return !ramPersistent && (type == StorageType.NVDIMM || type == StorageType.RAM_DISK);
  }

  /**
   * The storage types of a block's {@code replicas} replicas under a policy of {@code types}, as
   * HDFS's {@code BlockStoragePolicy.chooseStorageTypes} lays them out: the listed types in order,
   * the last repeated for the others unless it is transient (RAM_DISK: the others get no type).
   */
  public static List<StorageType> replicaTypes(StorageType[] types, int replicas) {
    List<StorageType> out = new ArrayList<>();
    if (types.length == 0) {
      return out;
    }
    int i = 0;
    for (; i < replicas && i < types.length; i++) {
      out.add(types[i]);
    }
    StorageType last = types[types.length - 1];
    if (!last.isTransient()) {
      for (; i < replicas; i++) {
        out.add(last);
      }
    }
    return out;
  }

  /** The verdict on one policy. */
  public static final class Verdict {
    private final String policy;
    private final List<StorageType> replicas;
    private final int nonVolatile;

    Verdict(String policy, List<StorageType> replicas, int nonVolatile) {
      this.policy = policy;
      this.replicas = replicas;
      this.nonVolatile = nonVolatile;
    }

    public boolean durable() {
      return nonVolatile >= MIN_NON_VOLATILE;
    }

    public int nonVolatile() {
      return nonVolatile;
    }

    public List<StorageType> replicas() {
      return replicas;
    }

    /** E.g. "ALL_NVDIMM places replicas on [NVDIMM, NVDIMM, NVDIMM], 0 of them non-volatile". */
    public String describe() {
      return policy + " places replicas on " + replicas + ", " + nonVolatile
        + " of them on non-volatile storage";
    }
  }

  /** Pure logic: the verdict on a policy of {@code types} at {@code replicas} replicas. */
  public static Verdict judge(String policy, StorageType[] types, int replicas,
    boolean ramPersistent) {
    List<StorageType> placed = replicaTypes(types, Math.max(REPLICAS_JUDGED, replicas));
    int nonVolatile = 0;
    for (StorageType t : placed) {
      if (!isVolatile(t, ramPersistent)) {
        nonVolatile++;
      }
    }
    return new Verdict(policy, placed, nonVolatile);
  }

  /**
   * The refusal message for a volatile policy {@code verdict} set at {@code where} (e.g. "site
   * hbase.wal.storage.policy"): what, why and the keys that allow it.
   */
  public static String refusal(String where, Verdict verdict) {
    return where + ": " + verdict.describe() + "; live WALs and recovered.edits need at least "
      + MIN_NON_VOLATILE + " replicas on non-volatile storage, or acknowledged edits not yet "
      + "flushed are lost when the hosts holding a WAL's blocks reboot. Use a durable policy (e.g. "
      + TieringKeys.WAL_POLICY_DEFAULT + ": one RAM replica, two SSD), or set "
      + TieringKeys.RAM_TIER_PERSISTENT + "=true if the NVDIMM volumes are persistent memory "
      + "(NVDIMM/PMEM on a DAX mount, not tmpfs), or accept the loss with "
      + TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT + "=true";
  }

  /** The verdict on {@code policy} among {@code offered}, or null when HDFS does not offer it. */
  public static Verdict judge(String policy, Collection<? extends BlockStoragePolicySpi> offered,
    int replicas, boolean ramPersistent) {
    for (BlockStoragePolicySpi p : offered) {
      if (p.getName().equalsIgnoreCase(policy)) {
        return judge(p.getName(), p.getStorageTypes(), replicas, ramPersistent);
      }
    }
    return null;
  }

  /**
   * The NameNode did not say which storage types the policy has: the policy was not judged,
   * neither accepted nor refused. The caller checks again later.
   */
  public static final class Unanswered extends IOException {
    private static final long serialVersionUID = 1L;

    Unanswered(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Checks the server's {@code hbase.wal.storage.policy} against its WAL file system at start.
   * Throws, naming the keys, when the policy is volatile and neither
   * {@link TieringKeys#RAM_TIER_PERSISTENT} nor {@link TieringKeys#UNSAFE_WAL_VOLATILE_ACCEPT}
   * is set, or when HDFS does not offer it (HBase would log and leave the WALs on their parent's
   * policy); throws {@link Unanswered} when the NameNode cannot say; logs a warning at every
   * start when the risk is
   * accepted. {@code NONE} (upstream's default: WALs inherit their directory's policy) and file
   * systems without storage policies pass, logged.
   *
   * @param server what is starting, for the log, e.g. "RegionServer host,16020,..."
   */
  public static void enforce(Configuration conf, String server) throws IOException {
    String policy = conf.getTrimmed(HConstants.WAL_STORAGE_POLICY,
      HConstants.DEFAULT_WAL_STORAGE_POLICY);
    boolean ramPersistent;
    boolean accept;
    try {
      ramPersistent = TieringKeys.ramTierPersistent(conf);
      accept = TieringKeys.unsafeWalVolatileAccept(conf);
    } catch (IllegalArgumentException e) {
      throw new IOException(server + " refuses to start: " + e.getMessage(), e);
    }
    if (ramPersistent) {
      LOG.warn("{}: {}=true: NVDIMM and RAM_DISK volumes are taken as persistent memory. If they "
        + "are tmpfs or ramfs, WAL replicas on them are lost when their hosts reboot", server,
        TieringKeys.RAM_TIER_PERSISTENT);
    }
    if (policy.isEmpty() || HConstants.DEFAULT_WAL_STORAGE_POLICY.equalsIgnoreCase(policy)) {
      LOG.info("{}: {} is {}: live WALs take their directory's storage policy (not checked)",
        server, HConstants.WAL_STORAGE_POLICY, HConstants.DEFAULT_WAL_STORAGE_POLICY);
      return;
    }
    Path walRoot = CommonFSUtils.getWALRootDir(conf);
    FileSystem fs = walRoot.getFileSystem(conf);
    Collection<? extends BlockStoragePolicySpi> offered;
    try {
      offered = fs.getAllStoragePolicies();
    } catch (UnsupportedOperationException e) {
      LOG.info("{}: {} = {} not checked: {} has no storage policies", server,
        HConstants.WAL_STORAGE_POLICY, policy, fs.getUri());
      return;
    } catch (IOException e) {
      throw new Unanswered(server + ": " + HConstants.WAL_STORAGE_POLICY + " = " + policy
        + " cannot be checked yet: the NameNode of " + fs.getUri() + " did not answer "
        + "getAllStoragePolicies (" + e + ")", e);
    }
    int replicas = fs.getDefaultReplication(walRoot);
    Verdict v = judge(policy, offered, replicas, ramPersistent);
    String where = HConstants.WAL_STORAGE_POLICY + " = " + policy;
    if (v == null) {
      TreeSet<String> names = new TreeSet<>();
      for (BlockStoragePolicySpi p : offered) {
        names.add(p.getName().toUpperCase(Locale.ROOT));
      }
      throw new IOException(server + " refuses to start: " + where + " is not a storage policy "
        + "of " + fs.getUri() + " (valid: " + String.join(", ", names) + "); define it on the "
        + "NameNode (strata.storage.policies) or name another");
    }
    if (v.durable()) {
      LOG.info("{}: live WALs and recovered.edits on {}", server, v.describe());
      return;
    }
    if (accept) {
      LOG.warn("{}: {}=true: live WALs and recovered.edits on {}. Acknowledged edits not yet "
        + "flushed are lost when the hosts holding a WAL's blocks reboot", server,
        TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT, v.describe());
      return;
    }
    throw new IOException(server + " refuses to start: " + refusal(where, v));
  }
}
