package io.berthsched.berth.client;

import io.berthsched.berth.v1.ObjectRef;
import io.grpc.Status;

/**
 * One object Berth refused. {@code index} counts from the caller's first object; {@code code} is
 * INVALID_ARGUMENT (malformed), FAILED_PRECONDITION (refers to something missing, may succeed
 * later), NOT_FOUND or INTERNAL.
 */
public final class ObjectError {
  private final int index;
  private final ObjectRef ref;
  private final Status.Code code;
  private final String fieldPath;
  private final String message;

  public ObjectError(int index, ObjectRef ref, Status.Code code, String fieldPath, String message) {
    this.index = index;
    this.ref = ref;
    this.code = code;
    this.fieldPath = fieldPath;
    this.message = message;
  }

  /** Converts a wire berth.v1.ObjectError about the caller's object {@code index}. */
  static ObjectError of(int index, io.berthsched.berth.v1.ObjectError e) {
    return new ObjectError(index, e.getRef(), code(e), e.getFieldPath(), e.getMessage());
  }

  static Status.Code code(io.berthsched.berth.v1.ObjectError e) {
    return Status.fromCodeValue(e.getCodeValue()).getCode();
  }

  static boolean isNotFound(io.berthsched.berth.v1.ObjectError e) {
    return code(e) == Status.Code.NOT_FOUND;
  }

  public int index() {
    return index;
  }

  public ObjectRef ref() {
    return ref;
  }

  public Status.Code code() {
    return code;
  }

  public String fieldPath() {
    return fieldPath;
  }

  public String message() {
    return message;
  }

  @Override
  public String toString() {
    StringBuilder where = new StringBuilder("object ").append(index);
    if (!ref.getName().isEmpty()) {
      where.append(" (");
      if (!ref.getNamespace().isEmpty()) {
        where.append(ref.getNamespace()).append('/');
      }
      where.append(ref.getName()).append(')');
    }
    StringBuilder s = new StringBuilder(where).append(": ").append(code.name());
    if (!fieldPath.isEmpty()) {
      s.append(": ").append(fieldPath);
    }
    if (!message.isEmpty()) {
      s.append(": ").append(message);
    }
    return s.toString();
  }
}
