package io.berthsched.berth.client;

import java.time.Duration;

/**
 * The exponential delay between reconnection attempts: {@code initial} after the first failure,
 * multiplied by {@code factor} after each further one, at most {@code max}. A connection that
 * worked resets it. The same as the Go client's {@code Backoff}.
 */
public final class Backoff {
  /** 100ms, then 200ms, ... up to 10s. */
  public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), 2);

  private final Duration initial;
  private final Duration max;
  private final double factor;

  public Backoff(Duration initial, Duration max, double factor) {
    this.initial = initial;
    this.max = max;
    this.factor = factor;
  }

  public Duration initial() {
    return initial;
  }

  public Duration max() {
    return max;
  }

  public double factor() {
    return factor;
  }

  /** This backoff with its longest wait at most {@code cap}. */
  public Backoff cappedAt(Duration cap) {
    if (!max.isZero() && !max.isNegative() && max.compareTo(cap) <= 0) {
      return this;
    }
    return new Backoff(initial, cap, factor);
  }

  /** The wait before attempt n (zero for the first attempt, 0, which does not wait). */
  public Duration delay(int attempt) {
    if (attempt <= 0 || initial.isZero() || initial.isNegative()) {
      return Duration.ZERO;
    }
    double maxNanos = max.toNanos();
    double d = initial.toNanos();
    // Multiplied step by step, not factor^n: that overflows after ~1000 attempts.
    for (int i = 1; i < attempt && d < maxNanos; i++) {
      d *= Math.max(factor, 1);
    }
    if (maxNanos > 0 && d > maxNanos) {
      return max;
    }
    return Duration.ofNanos((long) d);
  }
}
