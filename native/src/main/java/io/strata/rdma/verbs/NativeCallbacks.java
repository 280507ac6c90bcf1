package io.strata.rdma.verbs;

/**
 * What the native progress loop calls, on the transport's progress thread. Ids are the Java-side
 * ids given to listen/connect; handles are native endpoint pointers, used only to map the
 * endpoint's receive regions.
 */
interface NativeCallbacks {

  void onMessage(long endpointId, long endpointHandle, int region, int offset, int length);

  void onClose(long endpointId, String cause);

  /** Returns the new endpoint's id, or 0 to reject. */
  long onConnectRequest(long listenerId, long endpointHandle, String peerHost, int peerPort,
      byte[] privateData);

  void onEstablished(long endpointId, long endpointHandle);

  /**
   * The endpoint's queue pair and registered memory are destroyed (after its onClose: once the
   * connection manager's DISCONNECTED event came, the peer's answer to the disconnect request).
   */
  void onReleased(long endpointId);
}
