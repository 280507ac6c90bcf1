package io.strata.rdma.transport;

import java.io.IOException;

/**
 * The transport cannot run on this machine (native library not loadable, no RDMA device, device
 * port down). The message says which, so the single fallback log line is actionable.
 */
public class TransportUnavailableException extends IOException {
  private static final long serialVersionUID = 1L;

  public TransportUnavailableException(String message) {
    super(message);
  }

  public TransportUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
