package io.berthsched.berth.client;

import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The replicas of a highly available berthd and which one calls go to: one channel per replica,
 * the endpoints given first, the leaders they named after. A NOT_LEADER refusal makes the leader
 * it names current (or the next endpoint when it names none); an UNAVAILABLE failure, with
 * several endpoints, the next endpoint. Unary calls are retried there; streams are not: Session
 * and Watcher reopen them, with backoff, and reach the new current endpoint. The same rules as
 * the Go client's router.
 */
final class Router {
  /**
   * How many NOT_LEADER answers one unary call follows: with the default backoff capped at
   * {@link #LEADER_POLL} the waits add up to about 26s, more than an election with berthd's
   * default lease TTL (10s) takes. Sessions and watchers retry for as long as they run.
   */
  static final int MAX_REDIRECTS = 30;

  /**
   * The longest wait before asking again after a NOT_LEADER answer: while an election goes on
   * the replicas are asked at least this often, so a write reaches the new leader soon after it
   * wins.
   */
  static final Duration LEADER_POLL = Duration.ofSeconds(1);

  /** What a failure did to the current endpoint. */
  enum Verdict { DONE, REDIRECT, FAILOVER }

  /** Waits between attempts; tests pass one that does not sleep. */
  interface Sleeper {
    void sleep(Duration d) throws InterruptedException;
  }

  static final class Endpoint {
    final String addr;
    final ManagedChannel channel;

    Endpoint(String addr, ManagedChannel channel) {
      this.addr = addr;
      this.channel = channel;
    }
  }

  private final Function<String, ManagedChannel> dial;
  private final Backoff backoff;
  private final Sleeper sleeper;

  private final Object lock = new Object(); // guards the fields below
  private final List<Endpoint> eps = new ArrayList<>();
  private int cur;

  Router(List<String> endpoints, Function<String, ManagedChannel> dial, Backoff backoff,
      Sleeper sleeper) {
    this.dial = dial;
    this.backoff = backoff;
    this.sleeper = sleeper;
    for (String addr : endpoints) {
      if (eps.stream().noneMatch(e -> e.addr.equals(addr))) {
        eps.add(new Endpoint(addr, dial.apply(addr)));
      }
    }
    if (eps.isEmpty()) {
      throw new IllegalArgumentException("berth: no endpoint to connect to");
    }
  }

  /** The endpoints of a comma-separated target: "a:7070,b:7070". */
  static List<String> splitEndpoints(String targets) {
    List<String> out = new ArrayList<>();
    for (String p : targets.split(",")) {
      if (!p.isBlank()) {
        out.add(p.strip());
      }
    }
    return out;
  }

  Endpoint current() {
    synchronized (lock) {
      return eps.get(cur);
    }
  }

  boolean several() {
    return size() > 1;
  }

  int size() {
    synchronized (lock) {
      return eps.size();
    }
  }

  /** The address calls go to now. */
  String target() {
    return current().addr;
  }

  /** The backoff before attempt, capped at LEADER_POLL after a NOT_LEADER answer. */
  Duration retryDelay(Throwable e, int attempt) {
    Backoff b = e != null && Errors.notLeader(e).isPresent() ? backoff.cappedAt(LEADER_POLL) : backoff;
    return b.delay(attempt);
  }

  /**
   * Moves the current endpoint after a call to ep failed with e; a failure of an endpoint that
   * is no longer current moves nothing.
   */
  Verdict observe(Endpoint ep, Throwable e) {
    Optional<String> leader = Errors.notLeader(e);
    synchronized (lock) {
      if (leader.isPresent()) {
        String l = leader.get();
        if (l.isEmpty() || l.equals(ep.addr) || !useLocked(l)) {
          advanceLocked(ep);
        }
        return Verdict.REDIRECT;
      }
      if (Errors.isGrpc(e) && Errors.code(e) == Status.Code.UNAVAILABLE && eps.size() > 1) {
        advanceLocked(ep);
        return Verdict.FAILOVER;
      }
    }
    return Verdict.DONE;
  }

  private boolean useLocked(String addr) {
    for (int i = 0; i < eps.size(); i++) {
      if (eps.get(i).addr.equals(addr)) {
        cur = i;
        return true;
      }
    }
    eps.add(new Endpoint(addr, dial.apply(addr))); // with the same credentials as the others
    cur = eps.size() - 1;
    return true;
  }

  private void advanceLocked(Endpoint ep) {
    if (eps.get(cur) == ep) {
      cur = (cur + 1) % eps.size();
    }
  }

  /** One attempt of a unary call on a channel. */
  interface UnaryCall<T> {
    T call(Channel channel, boolean several);
  }

  /**
   * Calls a unary method, following NOT_LEADER (at once the first time, then with backoff) and,
   * with several endpoints, going on to the next on UNAVAILABLE. It gives up after
   * MAX_REDIRECTS NOT_LEADER answers, or when every endpoint in a row could not be reached.
   * berth.v1's writes are idempotent, so a call that broke with the connection may be sent again.
   */
  <T> T unary(UnaryCall<T> call) {
    int redirects = 0;
    int unreachable = 0;
    while (true) {
      Endpoint ep = current();
      try {
        return call.call(ep.channel, several());
      } catch (RuntimeException e) {
        switch (observe(ep, e)) {
          case REDIRECT:
            redirects++;
            unreachable = 0;
            if (redirects >= MAX_REDIRECTS) {
              throw e;
            }
            sleep(retryDelay(e, redirects - 1));
            break;
          case FAILOVER:
            unreachable++;
            if (unreachable >= size()) {
              throw e;
            }
            break;
          default:
            throw e;
        }
      }
    }
  }

  private void sleep(Duration d) {
    if (d.isZero()) {
      return;
    }
    try {
      sleeper.sleep(d);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("berth: interrupted").withCause(ie).asRuntimeException();
    }
  }

  /**
   * Whether a stream that failed with e may be opened again without a backoff wait, and the new
   * count of such hops in a row (hops[0], updated): with several endpoints, one could not be
   * reached (UNAVAILABLE, not NOT_LEADER) and the router moved on, fewer times in a row than
   * there are endpoints. A replica that is down then costs no wait while the others elect; a
   * whole round unreachable backs off as one failure.
   */
  boolean hop(Throwable e, int[] hops) {
    if (e == null || Errors.notLeader(e).isPresent() || !Errors.isGrpc(e)
        || Errors.code(e) != Status.Code.UNAVAILABLE) {
      hops[0] = 0;
      return false;
    }
    hops[0]++;
    if (hops[0] >= size()) {
      hops[0] = 0;
      return false;
    }
    return true;
  }

  void close() {
    synchronized (lock) {
      for (Endpoint ep : eps) {
        ep.channel.shutdownNow();
      }
      for (Endpoint ep : eps) {
        try {
          ep.channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
