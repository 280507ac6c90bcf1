package io.strata.rdma.verbs;

import io.strata.rdma.transport.RdmaTransportKeys;
import io.strata.rdma.transport.TransportConf;

/**
 * Configuration keys of the verbs transport alone, each with its default and one typed getter;
 * the keys it shares with the loopback transport (credits, eager threshold, message limit, poll
 * spin, send timeout) are in {@link RdmaTransportKeys}. Stateless; thread-safe.
 */
public final class VerbsKeys {
  private VerbsKeys() {
  }

  /**
   * RDMA device name, e.g. {@code mlx5_0} or {@code rxe0}. Default empty: the device rdma_cm
   * resolves for the bind/peer address.
   */
  public static final String DEVICE = "strata.rdma.device";
  public static final String DEVICE_DEFAULT = "";

  /**
   * Path of {@code libstrata_rdma.so} to load instead of the copy packaged in the strata-native
   * jar (which is extracted to {@code java.io.tmpdir} at load time). Default empty.
   */
  public static final String NATIVE_LIBRARY = "strata.rdma.native.library";
  public static final String NATIVE_LIBRARY_DEFAULT = "";

  /** {@link #DEVICE}, without surrounding blanks. */
  public static String device(TransportConf conf) {
    return RdmaTransportKeys.string(conf, DEVICE, DEVICE_DEFAULT).trim();
  }

  /** {@link #NATIVE_LIBRARY}: a path, or empty for the library packaged in the jar. */
  public static String nativeLibrary(TransportConf conf) {
    return RdmaTransportKeys.string(conf, NATIVE_LIBRARY, NATIVE_LIBRARY_DEFAULT);
  }
}
