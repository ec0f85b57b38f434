package io.berthsched.berth.client;

import java.time.Duration;

/**
 * An eviction refused by a disruption budget (RESOURCE_EXHAUSTED, ErrorInfo reason
 * DISRUPTION_BUDGET): {@link #budget} names it (namespace/name), {@link #retryAfter} is the delay
 * berthd suggests before trying again. The cause is the gRPC error.
 */
public final class BudgetRefusedException extends BerthException {
  private static final long serialVersionUID = 1L;

  private final String budget;
  private final transient Duration retryAfter;

  public BudgetRefusedException(String message, String budget, Duration retryAfter, Throwable cause) {
    super(message, cause);
    this.budget = budget;
    this.retryAfter = retryAfter;
  }

  public String budget() {
    return budget;
  }

  /** Zero when berthd suggested no delay. */
  public Duration retryAfter() {
    return retryAfter;
  }
}
