package io.berthsched.berth.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private static Duration ms(long n) {
    return Duration.ofMillis(n);
  }

  @Test
  void delayGrowsToItsCap() {
    record Case(String name, Backoff b, int attempt, Duration want) {}
    List<Case> cases = List.of(
        new Case("first attempt waits nothing", Backoff.DEFAULT, 0, Duration.ZERO),
        new Case("second waits initial", Backoff.DEFAULT, 1, ms(100)),
        new Case("then doubles", Backoff.DEFAULT, 2, ms(200)),
        new Case("and doubles", Backoff.DEFAULT, 4, ms(800)),
        new Case("capped at max", Backoff.DEFAULT, 9, Duration.ofSeconds(10)),
        new Case("no overflow after many", Backoff.DEFAULT, 100_000, Duration.ofSeconds(10)),
        new Case("no initial: no wait", new Backoff(Duration.ZERO, ms(10), 2), 5, Duration.ZERO),
        new Case("factor below 1 counts as 1", new Backoff(ms(50), ms(1000), 0.5), 6, ms(50)),
        new Case("capped at the leader poll", Backoff.DEFAULT.cappedAt(Duration.ofSeconds(1)), 9,
            Duration.ofSeconds(1)));
    for (Case c : cases) {
      assertEquals(c.want, c.b.delay(c.attempt), c.name);
    }
  }
}
