package io.berthsched.berth.client;

/**
 * A watcher's handler threw on the decision at {@code revision}; {@link Watcher#run} stops with
 * it, whatever the error (a gRPC error from a call the handler made is not taken for a broken
 * watch stream). The checkpoint then holds that decision.
 */
public final class HandlerException extends BerthException {
  private static final long serialVersionUID = 1L;

  private final long revision;

  public HandlerException(long revision, Throwable cause) {
    super("handle decision " + revision + ": " + cause, cause);
    this.revision = revision;
  }

  public long revision() {
    return revision;
  }
}
