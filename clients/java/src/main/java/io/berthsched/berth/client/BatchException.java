package io.berthsched.berth.client;

import java.util.List;
import java.util.stream.Collectors;

/** The objects of one call that Berth refused; the others took effect. */
public final class BatchException extends BerthException {
  private static final long serialVersionUID = 1L;

  private final int applied;
  private final transient List<ObjectError> errors;

  public BatchException(int applied, List<ObjectError> errors) {
    super(errors.size() + " object(s) refused: "
        + errors.stream().map(ObjectError::toString).collect(Collectors.joining("; ")));
    this.applied = applied;
    this.errors = List.copyOf(errors);
  }

  /** How many of the call's objects took effect. */
  public int applied() {
    return applied;
  }

  /** The refused objects, by index in the call. */
  public List<ObjectError> errors() {
    return errors;
  }
}
