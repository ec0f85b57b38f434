package io.berthsched.berth.client.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.berthsched.berth.client.BatchException;
import io.berthsched.berth.client.Checkpoint;
import io.berthsched.berth.client.Client;
import io.berthsched.berth.client.ObjectError;
import io.berthsched.berth.client.Quantity;
import io.berthsched.berth.client.Session;
import io.berthsched.berth.client.Watcher;
import io.berthsched.berth.v1.AdminServiceGrpc;
import io.berthsched.berth.v1.Container;
import io.berthsched.berth.v1.Decision;
import io.berthsched.berth.v1.EvictCause;
import io.berthsched.berth.v1.ListPodsRequest;
import io.berthsched.berth.v1.Node;
import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.ObjectKind;
import io.berthsched.berth.v1.ObjectRef;
import io.berthsched.berth.v1.PendingPod;
import io.berthsched.berth.v1.Pod;
import io.berthsched.berth.v1.QueueState;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Java client against a real berthd: plaintext, then TLS with a token. */
class LiveBerthdTest {
  /** The orchestrator's record (what the session re-lists), guarded by itself. */
  private static final class Record {
    private final Map<String, Object> objects = new HashMap<>();

    synchronized List<Object> list() {
      return new ArrayList<>(objects.values());
    }

    synchronized Object put(Object o) {
      String k = o.hasNode() ? "node/" + o.getNode().getName() : "pod/" + o.getPod().getName();
      objects.put(k, o);
      return o;
    }

    synchronized Pod remove(String name) {
      return objects.remove("pod/" + name).getPod();
    }

    synchronized Pod pod(String name) {
      Object o = objects.get("pod/" + name);
      return o == null ? null : o.getPod();
    }
  }

  private static Object node(String name) {
    return Object.newBuilder().setNode(Node.newBuilder().setName(name)
        .putAllAllocatable(Quantity.parseResources(Map.of("cpu", "2", "memory", "4Gi", "pods", "10")))).build();
  }

  private static Object pod(String name, String cpu) {
    return Object.newBuilder().setPod(Pod.newBuilder().setNamespace("live").setName(name)
        .setUid(name + "-" + System.nanoTime())
        .addContainers(Container.newBuilder().setName("main")
            .putAllRequests(Quantity.parseResources(Map.of("cpu", cpu))))).build();
  }

  /** Decisions a watcher handed over, in order, guarded by itself. */
  private static final class Seen {
    final List<Decision> decisions = new ArrayList<>();

    synchronized void add(Decision d) {
      decisions.add(d);
      notifyAll();
    }

    synchronized Decision bindOf(String pod, long after) throws InterruptedException {
      await(() -> find(pod, after) != null);
      return find(pod, after);
    }

    synchronized Decision evictOf(String pod) throws InterruptedException {
      await(() -> findEvict(pod) != null);
      return findEvict(pod);
    }

    private Decision find(String pod, long after) {
      for (Decision d : decisions) {
        if (d.hasBind() && d.getPod().getName().equals(pod) && d.getRevision() > after) {
          return d;
        }
      }
      return null;
    }

    private Decision findEvict(String pod) {
      for (Decision d : decisions) {
        if (d.hasEvict() && d.getPod().getName().equals(pod)) {
          return d;
        }
      }
      return null;
    }

    synchronized List<Long> revisions() {
      List<Long> out = new ArrayList<>();
      decisions.forEach(d -> out.add(d.getRevision()));
      return out;
    }

