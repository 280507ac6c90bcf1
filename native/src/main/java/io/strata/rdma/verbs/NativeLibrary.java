package io.strata.rdma.verbs;

import io.strata.rdma.transport.TransportUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads {@code libstrata_rdma.so} once per JVM: from the path in
 * {@value VerbsKeys#NATIVE_LIBRARY} when set, otherwise from this jar's
 * {@code native/linux-x86_64/} (copied to a temporary file that is deleted as soon as it is
 * loaded). A failure is remembered and reported the same way every time, naming what is missing.
 * Thread-safe (one lock; loading happens once).
 */
final class NativeLibrary {
  static final String RESOURCE = "/native/linux-x86_64/libstrata_rdma.so";
  private static final String RUNTIME_PACKAGES =
      "apt-get install libibverbs1 librdmacm1 ibverbs-providers";

  private static boolean loaded;
  private static String failure;

  private NativeLibrary() {
  }

  static synchronized void load(String path) throws TransportUnavailableException {
    if (loaded) {
      return;
    }
    if (failure != null) {
      throw new TransportUnavailableException(failure);
    }
    try {
      loadOnce(path);
      loaded = true;
    } catch (TransportUnavailableException e) {
      failure = e.getMessage();
      throw e;
    }
  }

  private static void loadOnce(String path) throws TransportUnavailableException {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "");
    if (path != null && !path.isEmpty()) {
      loadFile(Path.of(path), path + " (" + VerbsKeys.NATIVE_LIBRARY + ")");
      return;
    }
    if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw new TransportUnavailableException("no native RDMA library for " + os + "/" + arch
          + ": the verbs transport is built for Linux x86-64");
    }
    Path tmp = null;
    try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new TransportUnavailableException("the native RDMA library " + RESOURCE
            + " is not on the classpath (a strata-native jar built without its CMake build?); set "
            + VerbsKeys.NATIVE_LIBRARY + " to a libstrata_rdma.so");
      }
      tmp = Files.createTempFile("libstrata_rdma-", ".so");
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      loadFile(tmp, RESOURCE + " (copied to " + tmp + ")");
    } catch (IOException e) {
      throw new TransportUnavailableException("cannot copy the native RDMA library to "
          + System.getProperty("java.io.tmpdir") + ": " + e.getMessage() + "; set "
          + VerbsKeys.NATIVE_LIBRARY + " to a libstrata_rdma.so", e);
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp); // the loaded mapping stays valid
        } catch (IOException ignored) {
          tmp.toFile().deleteOnExit();
        }
      }
    }
  }

  private static void loadFile(Path file, String what) throws TransportUnavailableException {
    try {
      System.load(file.toAbsolutePath().toString());
    } catch (UnsatisfiedLinkError e) {
      String msg = String.valueOf(e.getMessage());
      String hint = msg.contains("libibverbs") || msg.contains("librdmacm")
          ? "rdma-core's runtime libraries are missing (" + RUNTIME_PACKAGES + ")"
          : "noexec temporary directory? set " + VerbsKeys.NATIVE_LIBRARY + " or -Djava.io.tmpdir";
      throw new TransportUnavailableException(
          "cannot load the native RDMA library " + what + ": " + msg + "; " + hint, e);
    }
  }
}
