package io.berthsched.berth.client;

import static io.berthsched.berth.client.Fixtures.bind;
import static io.berthsched.berth.client.Fixtures.client;
import static io.berthsched.berth.client.Fixtures.name;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.berthsched.berth.v1.WatchRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WatcherTest {
  /** Runs the watcher on a thread of its own; the future ends with run(). */
  private static CompletableFuture<Void> start(Watcher w) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        w.run();
        done.complete(null);
      } catch (Throwable e) {
        done.completeExceptionally(e);
      }
    }, "test-watch");
    t.setDaemon(true);
    t.start();
    return done;
  }

  private static Throwable failure(CompletableFuture<Void> f) throws Exception {
    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
    return e.getCause();
  }

  private static String describe(WatchRequest r) {
    return r.getFromRevision() + " " + (r.getLogId().isEmpty() ? "-" : r.getLogId());
  }

  @Test
  void resumesFromItsRevisionWithItsLogIdAndDeliversEachDecisionOnce() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("resume")); Client c = client(fake.name).build()) {
      fake.append(bind("a", "n1"), bind("b", "n1"), bind("c", "n2"));
      List<Long> seen = new CopyOnWriteArrayList<>();
      Checkpoint cp = Checkpoint.memory();
      Watcher w = c.newWatcher(cp, d -> seen.add(d.getRevision()), Watcher.options().startAt(1));
      CompletableFuture<Void> done = start(w);
      fake.await(() -> fake.watches.size() == 1);
      waitFor(() -> seen.size() == 3);
      fake.breakStreams();
      fake.await(() -> fake.watches.size() == 2);
      fake.append(bind("d", "n2"));
      waitFor(() -> seen.size() == 4);
      w.stop();
      done.get(20, TimeUnit.SECONDS);
      assertEquals(List.of(1L, 2L, 3L, 4L), seen);
      List<String> watches = new ArrayList<>();
      synchronized (fake) {
        fake.watches.forEach(r -> watches.add(describe(r)));
      }
      assertEquals(List.of("1 -", "4 log-1"), watches);
      assertEquals(5, cp.load());
      assertEquals("log-1", w.logId());
    }
  }

  @Test
  void aWatcherMovesPastAReplicaThatIsDown() throws Exception {
    try (FakeBerthd up = new FakeBerthd(name("up"))) {
      up.append(bind("a", "n1"));
      String down = name("down"); // no server by that name: UNAVAILABLE
      try (Client c = client(down + "," + up.name).build()) {
        List<Long> seen = new CopyOnWriteArrayList<>();
        Watcher w = c.newWatcher(Checkpoint.memory(), d -> seen.add(d.getRevision()),
            Watcher.options().startAt(1));
        CompletableFuture<Void> done = start(w);
        waitFor(() -> seen.size() == 1);
        w.stop();
        done.get(20, TimeUnit.SECONDS);
        assertEquals(up.name, c.target());
        assertEquals(List.of(1L), seen);
      }
    }
  }

  @Test
  void aCompactedPositionGoesToOnCompacted() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("compacted")); Client c = client(fake.name).build()) {
      for (int i = 0; i < 6; i++) {
        fake.append(bind("p" + i, "n1"));
      }
      fake.compactedBelow = 5;
      Checkpoint cp = Checkpoint.memory();
      cp.save(2);
      List<Long> seen = new CopyOnWriteArrayList<>();
      List<CompactedException> compactions = new CopyOnWriteArrayList<>();
      Watcher w = c.newWatcher(cp, d -> seen.add(d.getRevision()), Watcher.options().onCompacted(ce -> {
        compactions.add(ce);
        return ce.oldest();
      }));
      CompletableFuture<Void> done = start(w);
      waitFor(() -> seen.size() == 2);
      w.stop();
      done.get(20, TimeUnit.SECONDS);
      assertEquals(List.of(5L, 6L), seen);
      assertEquals(1, compactions.size());
      assertEquals(2, compactions.get(0).fromRevision());
      assertEquals(5, compactions.get(0).oldest());
    }
  }

  @Test
  void positionsOfAnotherLogAreNotCompactions() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("other-log")); Client c = client(fake.name).build()) {
      fake.append(bind("a", "n1"));
      fake.compactedBelow = 1;
      record Case(String name, long checkpoint, String logId, Status.Code code, String reason) {}
      for (Case k : List.of(
          new Case("a revision not written yet", 10, "", Status.Code.OUT_OF_RANGE, Errors.REVISION_NOT_WRITTEN),
          new Case("another log's id", 1, "log-0", Status.Code.FAILED_PRECONDITION, Errors.LOG_ID_MISMATCH))) {
        Checkpoint cp = Checkpoint.memory();
        cp.save(k.checkpoint);
        Watcher w = c.newWatcher(cp, d -> {}, Watcher.options().logId(k.logId)
            .onCompacted(ce -> { throw new AssertionError(k.name + ": taken for a compaction"); }));
        StatusRuntimeException e = assertInstanceOf(StatusRuntimeException.class, failure(start(w)), k.name);
        assertEquals(k.code, e.getStatus().getCode(), k.name);
        assertEquals(k.reason, Errors.errorReason(e), k.name);
      }
    }
  }

  @Test
  void aCompactionWithoutOnCompactedIsThrown() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("compacted-throw")); Client c = client(fake.name).build()) {
      fake.append(bind("a", "n1"), bind("b", "n1"));
      fake.compactedBelow = 2;
      Watcher w = c.newWatcher(Checkpoint.memory(), d -> {}, Watcher.options().startAt(1));
      CompactedException e = assertInstanceOf(CompactedException.class, failure(start(w)));
      assertEquals(2, e.oldest());
    }
  }

  @Test
  void aHandlerErrorStopsTheWatcherWithTheCheckpointOnThatDecision() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("handler")); Client c = client(fake.name).build()) {
      fake.append(bind("a", "n1"), bind("b", "n1"), bind("c", "n1"));
      Checkpoint cp = Checkpoint.memory();
      List<Long> seen = new CopyOnWriteArrayList<>();
      Watcher w = c.newWatcher(cp, d -> {
        if (d.getRevision() == 2) {
          // a gRPC error from a call the handler made is the handler's, not a broken stream
          throw Status.UNAVAILABLE.withDescription("confirm failed").asRuntimeException();
        }
        seen.add(d.getRevision());
      }, Watcher.options().startAt(1));
      HandlerException e = assertInstanceOf(HandlerException.class, failure(start(w)));
      assertEquals(2, e.revision());
      assertEquals(2, cp.load());
      assertEquals(List.of(1L), seen);
      synchronized (fake) {
        assertEquals(1, fake.watches.size(), "not retried");
      }
    }
  }

  @Test
  void aFileCheckpointSurvivesItsProcess(@TempDir Path dir) throws Exception {
    Path p = dir.resolve("berth.rev");
    assertEquals(0, Checkpoint.file(p).load());
    Checkpoint.file(p).save(42);
    assertEquals(42, Checkpoint.file(p).load());
    Checkpoint.file(p).save(43);
    assertEquals("43\n", Files.readString(p));
    try (var files = Files.list(dir)) {
      assertEquals(1, files.count(), "no temporary file left behind");
    }
  }

  /** Waits (a failure guard, not a measurement) until cond holds. */
  static void waitFor(java.util.function.BooleanSupplier cond) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not reached");
      }
      Thread.sleep(5);
    }
  }

}
