package io.strata.hdfs.tiermover;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hdfs.inotify.Event;
import org.apache.hadoop.hdfs.inotify.EventBatch;
import org.apache.hadoop.hdfs.inotify.MissingEventsException;
import org.junit.Test;

/** The tier mover's pure logic: reading rounds around a gap, listing positions, the state file. */
public class TierMoverLogicTest {

  /** Batches, or a gap, in the order a NameNode's inotify stream would hand them out. */
  private static final class Scripted implements RenameFollower.EventSource {
    private final Deque<Object> script = new ArrayDeque<>();

    Scripted batch(long txid) {
      script.add(new EventBatch(txid, new Event[] { new Event.RenameEvent.Builder()
        .srcPath("/a" + txid).dstPath("/b" + txid).timestamp(txid).build() }));
      return this;
    }

    Scripted gap(long expected, long actual) {
      script.add(new MissingEventsException(expected, actual));
      return this;
    }

    @Override
    public EventBatch poll(long time, TimeUnit unit) throws MissingEventsException {
      return poll();
    }

    @Override
    public EventBatch poll() throws MissingEventsException {
      Object next = script.poll();
      if (next instanceof MissingEventsException) {
        throw (MissingEventsException) next;
      }
      return (EventBatch) next;
    }

    @Override
    public long txidsBehind() {
      return 0;
    }
  }

  @Test
  public void batchesReadBeforeAGapInTheSameRoundAreTakenIn() throws Exception {
    Scripted s = new Scripted().batch(10).batch(11).batch(12).gap(13, 20).batch(20);
    List<Long> taken = new ArrayList<>();
    List<MissingEventsException> gaps = new ArrayList<>();
    int n = RenameFollower.readRound(s, 1_000, () -> true, b -> taken.add(b.getTxid()), gaps::add);
    assertEquals(3, n);
    assertEquals(List.of(10L, 11L, 12L), taken);
    assertEquals(1, gaps.size());
    assertEquals(13, gaps.get(0).getExpectedTxid());
    assertEquals(20, gaps.get(0).getActualTxid());
    // The stream goes on after the gap.
    RenameFollower.readRound(s, 1_000, () -> true, b -> taken.add(b.getTxid()), gaps::add);
    assertEquals(List.of(10L, 11L, 12L, 20L), taken);
  }

  @Test
  public void aRoundStopsWhenTheQueueIsFull() throws Exception {
    Scripted s = new Scripted().batch(1).batch(2).batch(3);
    List<Long> taken = new ArrayList<>();
    RenameFollower.readRound(s, 1_000, () -> taken.size() < 2, b -> taken.add(b.getTxid()),
      g -> { });
    assertEquals(List.of(1L, 2L), taken);
  }

  private static List<String> frames(Deque<PendingChecks.Frame> frames) {
    List<String> out = new ArrayList<>();
    frames.descendingIterator().forEachRemaining(f -> out.add(f.dir + "@"
      + new String(f.after, StandardCharsets.UTF_8)));
    return out;
  }

  @Test
  public void aListingResumesAfterItsCursor() {
    assertEquals(List.of("/ssd/d@"), frames(PendingChecks.framesAt("/ssd/d", null)));
    assertEquals(List.of("/ssd/d@sub1", "/ssd/d/sub1@x", "/ssd/d/sub1/x@f7"),
      frames(PendingChecks.framesAt("/ssd/d", "/ssd/d/sub1/x/f7")));
    assertEquals(List.of("/ssd/d@f"), frames(PendingChecks.framesAt("/ssd/d", "/ssd/d/f")));
    // A cursor outside the directory (it was renamed since) starts the listing over.
    assertEquals(List.of("/ssd/d@"), frames(PendingChecks.framesAt("/ssd/d", "/other/f")));
  }

  @Test
  public void stateRoundTripsFilesAndDirectoriesAndIgnoresAPartialSave() throws Exception {
    Path dir = Files.createTempDirectory("tier-mover-state");
    Path file = dir.resolve("state");
    List<TierMoverState.Pending> pending = List.of(
      new TierMoverState.Pending("/ssd/a b", 5, false, null),
      new TierMoverState.Pending("/ssd/d", 6, true, "/ssd/d/x/%y"),
      new TierMoverState.Pending("/ssd/e", 7, true, null));
    long bytes = new TierMoverState(42, pending).save(file);
    assertEquals(Files.size(file), bytes);
    assertFalse(Files.exists(TierMoverState.temporaryFile(file)));
    // What a crash in the middle of the next save leaves beside it.
    Files.writeString(TierMoverState.temporaryFile(file), "# Strata tier mover state\ntxid 99\n"
      + "pending 12");
    TierMoverState loaded = TierMoverState.load(file);
    assertEquals(42, loaded.txid());
    assertEquals(pending, loaded.pending());
    assertFalse(Files.exists(TierMoverState.temporaryFile(file)));
    assertNull(loaded.pending().get(0).cursor());
    assertTrue(Files.readString(file).contains("dir 6 "));
  }
}