    /** Waits (a failure guard, not a measurement) until cond holds. */
    synchronized void await(BooleanSupplier cond) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!cond.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("not reached; decisions: " + decisions);
        }
        wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  private static CompletableFuture<Void> run(Watcher w) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        w.run();
        done.complete(null);
      } catch (Throwable e) {
        done.completeExceptionally(e);
      }
    }, "live-watch");
    t.setDaemon(true);
    t.start();
    return done;
  }

  private static QueueState state(Client c, String pod) {
    for (PendingPod p : c.call(ch -> AdminServiceGrpc.newBlockingStub(ch)
        .listPods(ListPodsRequest.newBuilder().setNamespace("live").build())).getPodsList()) {
      if (p.getPod().getName().equals(pod)) {
        return p.getState();
      }
    }
    return QueueState.QUEUE_STATE_UNSPECIFIED;
  }

  @Test
  void sessionWatchOutcomesAndAResumeAcrossACrash(@TempDir Path dir) throws Exception {
    try (Berthd berthd = Berthd.start(dir);
        Client c = Client.builder(berthd.address()).build()) {
      Record rec = new Record();
      rec.put(node("n1"));
      rec.put(pod("web", "500m"));
      Seen seen = new Seen();
      Checkpoint cp = Checkpoint.memory();
      try (Session s = c.newSession(rec::list, Session.options()
          .resyncKinds(ObjectKind.OBJECT_KIND_NODE, ObjectKind.OBJECT_KIND_POD)).start()) {
        Watcher w = c.newWatcher(cp, seen::add, Watcher.options().startAt(1));
        CompletableFuture<Void> watching = run(w);

        // The re-list's pod is bound; confirmed by upserting it with node_name set.
        Decision web = seen.bindOf("web", 0);
        assertEquals("n1", web.getBind().getNode());
        s.upsert(rec.put(Object.newBuilder().setPod(rec.pod("web").toBuilder().setNodeName("n1")).build()));
        assertEquals(QueueState.QUEUE_STATE_BOUND, state(c, "web"));

        // A refused object names its field; the call's other objects take effect.
        Object bad = pod("bad", "100m");
        bad = Object.newBuilder().setPod(bad.getPod().toBuilder().setUid("")).build();
        Object db = rec.put(pod("db", "500m"));
        Object badObject = bad;
        BatchException refused = assertThrows(BatchException.class, () -> s.upsert(db, badObject));
        assertEquals(1, refused.applied());
        ObjectError oe = refused.errors().get(0);
        assertEquals(1, oe.index());
        assertEquals(Status.Code.INVALID_ARGUMENT, oe.code());
        assertEquals("pod.uid", oe.fieldPath(), oe.toString());

        // A failed bind is requeued and bound again, at a later revision.
        Decision dbBind = seen.bindOf("db", 0);
        c.failBind(dbBind, "the orchestrator could not start it");
        Decision again = seen.bindOf("db", dbBind.getRevision());
        c.confirmBind(again);
        assertEquals(QueueState.QUEUE_STATE_BOUND, state(c, "db"));

        // The eviction API: an Evict decision, cause API, with the grace period asked for; the
        // orchestrator stops the pod and deletes it.
        c.evict("live", "web", Client.evictOptions().gracePeriodSeconds(3));
        Decision evicted = seen.evictOf("web");
        assertEquals(EvictCause.EVICT_CAUSE_API, evicted.getEvict().getCause());
        assertEquals(3, evicted.getEvict().getGracePeriodSeconds());
        Pod stopped = rec.remove("web");
        s.delete(ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_POD).setNamespace("live")
            .setName("web").setUid(stopped.getUid()).build());
        StatusRuntimeException gone = assertThrows(StatusRuntimeException.class,
            () -> c.evict("live", "web", Client.evictOptions()));
        assertEquals(Status.Code.NOT_FOUND, gone.getStatus().getCode());

        // berthd is killed and comes back on its data: the watcher resumes from its revision,
        // with its log id, and the session re-lists (berthd schedules after the re-list).
        long before = cp.load();
        String logId = w.logId();
        berthd.crashAndRestart();
        rec.put(pod("cache", "500m"));
        s.upsert(rec.list().stream().filter(o -> o.hasPod() && o.getPod().getName().equals("cache")).toList());
        Decision cache = seen.bindOf("cache", 0);
        assertTrue(cache.getRevision() >= before, "revisions go on after the restart");
        assertEquals(logId, w.logId(), "the same log");
        List<Long> revs = seen.revisions();
        for (int i = 1; i < revs.size(); i++) {
          assertTrue(revs.get(i) > revs.get(i - 1), "each decision once, in order: " + revs);
        }
        w.stop();
        watching.get(30, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void tlsAndTokens(@TempDir Path dir) throws Exception {
    // A self-signed certificate for 127.0.0.1, made with openssl as the Python client's tests do.
    run(dir, "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
        "-nodes", "-days", "1", "-subj", "/CN=berthd", "-addext", "subjectAltName=IP:127.0.0.1",
        "-keyout", "key.pem", "-out", "cert.pem");
    Files.writeString(dir.resolve("tokens"), "s3cret\nreader read-only\n");
    byte[] ca = Files.readAllBytes(dir.resolve("cert.pem"));
    try (Berthd berthd = Berthd.start(dir, "--tls-cert", dir.resolve("cert.pem").toString(),
        "--tls-key", dir.resolve("key.pem").toString(), "--token-file", dir.resolve("tokens").toString())) {
      try (Client c = Client.builder(berthd.address()).rootCertificates(ca).token("s3cret").build()) {
        c.apply(node("n1"));
      }
      try (Client c = Client.builder(berthd.address()).rootCertificates(ca).token("s3cret")
          .authority("not-berthd").build()) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.apply(node("n2")));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), "a certificate for another name");
      }
      try (Client c = Client.builder(berthd.address()).rootCertificates(ca).build()) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.apply(node("n2")));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
      }
      try (Client c = Client.builder(berthd.address()).rootCertificates(ca).token("reader").build()) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.apply(node("n2")));
        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode(), "a read-only token writes nothing");
      }
      try (Client c = Client.builder(berthd.address()).token("s3cret").build()) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.apply(node("n2")));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), "plaintext to a TLS berthd");
      }
      try (Client c = Client.builder(berthd.address()).tls().token("s3cret").build()) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.apply(node("n2")));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), "a certificate the JVM does not trust");
        assertFalse(String.valueOf(e.getCause()).isEmpty());
      }
    }
  }

  @Test
  void mutualTls(@TempDir Path dir) throws Exception {
    // A CA, and a server and a client certificate it signs (PKCS#8 keys, as Netty reads them).
    run(dir, "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
        "-days", "1", "-subj", "/CN=test-ca", "-keyout", "ca.key", "-out", "ca.pem");
    for (String who : List.of("server", "client")) {
      run(dir, "openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
          "-subj", "/CN=" + who, "-keyout", who + ".key", "-out", who + ".csr");
      Files.writeString(dir.resolve(who + ".ext"), who.equals("server")
          ? "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n" : "extendedKeyUsage=clientAuth\n");
      run(dir, "openssl", "x509", "-req", "-in", who + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
          "-CAcreateserial", "-days", "1", "-extfile", who + ".ext", "-out", who + ".pem");
    }
    byte[] ca = Files.readAllBytes(dir.resolve("ca.pem"));
    try (Berthd berthd = Berthd.start(dir, "--tls-cert", dir.resolve("server.pem").toString(),
        "--tls-key", dir.resolve("server.key").toString(), "--tls-client-ca", dir.resolve("ca.pem").toString())) {
      try (Client c = Client.builder(berthd.address()).rootCertificates(ca)
          .clientCertificate(Files.readAllBytes(dir.resolve("client.pem")), Files.readAllBytes(dir.resolve("client.key")))
          .build()) {
        c.apply(node("n1"));
      }
      try (Client c = Client.builder(berthd.address()).rootCertificates(ca).build()) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.apply(node("n2")));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), "no client certificate");
      }
    }
  }

  private static void run(Path dir, String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
    }
  }
}
