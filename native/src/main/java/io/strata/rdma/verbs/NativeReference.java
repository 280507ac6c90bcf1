package io.strata.rdma.verbs;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Owns one native handle (a pointer the JNI binding returned) and releases it exactly once: the
 * first {@link #close()} calls {@link #disposeInternal(long)}, every later one does nothing, from
 * any thread. Every handle of the verbs transport lives in one of these (the context in
 * {@link VerbsTransport}, each {@link VerbsListener}'s and each {@link VerbsEndpoint}'s), so that
 * no handle is freed twice or kept after its owner closed. What a subclass does with the handle
 * while it is open, and how its uses are kept apart from the release, is the owner's concern
 * (locks in the owners); {@link #handleOrThrow()} turns a use after close into an exception
 * instead of a call with a freed pointer. The handle itself is immutable; thread-safe.
 */
abstract class NativeReference implements AutoCloseable {
  /** The native pointer; never 0. */
  protected final long handle;
  private final AtomicBoolean owningHandle = new AtomicBoolean(true);

  NativeReference(long handle) {
    if (handle == 0) {
      throw new IllegalArgumentException("null native handle for " + getClass().getSimpleName());
    }
    this.handle = handle;
  }

  /** Whether the handle is still held: not yet released by {@link #close()}. */
  final boolean isOwningHandle() {
    return owningHandle.get();
  }

  /** The handle while it is held; after {@link #close()} an IllegalStateException naming it. */
  final long handleOrThrow() {
    if (!owningHandle.get()) {
      throw new IllegalStateException(this + " is closed");
    }
    return handle;
  }

  /** Releases the handle on the first call; later calls do nothing. */
  @Override
  public final void close() {
    if (owningHandle.compareAndSet(true, false)) {
      disposeInternal(handle);
    }
  }

  /** Frees {@code nativeHandle}; called once, by the first {@link #close()}. */
  protected abstract void disposeInternal(long nativeHandle);

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[0x" + Long.toHexString(handle) + "]";
  }
}
