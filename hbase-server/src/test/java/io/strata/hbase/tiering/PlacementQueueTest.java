package io.strata.hbase.tiering;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.ipc.StandbyException;
import org.apache.hadoop.security.AccessControlException;
import org.junit.Test;

/**
 * The placement queue's own logic, on a file system whose storage-policy calls are switched
 * between answering and failing: a file system that does not answer does not hold up another's
 * files, its files are placed once it answers, and every call is made on the queue's thread.
 */
public class PlacementQueueTest {

  /** Local file system whose storage-policy calls fail while {@link #down}; records each. */
  static final class SwitchedFs extends RawLocalFileSystem {
    volatile boolean down;
    final ConcurrentLinkedQueue<String> calls = new ConcurrentLinkedQueue<>();

    SwitchedFs(boolean down) throws IOException {
      this.down = down;
      initialize(getUri(), new Configuration());
    }

    private void call(String what, Path p) throws IOException {
      calls.add(what + " " + p.getName() + " " + Thread.currentThread().getName());
      if (down) {
        throw new ConnectException("NameNode unavailable (test): " + what + " " + p);
      }
    }

    @Override
    public void setStoragePolicy(Path src, String policyName) throws IOException {
      call("set", src);
    }

    @Override
    public void satisfyStoragePolicy(Path path) throws IOException {
      call("satisfy", path);
    }
  }

  @Test(timeout = 60_000)
  public void aSilentFileSystemDoesNotHoldUpAnothersFilesAndItsOwnArePlacedOnceItAnswers()
    throws Exception {
    PlacementQueue q = PlacementQueue.get();
    SwitchedFs silent = new SwitchedFs(true);
    SwitchedFs answering = new SwitchedFs(false);
    Path a = new Path("/test/silent/f/a1");
    Path b = new Path("/test/answering/f/b1");
    assertTrue(q.add(new PlacementQueue.Item(silent, a, "ALL_SSD", "flushed", 1, "store-a", "t")));
    assertTrue(q.add(new PlacementQueue.Item(answering, b, "ALL_SSD", "flushed", 1, "store-b",
      "t")));
    long deadline = System.currentTimeMillis() + 20_000;
    while (!q.waiting("store-b").isEmpty() && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    assertTrue("the answering file system's file was placed", q.waiting("store-b").isEmpty());
    assertEquals(List.of(a), q.waiting("store-a"));
    assertTrue(answering.calls.toString(), answering.calls.contains(
      "satisfy b1 " + PlacementQueue.THREAD_NAME));

    // The silent one waits longer and longer; a new file of the answering one does not wait.
    Thread.sleep(3_500);
    Path b2 = new Path("/test/answering/f/b2");
    long handedOver = System.currentTimeMillis();
    assertTrue(q.add(new PlacementQueue.Item(answering, b2, "ALL_SSD", "flushed", 1, "store-b",
      "t")));
    while (!q.waiting("store-b").isEmpty() && System.currentTimeMillis() < handedOver + 20_000) {
      Thread.sleep(20);
    }
    long waited = System.currentTimeMillis() - handedOver;
    assertTrue("placed without waiting for the silent file system's back-off: " + waited + " ms",
      q.waiting("store-b").isEmpty() && waited < 1_500);
    assertEquals(List.of(a), q.waiting("store-a"));

    silent.down = false;
    deadline = System.currentTimeMillis() + 30_000;
    while (!q.waiting("store-a").isEmpty() && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    assertTrue("placed once it answers", q.waiting("store-a").isEmpty());
    List<String> all = new ArrayList<>(silent.calls);
    all.addAll(answering.calls);
    for (String c : all) {
      assertTrue("every call on the queue's thread: " + c,
        c.endsWith(" " + PlacementQueue.THREAD_NAME));
    }
    assertEquals(0, q.restarts());
  }

  @Test
  public void tellsASilentNameNodeFromARefusal() {
    assertTrue(PlacementQueue.notAnswering(new ConnectException("refused")));
    assertTrue(PlacementQueue.notAnswering(new RemoteException(StandbyException.class.getName(),
      "Operation category WRITE is not supported in state standby")));
    assertFalse(PlacementQueue.notAnswering(new RemoteException(
      AccessControlException.class.getName(), "Permission denied")));
  }

  @Test
  public void namesAtMostTheFirstFiles() {
    List<Path> paths = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      paths.add(new Path("/f/" + i));
    }
    String s = PlacementQueue.names(paths, 20);
    assertTrue(s, s.startsWith("/f/0, /f/1, "));
    assertTrue(s, s.endsWith("/f/19 and 5 more"));
    assertEquals("/f/0", PlacementQueue.names(paths.subList(0, 1), 20));
  }

  @Test
  public void aLocalFileSystemIsNeverClosedForTheQueue() throws IOException {
    assertFalse(PlacementQueue.closed(new SwitchedFs(false)));
  }
}
