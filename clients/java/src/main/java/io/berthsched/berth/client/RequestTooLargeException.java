package io.berthsched.berth.client;

/**
 * berthd refused a request with RESOURCE_EXHAUSTED: more objects than its --max-batch-objects, or
 * more bytes than its message size limit. Not retried; lower the client's maxBatch.
 */
public final class RequestTooLargeException extends BerthException {
  private static final long serialVersionUID = 1L;

  public RequestTooLargeException(String message, Throwable cause) {
    super(message, cause);
  }
}
