package io.strata.bench.faults;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;
import java.util.Map;

/**
 * What {@code strata chaos} measured, as {@code results.json} holds it. The JSON field names are
 * the {@code @JsonProperty} names, kept as the campaign has always written them (the kept runs
 * under benchmarks/results/chaos, docs/cluster.md); {@link ChaosReport} renders the report from
 * this record. A part not measured is null and left out.
 */
public record ChaosResult(@JsonProperty("commit") String commit,
  @JsonProperty("date") String date, @JsonProperty("transport") String transport,
  @JsonProperty("emulation") String emulation, @JsonProperty("wal_policy") String walPolicy,
  @JsonProperty("wal_volatile_accepted") Boolean walVolatileAccepted,
  @JsonProperty("faults") List<Fault> faults,
  @JsonProperty("impatient_timeout_ms") Integer impatientTimeoutMs,
  @JsonProperty("markers") List<Marker> markers,
  @JsonProperty("acked_per_s") List<Long> ackedPerS, @JsonProperty("final") Final fin,
  @JsonProperty("final_verified") Boolean finalVerified,
  @JsonProperty("schedule") Schedule schedule,
  @JsonProperty("stopped") String stopped,
  @JsonProperty("all_recovered") Boolean allRecovered) {

  /** This result with {@code all_recovered} set from its faults and final pass. */
  ChaosResult withAllRecovered() {
    return new ChaosResult(commit, date, transport, emulation, walPolicy, walVolatileAccepted,
      faults, impatientTimeoutMs, markers, ackedPerS, fin, finalVerified, schedule, stopped,
      FaultCampaign.allRecovered(this));
  }

  /**
   * One fault: the ledger of its verification (acknowledged writes, those read back, ambiguous
   * ones and how they resolved, lost, duplicated, unreadable), its reads, the times until writes
   * resumed and placement converged (JSON null when they did not), throughput, the daemons not
   * back and what the fault did. A skipped fault has only its name, daemon and why; one whose
   * run failed has its ledger and {@code error}.
   */
  public record Fault(@JsonProperty("fault") String fault,
    @JsonProperty("daemon") String daemon, @JsonProperty("shows") String shows,
    @JsonProperty("skipped") Boolean skipped, @JsonProperty("skip_reason") String skipReason,
    @JsonProperty("acked_writes") Long ackedWrites, @JsonProperty("checked") Long checked,
    @JsonProperty("ambiguous") Long ambiguous,
    @JsonProperty("ambiguous_landed") Long ambiguousLanded,
    @JsonProperty("ambiguous_not_landed") Long ambiguousNotLanded,
    @JsonProperty("ambiguous_unresolved") Long ambiguousUnresolved,
    @JsonProperty("lost") Long lost, @JsonProperty("duplicated") Long duplicated,
    @JsonProperty("unreadable") Long unreadable,
    @JsonProperty("failed_calls") Long failedCalls,
    @JsonProperty("reads_checked") Long readsChecked,
    @JsonProperty("read_problems") Long readProblems,
    @JsonProperty("writes_resumed_s") Seconds writesResumedS,
    @JsonProperty("placement_converged_s") Seconds placementConvergedS,
    @JsonProperty("throughput_before") Double throughputBefore,
    @JsonProperty("throughput_during") Double throughputDuring,
    @JsonProperty("throughput_after") Double throughputAfter,
    @JsonProperty("daemons_not_back") List<String> daemonsNotBack,
    @JsonProperty("why_not_back") Map<String, String> whyNotBack,
    @JsonProperty("recovered") Boolean recovered,
    @JsonProperty("observed") Observed observed,
    @JsonProperty("problems") List<String> problems,
    @JsonProperty("error") String error) {

    /** A fault that ran has both times, JSON null when it did not get there; a skipped none. */
    public Fault {
      if (!Boolean.TRUE.equals(skipped)) {
        writesResumedS = writesResumedS == null ? Seconds.NOT : writesResumedS;
        placementConvergedS = placementConvergedS == null ? Seconds.NOT : placementConvergedS;
      }
    }

    /** A fault not run, and why. */
    static Fault skipped(String fault, String daemon, String shows, String why) {
      return new Fault(fault, daemon, shows, true, why, null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null, null, null, null, null, true,
        null, null, null);
    }

    /**
     * A fault whose run failed: the ledger of a verification after it ({@code v}; null when
     * that failed too: lost and duplicated -1, which no check takes for 0).
     */
    static Fault failed(String fault, long ackedWrites, Ledger.Verdict v, String error) {
      if (v == null) {
        return new Fault(fault, "", null, null, null, ackedWrites, null, null, null, null, null,
          -1L, -1L, null, null, null, null, null, null, null, null, null, null, null, false,
          null, null, error);
      }
      return new Fault(fault, "", null, null, null, v.acked(), v.checked(), v.ambiguous(),
        v.ambiguousLanded(), v.ambiguousNotLanded(), v.ambiguousUnresolved(), v.lost(),
        v.duplicated(), v.unreadable(), null, null, null, null, null, null, null, null, null,
        null, false, null, null, error);
    }

    boolean isSkipped() {
      return Boolean.TRUE.equals(skipped);
    }
  }

  /** When a fault was injected and repaired, in seconds of the run, for the plot. */
  public record Marker(@JsonProperty("fault") String fault, @JsonProperty("at_s") int atS,
    @JsonProperty("repaired_at_s") int repairedAtS) {
  }

  /**
   * The final pass: the load stopped, every write it recorded read back (the ledger, as a
   * fault's), the reads checked over the run; {@code error} when the pass failed.
   */
  public record Final(@JsonProperty("acked_writes") Long ackedWrites,
    @JsonProperty("checked") Long checked, @JsonProperty("ambiguous") Long ambiguous,
    @JsonProperty("ambiguous_landed") Long ambiguousLanded,
    @JsonProperty("ambiguous_not_landed") Long ambiguousNotLanded,
    @JsonProperty("ambiguous_unresolved") Long ambiguousUnresolved,
    @JsonProperty("lost") Long lost, @JsonProperty("duplicated") Long duplicated,
    @JsonProperty("unreadable") Long unreadable,
    @JsonProperty("problems") List<String> problems, @JsonProperty("error") String error,
    @JsonProperty("reads_checked") Long readsChecked,
    @JsonProperty("read_problems") Long readProblems) {

    /** The pass's ledger {@code v} (null when it failed with {@code error}). */
    static Final of(Ledger.Verdict v, String error, List<String> problems, long readsChecked,
      long readProblems) {
      if (v == null) {
        return new Final(null, null, null, null, null, null, null, null, null, problems, error,
          readsChecked, readProblems);
      }
      return new Final(v.acked(), v.checked(), v.ambiguous(), v.ambiguousLanded(),
        v.ambiguousNotLanded(), v.ambiguousUnresolved(), v.lost(), v.duplicated(),
        v.unreadable(), problems, error, readsChecked, readProblems);
    }
  }

  /** The faults in their order, the load before each, and the seed of a random schedule. */
  public record Schedule(@JsonProperty("random") boolean random,
    @JsonProperty("seed") Long seed, @JsonProperty("faults") List<String> faults,
    @JsonProperty("load_before_s") List<Integer> loadBeforeS) {
  }

  /**
   * What a fault did, as one JSON object: the fields of the parts it measured side by side
   * ({@link FlatParts}), each part absent when the fault does not measure it.
   */
  @JsonSerialize(using = FlatParts.Out.class)
  @JsonDeserialize(using = Observed.In.class)
  public record Observed(MidMove midMove, Storm storm, Alter alter, CloneCold cloneCold,
    HostFault host, Rpc rpc, SlowVolume slowVolume, RamTierFull ramTierFull, Volume volume,
    VolumeFull volumeFull, VolumeIoErrors volumeIoErrors, VolumeStall volumeStall, Undo undo,
    DataNodeSide dataNode, Recovery recovery) {
    static final Observed NONE = new Observed(null, null, null, null, null, null, null, null,
      null, null, null, null, null, null, null);

    /** These parts, each in the component of its type. */
    static Observed of(Object... parts) {
      Observed o = NONE;
      for (Object p : parts) {
        o = o.with(p);
      }
      return o;
    }

    /** This with {@code part} (null: unchanged) in the component of its type. */
    Observed with(Object part) {
      return part == null ? this : FlatParts.with(this, part);
    }

    boolean isEmpty() {
      return equals(NONE);
    }

    static final class In extends FlatParts.In<Observed> {
      In() {
        super(Observed.class);
      }
    }
  }

  /** {@code kill-satisfier-mid-move}: how far the move was when killed, and how it ended. */
  public record MidMove(@JsonProperty("move_bytes") Long moveBytes,
    @JsonProperty("caught_mid_move") Boolean caughtMidMove,
    @JsonProperty("moved_share_when_killed") Double movedShareWhenKilled,
    @JsonProperty("moved_share_after_kill") Double movedShareAfterKill,
    @JsonProperty("moved_files_in_place_s") Seconds movedFilesInPlaceS,
    @JsonProperty("moved_files_corrupted") Integer movedFilesCorrupted,
    @JsonProperty("moved_files_problems") List<String> movedFilesProblems,
    @JsonProperty("moved_files_still_marked") Integer movedFilesStillMarked) {
  }

  /** {@code region-storm} and {@code flush-compaction-storm}: operations done and refused. */
  public record Storm(@JsonProperty("regions_before") Integer regionsBefore,
    @JsonProperty("balancer_was_on") Boolean balancerWasOn,
    @JsonProperty("regions_after") Integer regionsAfter,
    @JsonProperty("operations_done") Map<String, Integer> operationsDone,
    @JsonProperty("operations_failed") Map<String, Integer> operationsFailed,
    @JsonProperty("first_error") Map<String, String> firstError) {
  }

  /** {@code alter-under-load}: the invalid value refused, the key altered and restored. */
  public record Alter(@JsonProperty("key") String key,
    @JsonProperty("value_before") String valueBefore,
    @JsonProperty("invalid_alter_refused") Boolean invalidAlterRefused,
    @JsonProperty("invalid_alter_error") String invalidAlterError,
    @JsonProperty("value_during") String valueDuring, @JsonProperty("alter_s") Double alterS,
    @JsonProperty("value_seen_during") String valueSeenDuring,
    @JsonProperty("restore_s") Double restoreS, @JsonProperty("restored") Boolean restored) {
  }

  /** {@code snapshot-clone-cold}: the snapshot's files archived, the clone's reads checked. */
  public record CloneCold(@JsonProperty("snapshot") String snapshot,
    @JsonProperty("acked_before_snapshot") Integer ackedBeforeSnapshot,
    @JsonProperty("snapshot_s") Double snapshotS,
    @JsonProperty("major_compaction_s") Double majorCompactionS,
    @JsonProperty("archive_placed_s") Double archivePlacedS,
    @JsonProperty("archived_files") Integer archivedFiles,
    @JsonProperty("archived_files_all_on_archive") Integer archivedFilesAllOnArchive,
    @JsonProperty("clone_s") Double cloneS, @JsonProperty("clone_checked") Long cloneChecked,
    @JsonProperty("clone_lost") Long cloneLost,
    @JsonProperty("clone_duplicated") Long cloneDuplicated,
    @JsonProperty("clone_unreadable") Long cloneUnreadable,
    @JsonProperty("clone_problems") List<String> cloneProblems,
    @JsonProperty("clone_verified") Boolean cloneVerified) {
  }

  /** {@code reboot-host} and {@code power-loss}: the hosts, the live WALs, what was wiped. */
  public record HostFault(@JsonProperty("wal_policy") String walPolicy,
    @JsonProperty("hosts") List<String> hosts, @JsonProperty("daemons") List<String> daemons,
    @JsonProperty("live_wals") Integer liveWals,
    @JsonProperty("wal_replicas_by_type") Map<String, Integer> walReplicasByType,
    @JsonProperty("wal_blocks") Integer walBlocks,
    @JsonProperty("wal_blocks_only_in_wiped_ram") Integer walBlocksOnlyInWipedRam,
    @JsonProperty("ram_wiped") Map<String, Wiped> ramWiped,
    @JsonProperty("datanode_block_report_after_s") Map<String, Seconds> blockReportAfterS,
    @JsonProperty("restarted_after_exit") Map<String, Integer> restartedAfterExit) {

    HostFault withRestarts(Map<String, Integer> restarts) {
      return new HostFault(walPolicy, hosts, daemons, liveWals, walReplicasByType, walBlocks,
        walBlocksOnlyInWipedRam, ramWiped, blockReportAfterS,
        restarts.isEmpty() ? null : restarts);
    }
  }

  /** What emptying one DataNode's RAM tier removed. */
  public record Wiped(@JsonProperty("files") int files,
    @JsonProperty("block_replicas") int blockReplicas, @JsonProperty("mb") long mb) {
  }

  /** {@code malformed-rpc}: the connections made, closed by the server, left open. */
  public record Rpc(@JsonProperty("rpc_address") String rpcAddress,
    @JsonProperty("connections") Long connections,
    @JsonProperty("closed_by_server") Long closedByServer,
    @JsonProperty("left_open_after_ms") Long leftOpenAfterMs,
    @JsonProperty("wait_ms") Integer waitMs, @JsonProperty("refused") Long refused,
    @JsonProperty("connections_per_kind") Map<String, Long> connectionsPerKind) {
  }

  /** {@code slow-volume}: the stall, and the blocks written to the volume and its peers. */
  public record SlowVolume(@JsonProperty("stalled_volume") String stalledVolume,
    @JsonProperty("stall_ms_per_op") Long stallMsPerOp, @JsonProperty("stall_s") Integer stallS,
    @JsonProperty("ssd_peers_on_datanode") Integer ssdPeersOnDatanode,
    @JsonProperty("blocks_on_stalled_before") Integer blocksOnStalledBefore,
    @JsonProperty("blocks_on_peers_before") Integer blocksOnPeersBefore,
    @JsonProperty("blocks_on_stalled_during") Integer blocksOnStalledDuring,
    @JsonProperty("blocks_on_peers_during") Integer blocksOnPeersDuring,
    @JsonProperty("flushes_done_during") Integer flushesDoneDuring,
    @JsonProperty("longest_flush_ms") Long longestFlushMs) {
  }

  /** {@code ram-tier-full}: the fill, the NVDIMM space seen left, the WALs' blocks' types. */
  public record RamTierFull(
    @JsonProperty("nvdimm_remaining_seen_before_mb") Long nvdimmRemainingSeenBeforeMb,
    @JsonProperty("fill_files") Integer fillFiles,
    @JsonProperty("fill_on_nvdimm_mb") Long fillOnNvdimmMb,
    @JsonProperty("fill_stopped_at") String fillStoppedAt,
    @JsonProperty("fill_took_s") Long fillTookS,
    @JsonProperty("nvdimm_remaining_seen_full_mb") Long nvdimmRemainingSeenFullMb,
    @JsonProperty("roll_while_full") String rollWhileFull,
    @JsonProperty("wal_blocks_while_full") Map<String, Integer> walBlocksWhileFull,
    @JsonProperty("nvdimm_remaining_seen_freed_mb") Long nvdimmRemainingSeenFreedMb,
    @JsonProperty("roll_after_free") String rollAfterFree,
    @JsonProperty("wal_blocks_after_free") Map<String, Integer> walBlocksAfterFree) {
  }

  /** The loop volume a block-layer fault acts on. */
  public record Volume(@JsonProperty("volume") String volume,
    @JsonProperty("device") String device) {
  }

  /** {@code volume-full}: free space as the file system and the NameNode saw it. */
  public record VolumeFull(@JsonProperty("fs_free_before_bytes") Long fsFreeBeforeBytes,
    @JsonProperty("namenode_ssd_remaining_before_bytes") Long nnSsdRemainingBeforeBytes,
    @JsonProperty("filler_bytes") Long fillerBytes,
    @JsonProperty("fs_free_full_bytes") Long fsFreeFullBytes,
    @JsonProperty("namenode_saw_full_s") Double namenodeSawFullS,
    @JsonProperty("namenode_ssd_remaining_full_bytes") Long nnSsdRemainingFullBytes,
    @JsonProperty("fs_free_end_of_hold_bytes") Long fsFreeEndOfHoldBytes,
    @JsonProperty("blocks_written_while_full") Map<String, Integer> blocksWrittenWhileFull,
    @JsonProperty("fs_free_after_bytes") Long fsFreeAfterBytes,
    @JsonProperty("namenode_ssd_remaining_after_bytes") Long nnSsdRemainingAfterBytes,
    @JsonProperty("datanode_volume_failure_lines") Integer datanodeVolumeFailureLines) {
  }

  /** {@code volume-io-errors}: the error, its detection, re-replication and the repair. */
  public record VolumeIoErrors(@JsonProperty("mount_options_before") String mountOptionsBefore,
    @JsonProperty("remounted_errors_remount_ro") Boolean remountedErrorsRemountRo,
    @JsonProperty("low_redundancy_blocks_before") Long lowRedundancyBlocksBefore,
    @JsonProperty("mount_options_after_error") String mountOptionsAfterError,
    @JsonProperty("read_only_after_error") Boolean readOnlyAfterError,
    @JsonProperty("failed_volume_seen_by_namenode_s") Double failedVolumeSeenByNamenodeS,
    @JsonProperty("datanode_alive_after_failure") Boolean datanodeAliveAfterFailure,
    @JsonProperty("low_redundancy_blocks_max_seen") Long lowRedundancyBlocksMaxSeen,
    @JsonProperty("rereplicated_s") Double rereplicatedS,
    @JsonProperty("e2fsck_exit") Integer e2fsckExit,
    @JsonProperty("mount_options_repaired") String mountOptionsRepaired,
    @JsonProperty("ssd_volume_back_after_restart_s") Double ssdVolumeBackAfterRestartS) {
  }

  /** {@code volume-stall}: the throttles, the blocks written, the DataNode's threads in D. */
  public record VolumeStall(@JsonProperty("throttle_before") Map<String, Long> throttleBefore,
    @JsonProperty("blocks_written_while_stalled") Map<String, Integer> blocksWhileStalled,
    @JsonProperty("throttle_restored") Map<String, Long> throttleRestored,
    @JsonProperty("datanode_pid") Long datanodePid,
    @JsonProperty("d_state_samples") Integer dStateSamples,
    @JsonProperty("d_state_samples_with_any") Integer dStateSamplesWithAny,
    @JsonProperty("d_state_threads_max_at_once") Integer dStateThreadsMaxAtOnce,
    @JsonProperty("d_state_thread_names") List<String> dStateThreadNames,
    @JsonProperty("d_state_threads_after_restore") Integer dStateThreadsAfterRestore) {
  }

  /** The undo of a volume fault: store files off their policy handed to the satisfier. */
  public record Undo(
    @JsonProperty("off_policy_store_files_after_undo") Integer offPolicyStoreFilesAfterUndo,
    @JsonProperty("satisfier_asked_files") Integer satisfierAskedFiles) {
  }

  /**
   * What the DataNode side of a volume or tier fault did: the flushes made meanwhile, whether
   * the latency-aware chooser excluded the volume, whether the fault had its effect, and the
   * DataNode's log lines about the volume.
   */
  public record DataNodeSide(@JsonProperty("flushes_done") Integer flushesDone,
    @JsonProperty("chooser_excluded_volume") Boolean chooserExcludedVolume,
    @JsonProperty("fault_effect_seen") Boolean faultEffectSeen,
    @JsonProperty("datanode_log") List<String> datanodeLog) {
  }

  /**
   * How the cluster came back: the server that held hbase:meta (killed), the regions served
   * while a RegionServer was lost, the time until no region was in transition after a storm,
   * and until a restarted satisfier started.
   */
  public record Recovery(@JsonProperty("meta_server") String metaServer,
    @JsonProperty("regions_served_without_it") Boolean regionsServedWithoutIt,
    @JsonProperty("regions_in_transition_cleared_s") Seconds regionsInTransitionClearedS,
    @JsonProperty("satisfier_started_after_restart_s") Seconds satisfierStartedS) {
  }
}
