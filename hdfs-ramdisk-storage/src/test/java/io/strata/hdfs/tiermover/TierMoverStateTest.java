package io.strata.hdfs.tiermover;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** The tier mover's state file: what it survives, and what it refuses with a way back. */
public class TierMoverStateTest {
  private static Path saved() throws IOException {
    Path file = Files.createTempDirectory("tm-state").resolve("state");
    List<TierMoverState.Pending> pending = new ArrayList<>();
    pending.add(new TierMoverState.Pending("/hbase/archive/data/default/t/r/d/f 1", 41, false,
      null));
    pending.add(new TierMoverState.Pending("/hbase/oldWALs", 40, true, "wal.7"));
    new TierMoverState(42, pending).save(file);
    return file;
  }

  @Test
  public void aSavedStateLoadsBack() throws IOException {
    TierMoverState s = TierMoverState.load(saved());
    assertEquals(42, s.txid());
    assertEquals(2, s.pending().size());
    assertEquals("/hbase/archive/data/default/t/r/d/f 1", s.pending().get(0).path());
    assertEquals("wal.7", s.pending().get(1).cursor());
  }

  @Test
  public void noFileIsAFirstStartAndALeftOverTemporaryFileIsRemoved() throws IOException {
    Path file = Files.createTempDirectory("tm-state").resolve("state");
    Files.writeString(TierMoverState.temporaryFile(file), "txid 9\npend");
    assertEquals(TierMoverState.NO_TXID, TierMoverState.load(file).txid());
    assertFalse(Files.exists(TierMoverState.temporaryFile(file)));
  }

  @Test
  public void aTruncatedLineIsRefusedNamingTheFileTheLineAndTheWayBack() throws IOException {
    Path file = saved();
    String text = Files.readString(file);
    Files.writeString(file, text.substring(0, text.lastIndexOf(' ')));
    IOException e = assertThrows(IOException.class, () -> TierMoverState.load(file));
    assertTrue(e.getMessage(), e.getMessage().contains(file + " line 4 is malformed"));
    assertTrue(e.getMessage(), e.getMessage().contains("strata mover -p"));
  }

  @Test
  public void bytesThatAreNotTextAreRefusedNamingTheFile() throws IOException {
    Path file = saved();
    Files.write(file, new byte[] { 't', 'x', (byte) 0xC3, (byte) 0x28, '\n' });
    IOException e = assertThrows(IOException.class, () -> TierMoverState.load(file));
    assertTrue(e.getMessage(), e.getMessage().contains(file + " is not text"));
    assertTrue(e.getMessage(), e.getMessage().contains("Fix or remove it"));
  }

  @Test
  public void aBadNumberIsRefused() throws IOException {
    Path file = saved();
    Files.writeString(file, "# Strata tier mover state\ntxid forty\n", StandardCharsets.UTF_8);
    IOException e = assertThrows(IOException.class, () -> TierMoverState.load(file));
    assertTrue(e.getMessage(), e.getMessage().contains("line 2 is malformed"));
  }
}
