package io.strata.distribution;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The TCP sockets a process listens on, read from {@code /proc} (Linux): the process's socket
 * inodes ({@code /proc/PID/fd}) matched against the LISTEN rows of its network namespace's
 * {@code /proc/PID/net/tcp} and {@code tcp6}. Works in another network namespace too, and needs
 * no {@code ss} or {@code netstat}.
 */
final class ListeningSockets {
  private ListeningSockets() {
  }

  /** The local addresses process {@code pid} listens on (empty when it has exited). */
  static List<InetSocketAddress> of(long pid) throws IOException {
    Set<String> inodes = new HashSet<>();
    Path fds = Paths.get("/proc/" + pid + "/fd");
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(fds)) {
      for (Path fd : dir) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring(8, target.length() - 1));
          }
        } catch (IOException closedMeanwhile) {
          // A descriptor closed while listed: not a listener.
        }
      }
    } catch (java.nio.file.NoSuchFileException gone) {
      return List.of();
    }
    List<InetSocketAddress> out = new ArrayList<>();
    for (String table : new String[] {"tcp", "tcp6"}) {
      Path file = Paths.get("/proc/" + pid + "/net/" + table);
      if (!Files.exists(file)) {
        continue;
      }
      List<String> lines = Files.readAllLines(file);
      for (String line : lines.subList(1, lines.size())) {
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
        String[] f = line.trim().split("\\s+");
        if (f.length < 10 || !f[3].equals("0A") || !inodes.contains(f[9])) {
          continue;
        }
        String[] local = f[1].split(":");
        out.add(new InetSocketAddress(address(local[0]), Integer.parseInt(local[1], 16)));
      }
    }
    return out;
  }

  /** /proc's hex address: each 32-bit word in host (little-endian) byte order. */
  static InetAddress address(String hex) throws IOException {
    byte[] b = new byte[hex.length() / 2];
    for (int word = 0; word < b.length / 4; word++) {
      for (int i = 0; i < 4; i++) {
        int at = (word * 4 + 3 - i) * 2;
        b[word * 4 + i] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
      }
    }
    return InetAddress.getByAddress(b);
  }
}
