package io.berthsched.berth.client;

import static io.berthsched.berth.client.Fixtures.client;
import static io.berthsched.berth.client.Fixtures.name;
import static io.berthsched.berth.client.Fixtures.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouterTest {
  @Test
  void aFollowerSendsTheCallToTheLeaderItNames() throws Exception {
    try (FakeBerthd follower = new FakeBerthd(name("follower"));
        FakeBerthd leader = new FakeBerthd(name("leader"))) {
      follower.notLeader = leader.name;
      Fixtures.Sleeps sleeps = new Fixtures.Sleeps();
      try (Client c = client(follower.name).sleeper(sleeps).build()) {
        c.apply(node("n1"));
        assertEquals(leader.name, c.target(), "calls go to the leader now");
        assertEquals(1, leader.objects.size());
        assertEquals(List.of(), sleeps.slept, "the first redirect does not wait");
      }
    }
  }

  @Test
  void aRefusalNamingNoLeaderMovesToTheNextEndpoint() throws Exception {
    try (FakeBerthd a = new FakeBerthd(name("a")); FakeBerthd b = new FakeBerthd(name("b"))) {
      a.notLeader = "";
      try (Client c = client(a.name + "," + b.name).sleeper(new Fixtures.Sleeps()).build()) {
        c.apply(node("n1"));
        assertEquals(b.name, c.target());
        assertEquals(1, b.objects.size());
      }
    }
  }

  @Test
  void anUnreachableReplicaFailsOverToTheNext() throws Exception {
    try (FakeBerthd up = new FakeBerthd(name("up"))) {
      String down = name("down"); // no server by that name: UNAVAILABLE
      try (Client c = client(down + "," + up.name).build()) {
        c.apply(node("n1"));
        assertEquals(up.name, c.target());
      }
      try (Client c = client(down).build()) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.apply(node("n1")));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), "one endpoint: no failover");
      }
    }
  }

  @Test
  void redirectsAreCappedAndTheirWaitsPollForTheLeader() throws Exception {
    try (FakeBerthd a = new FakeBerthd(name("a")); FakeBerthd b = new FakeBerthd(name("b"))) {
      a.notLeader = "";
      b.notLeader = ""; // an election that never ends
      Fixtures.Sleeps sleeps = new Fixtures.Sleeps();
      try (Client c = Client.builder(a.name + "," + b.name)
          .channelBuilder(io.grpc.inprocess.InProcessChannelBuilder::forName).sleeper(sleeps).build()) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.apply(node("n1")));
        assertEquals(Errors.NOT_LEADER, Errors.errorReason(e));
        assertTrue(Errors.notLeader(e).isPresent());
        int calls;
        synchronized (a) {
          calls = a.authorizations.size();
        }
        synchronized (b) {
          calls += b.authorizations.size();
        }
        assertEquals(Router.MAX_REDIRECTS, calls);
        // The default backoff, 100ms doubling, capped at LEADER_POLL (1s) after NOT_LEADER; the
        // first redirect does not wait.
        List<Duration> want = new ArrayList<>(List.of(Duration.ofMillis(100), Duration.ofMillis(200),
            Duration.ofMillis(400), Duration.ofMillis(800)));
        while (want.size() < Router.MAX_REDIRECTS - 2) {
          want.add(Duration.ofSeconds(1));
        }
        assertEquals(want, sleeps.slept);
      }
    }
  }

  @Test
  void endpointsSplitOnCommas() {
    assertEquals(List.of("a:1", "b:2", "c:3"), Router.splitEndpoints(" a:1, b:2,,c:3 "));
  }
}
