package io.berthsched.berth.client;

import static io.berthsched.berth.client.Fixtures.client;
import static io.berthsched.berth.client.Fixtures.name;
import static io.berthsched.berth.client.Fixtures.node;
import static io.berthsched.berth.client.Fixtures.pod;
import static io.berthsched.berth.client.Fixtures.podRef;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.ObjectKind;
import io.berthsched.berth.v1.PriorityClass;
import io.berthsched.berth.v1.Resync;
import io.berthsched.berth.v1.SyncRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SessionTest {
  private static final Session.Options NODES_AND_PODS =
      Session.options().resyncKinds(ObjectKind.OBJECT_KIND_NODE, ObjectKind.OBJECT_KIND_POD);

  /** The record an orchestrator keeps: what the lister returns. */
  private static final class Record {
    final List<Object> objects = new CopyOnWriteArrayList<>();

    Record(Object... os) {
      objects.addAll(List.of(os));
    }

    List<Object> list() {
      return new ArrayList<>(objects);
    }

    void put(Object o) {
      objects.removeIf(x -> FakeBerthd.key(x).equals(FakeBerthd.key(o)));
      objects.add(o);
    }
  }

  private static String describe(SyncRequest r) {
    StringBuilder s = new StringBuilder();
    if (r.getResync() != Resync.RESYNC_UNSPECIFIED) {
      s.append(r.getResync().name()).append(' ');
    }
    r.getMutationsList().forEach(m -> s.append(m.hasUpsert()
        ? "+" + Identity.of(m.getUpsert()).name : "-" + m.getDelete().getName()).append(' '));
    return s.toString().strip();
  }

  private static List<String> requests(FakeBerthd fake, int from) {
    synchronized (fake) {
      List<String> out = new ArrayList<>();
      fake.syncRequests.subList(from, fake.syncRequests.size()).forEach(r -> out.add(describe(r)));
      return out;
    }
  }

  private static int ends(FakeBerthd fake) {
    return (int) fake.syncRequests.stream().filter(r -> r.getResync() == Resync.RESYNC_END).count();
  }

  @Test
  void relistsOnConnectThenSendsCallsAndBerthDropsWhatWasNotResent() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("relist")); Client c = client(fake.name).build()) {
      Object stale = pod("stale");
      Object pc = Object.newBuilder().setPriorityClass(PriorityClass.newBuilder().setName("high")).build();
      fake.objects.put(FakeBerthd.key(stale), stale);
      fake.objects.put(FakeBerthd.key(pc), pc);
      Record rec = new Record(node("n1"), pod("a"));
      CompletableFuture<Session.ResyncResult> resynced = new CompletableFuture<>();
      try (Session s = c.newSession(rec::list, Session.options()
          .resyncKinds(ObjectKind.OBJECT_KIND_NODE, ObjectKind.OBJECT_KIND_POD)
          .onResync(resynced::complete)).start()) {
        Session.ResyncResult r = resynced.get(20, TimeUnit.SECONDS);
        rec.put(pod("b"));
        s.upsert(pod("b"));
        assertEquals(2, r.sent());
        assertEquals(1, r.deleted(), "the stale pod, not re-sent");
        synchronized (fake) {
          assertEquals(List.of(ObjectKind.OBJECT_KIND_NODE, ObjectKind.OBJECT_KIND_POD),
              fake.syncRequests.get(0).getResyncKindsList());
          assertEquals(List.of("1/" + "/n1", "2/ns/a", "3//high", "2/ns/b").stream().sorted().toList(),
              fake.objects.keySet().stream().sorted().toList(), "the priority class is not re-listed: it stays");
        }
      }
      List<String> sent = requests(fake, 0);
      assertEquals(List.of("RESYNC_BEGIN +n1 +a", "RESYNC_END", "+b"), sent);
    }
  }

  @Test
  void refusedObjectsComeBackWithTheirIndexInTheCall() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("refuse")); Client c = client(fake.name).build();
        Session s = c.newSession(List::of, NODES_AND_PODS).start()) {
      fake.await(() -> ends(fake) == 1); // an upsert before the re-list would be superseded by it
      fake.refuse = o -> o.getPod().getName().equals("bad")
          ? FakeBerthd.invalid("pod.containers[0].requests", "negative") : null;
      BatchException e = assertThrows(BatchException.class, () -> s.upsert(pod("ok"), pod("bad")));
      assertEquals(1, e.applied());
      assertEquals(1, e.errors().get(0).index());
      assertEquals("pod.containers[0].requests", e.errors().get(0).fieldPath());
      s.delete(podRef("ok"), podRef("never-sent")); // NOT_FOUND counts as deleted
    }
  }

  @Test
  void whatIsChainedToACallDoesNotRunUnderTheSessionsLock() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("chained")); Client c = client(fake.name).build();
        Session s = c.newSession(List::of, Session.options()).start()) {
      fake.await(() -> ends(fake) == 1);
      // A blocking call from a dependent of the first: it waits for an acknowledgement the
      // session can send only if the dependent does not hold its lock.
      CompletableFuture<Void> both = s.upsertAsync(List.of(pod("a"))).thenRun(() -> s.upsert(pod("b")));
      both.get(20, TimeUnit.SECONDS);
      assertEquals(List.of("+a", "+b"), requests(fake, 2));
    }
  }

  @Test
  void aFailingListerIsRetriedAndItsErrorClearedByTheNextRelist() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("lister")); Client c = client(fake.name).build()) {
      java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
      try (Session s = c.newSession(() -> {
        if (calls.getAndIncrement() == 0) {
          throw new IllegalStateException("record not loaded yet");
        }
        return List.of(node("n1"));
      }, NODES_AND_PODS).start()) {
        fake.await(() -> ends(fake) == 1);
        s.upsert(pod("a"));
        assertEquals(2, calls.get());
        assertEquals(null, s.error(), "cleared by the re-list");
        assertEquals(false, s.stopped());
        assertEquals(1, fake.syncStreams, "the lister runs before the stream opens");
      }
    }
  }

  @Test
  void largeCallsAreSplitAtMaxBatch() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("split")); Client c = client(fake.name).build();
        Session s = c.newSession(List::of, Session.options().maxBatch(2)).start()) {
      fake.await(() -> ends(fake) == 1);
      s.upsert(pod("a"), pod("b"), pod("c"), pod("d"), pod("e"));
      assertEquals(List.of("+a +b", "+c +d", "+e"), requests(fake, 2));
    }
  }

  @Test
  void aBrokenStreamReconnectsAndRelistsTheRecord() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("reconnect")); Client c = client(fake.name).build()) {
      Record rec = new Record(node("n1"));
      try (Session s = c.newSession(rec::list, NODES_AND_PODS).start()) {
        fake.await(() -> ends(fake) == 1);
        rec.put(pod("a", "n1"));
        fake.breakStreams();
        fake.await(() -> ends(fake) == 2);
        synchronized (fake) {
          assertEquals(2, fake.syncStreams);
          assertEquals("n1", fake.objects.get("2/ns/a").getPod().getNodeName());
        }
      }
    }
  }

  @Test
  void anUnacknowledgedUpsertIsSupersededByTheRelist() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("supersede")); Client c = client(fake.name).build()) {
      Record rec = new Record(node("n1"));
      try (Session s = c.newSession(rec::list, NODES_AND_PODS).start()) {
        fake.await(() -> ends(fake) == 1);
        fake.holdAcks = true;
        rec.put(pod("a"));
        CompletableFuture<Void> pending = s.upsertAsync(List.of(pod("a")));
        fake.await(() -> fake.syncRequests.size() == 3); // sent, not acknowledged
        // The pod is bound meanwhile: the record says so, the queued pending copy is older.
        rec.put(pod("a", "n1"));
        fake.breakStreams();
        pending.get(20, TimeUnit.SECONDS); // answered by the re-list
        assertEquals(List.of("RESYNC_BEGIN +n1 +a", "RESYNC_END"), requests(fake, 3),
            "the older pending copy is not sent after the re-list");
        synchronized (fake) {
          assertEquals("n1", fake.objects.get("2/ns/a").getPod().getNodeName());
        }
      }
    }
  }

  @Test
  void aSupersededUpsertGetsTheRefusalOfTheRelistedObject() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("supersede-refused")); Client c = client(fake.name).build()) {
      Record rec = new Record();
      try (Session s = c.newSession(rec::list, NODES_AND_PODS).start()) {
        fake.await(() -> ends(fake) == 1);
        fake.holdAcks = true;
        rec.put(pod("a"));
        CompletableFuture<Void> pending = s.upsertAsync(List.of(node("n9"), pod("a")));
        fake.await(() -> fake.syncRequests.size() == 3);
        rec.put(node("n9"));
        fake.refuse = o -> o.hasPod() ? FakeBerthd.invalid("pod.uid", "taken") : null;
        fake.breakStreams();
        ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(20, TimeUnit.SECONDS));
        BatchException be = assertInstanceOf(BatchException.class, e.getCause());
        assertEquals(1, be.applied());
        assertEquals(1, be.errors().size());
        assertEquals(1, be.errors().get(0).index(), "the pod's index in the call");
        assertEquals("pod.uid", be.errors().get(0).fieldPath());
      }
    }
  }

  @Test
  void mutationsOfKindsNotRelistedAreSentAgain() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("resend")); Client c = client(fake.name).build()) {
      try (Session s = c.newSession(List::of, NODES_AND_PODS).start()) {
        fake.await(() -> ends(fake) == 1);
        fake.holdAcks = true;
        Object pc = Object.newBuilder().setPriorityClass(PriorityClass.newBuilder().setName("high")).build();
        CompletableFuture<Void> pending = s.upsertAsync(List.of(pc));
        fake.await(() -> fake.syncRequests.size() == 3);
        fake.holdAcks = false;
        fake.breakStreams();
        pending.get(20, TimeUnit.SECONDS);
        assertEquals(List.of("RESYNC_BEGIN", "RESYNC_END", "+high"), requests(fake, 3));
      }
    }
  }

  @Test
  void closeFailsTheCallsStillWaiting() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("close")); Client c = client(fake.name).build()) {
      Session s = c.newSession(List::of, NODES_AND_PODS).start();
      fake.await(() -> ends(fake) == 1);
      fake.holdAcks = true;
      CompletableFuture<Void> pending = s.upsertAsync(List.of(pod("a")));
      fake.await(() -> fake.syncRequests.size() == 3);
      s.close();
      ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(20, TimeUnit.SECONDS));
      assertInstanceOf(SessionClosedException.class, e.getCause());
      assertTrue(s.stopped());
      assertThrows(SessionClosedException.class, () -> s.upsert(pod("b")));
    }
  }

  @Test
  void aRelistTooLargeStopsTheSession() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("too-large")); Client c = client(fake.name).build()) {
      fake.maxBatch = 1;
      Session s = c.newSession(() -> List.of(node("n1"), node("n2")), NODES_AND_PODS).start();
      SessionClosedException e = assertThrows(SessionClosedException.class, () -> s.upsert(pod("a")));
      assertInstanceOf(RequestTooLargeException.class, s.error(), String.valueOf(s.error()));
      assertInstanceOf(RequestTooLargeException.class, e.getCause());
      s.close();
    }
  }

  @Test
  void aSessionFollowsTheLeaderAndRelistsThere() throws Exception {
    try (FakeBerthd follower = new FakeBerthd(name("follower"));
        FakeBerthd leader = new FakeBerthd(name("leader"));
        Client c = client(follower.name).build()) {
      follower.notLeader = leader.name;
      Record rec = new Record(node("n1"));
      try (Session s = c.newSession(rec::list, NODES_AND_PODS).start()) {
        rec.put(pod("a"));
        s.upsert(pod("a"));
      }
      assertEquals(leader.name, c.target());
      synchronized (leader) {
        assertEquals(List.of("1//n1", "2/ns/a"), List.copyOf(leader.objects.keySet()));
      }
      synchronized (follower) {
        assertEquals(0, follower.syncRequests.size());
      }
    }
  }
}
