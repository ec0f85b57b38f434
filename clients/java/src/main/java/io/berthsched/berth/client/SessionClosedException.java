package io.berthsched.berth.client;

/** Thrown by {@link Session} calls made or still waiting when the session stops. */
public final class SessionClosedException extends BerthException {
  private static final long serialVersionUID = 1L;

  public SessionClosedException(String message, Throwable cause) {
    super(message, cause);
  }
}
