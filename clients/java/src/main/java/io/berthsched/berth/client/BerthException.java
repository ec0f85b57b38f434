package io.berthsched.berth.client;

/** The base of the client's own errors; gRPC failures arrive as {@code StatusRuntimeException}. */
public class BerthException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BerthException(String message) {
    super(message);
  }

  public BerthException(String message, Throwable cause) {
    super(message, cause);
  }
}
