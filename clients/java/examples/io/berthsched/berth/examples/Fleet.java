package io.berthsched.berth.examples;

import io.berthsched.berth.client.Checkpoint;
import io.berthsched.berth.client.Client;
import io.berthsched.berth.client.HandlerException;
import io.berthsched.berth.client.Quantity;
import io.berthsched.berth.client.Session;
import io.berthsched.berth.client.Watcher;
import io.berthsched.berth.v1.Container;
import io.berthsched.berth.v1.Decision;
import io.berthsched.berth.v1.Evict;
import io.berthsched.berth.v1.EvictCause;
import io.berthsched.berth.v1.Node;
import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.ObjectKind;
import io.berthsched.berth.v1.ObjectRef;
import io.berthsched.berth.v1.Pod;
import io.berthsched.berth.v1.PriorityClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * Example orchestrator on Berth's Java client, the twin of the Go, Python and TypeScript fleet
 * examples.
 *
 * <p>Registers three nodes, runs three low-priority batch pods, then submits a high-priority pod
 * that must preempt one of them and a pod that can never fit; binds what Berth binds (confirming
 * by upserting the pod with node_name set), stops and deletes what Berth evicts (logging why),
 * and exits 0 once every schedulable pod runs and the never-fitting one was reported
 * unschedulable. It fails if Berth binds one of its pods twice.
 *
 * <p>Its session re-lists nodes, pods and priority classes. Berth scopes a re-list by kind only,
 * so each re-list deletes every node, pod and priority class this example did not send,
 * including another orchestrator's: run it against a berthd of its own.
 *
 * <pre>clients/java/build example --server 127.0.0.1:7070</pre>
 */
public final class Fleet {
  static final String NAMESPACE = "fleet-java";
  static final String PREFIX = "fleet-java-"; // of cluster-scoped names: nodes, priority classes
  static final String NEVER_FITS = "huge";

  // The orchestrator's own record, the source of truth it re-lists; guarded by itself.
  private final String runId = Long.toHexString(System.nanoTime());
  private final Map<String, Pod> pods = new TreeMap<>();
  private final List<Object> others = new ArrayList<>();
  private final Map<String, Long> bindRevision = new HashMap<>();
  private final Set<String> evicted = new HashSet<>();
  private final Map<String, String> unschedulable = new HashMap<>();
  private volatile Throwable failure; // the watcher's

  Fleet() {
    for (String n : List.of("n1", "n2", "n3")) {
      others.add(Object.newBuilder().setNode(Node.newBuilder().setName(PREFIX + n)
          .putLabels("fleet", NAMESPACE)
          .putAllAllocatable(Quantity.parseResources(Map.of("cpu", "2", "memory", "4Gi", "pods", "110"))))
          .build());
    }
    others.add(Object.newBuilder().setPriorityClass(
        PriorityClass.newBuilder().setName(PREFIX + "low").setValue(100)).build());
    others.add(Object.newBuilder().setPriorityClass(
        PriorityClass.newBuilder().setName(PREFIX + "high").setValue(1000)).build());
  }

  synchronized List<Object> list() {
    List<Object> all = new ArrayList<>(others);
    pods.values().forEach(p -> all.add(Object.newBuilder().setPod(p).build()));
    return all;
  }

  /**
   * Records a new pod and returns it to send to Berth: the record first, then Berth, as the
   * session requires (its re-list, which reads the record, supersedes calls made before it).
   */
  synchronized Object addPod(String name, String klass, String cpu) {
    Pod p = Pod.newBuilder().setNamespace(NAMESPACE).setName(name).setUid(name + "-" + runId)
        .setPriorityClassName(PREFIX + klass).putNodeSelector("fleet", NAMESPACE)
        .addContainers(Container.newBuilder().setName("main")
            .putAllRequests(Quantity.parseResources(Map.of("cpu", cpu, "memory", "256Mi"))))
        .build();
    pods.put(name, p);
    return Object.newBuilder().setPod(p).build();
  }

  void handle(Session session, Decision d) {
    Pod mine;
    synchronized (this) {
      mine = pods.get(d.getPod().getName());
      if (!d.getPod().getNamespace().equals(NAMESPACE) || mine == null
          || !mine.getUid().equals(d.getPod().getUid())) {
        return; // another orchestrator's, or an earlier run's
      }
    }
    switch (d.getActionCase()) {
      case BIND: {
        // "Start" the pod, then confirm the bind by upserting it with node_name set (the API's
        // other confirmation, equivalent to ReportBindResult CONFIRMED). Through the session it
        // is ordered after every earlier upsert of the pod, so no older, pending copy can
        // arrive after it and undo it.
        Object running;
        synchronized (this) {
          Long rev = bindRevision.get(mine.getName());
          if (rev != null && rev != d.getRevision()) {
            throw new IllegalStateException("pod " + mine.getName() + " bound twice: to "
                + mine.getNodeName() + " at revision " + rev + ", to " + d.getBind().getNode()
                + " at revision " + d.getRevision());
          }
          bindRevision.put(mine.getName(), d.getRevision());
          Pod p = mine.toBuilder().setNodeName(d.getBind().getNode()).build();
          pods.put(p.getName(), p);
          running = Object.newBuilder().setPod(p).build();
        }
        session.upsert(running);
        log("rev %d: bind %s -> %s (confirmed)", d.getRevision(), mine.getName(), d.getBind().getNode());
        break;
      }
      case EVICT: {
        // Stop the pod within its grace period, then delete it from Berth as the orchestrator
        // would once it has stopped. The example's pods run nothing: they stop at once.
        Evict e = d.getEvict();
        log("rev %d: evict %s from %s (%s: %s); stopped within %s", d.getRevision(), mine.getName(),
            e.getNode(), evictCause(e), e.getReason(), gracePeriod(e));
        synchronized (this) {
          pods.remove(mine.getName());
          evicted.add(mine.getName());
        }
        session.delete(ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_POD)
            .setNamespace(NAMESPACE).setName(mine.getName()).setUid(mine.getUid()).build());
        break;
      }
      case NOMINATE:
        log("rev %d: nominate %s on %s", d.getRevision(), mine.getName(), d.getNominate().getNode());
        break;
      case UNSCHEDULABLE: {
        boolean first;
        synchronized (this) {
          first = unschedulable.put(mine.getName(), d.getUnschedulable().getMessage()) == null;
        }
        if (first) {
          log("rev %d: %s unschedulable: %s", d.getRevision(), mine.getName(),
              d.getUnschedulable().getMessage());
        }
        break;
      }
      default:
        break;
    }
    synchronized (this) {
      notifyAll();
    }
  }

  /**
   * What made Berth evict a pod. Every cause asks the same of the orchestrator (stop the pod,
   * then delete it); an orchestrator might act on them differently, say reschedule a preempted
   * job at once but alert on node pressure.
   */
  static String evictCause(Evict e) {
    switch (e.getCause()) {
      case EVICT_CAUSE_PREEMPTION:
      case EVICT_CAUSE_UNSPECIFIED: // written before Berth recorded causes: all preemptions
        return "preempted for " + e.getPreemptor().getNamespace() + "/" + e.getPreemptor().getName();
      case EVICT_CAUSE_TAINT:
        return "a NoExecute taint on its node";
      case EVICT_CAUSE_API:
        return "the eviction API";
      case EVICT_CAUSE_NODE_PRESSURE:
        return "node pressure";
      default:
        return "cause " + e.getCauseValue() + ", newer than this example";
    }
  }

  /** How long the pod may take to stop. */
  static String gracePeriod(Evict e) {
    if (!e.hasGracePeriodSeconds()) {
      return "its own termination grace period";
    }
    return e.getGracePeriodSeconds() == 0 ? "0s (killed at once)" : e.getGracePeriodSeconds() + "s";
  }

  synchronized boolean running(String... names) {
    for (String n : names) {
      Pod p = pods.get(n);
      if (p == null || p.getNodeName().isEmpty()) {
        return false;
      }
    }
    return true;
  }

  synchronized boolean done() {
    for (Map.Entry<String, Pod> e : pods.entrySet()) {
      if (!e.getKey().equals(NEVER_FITS) && e.getValue().getNodeName().isEmpty()) {
        return false;
      }
    }
    return unschedulable.containsKey(NEVER_FITS) && !evicted.isEmpty() && pods.containsKey("critical");
  }

  /** Waits until cond holds; throws the watcher's or the session's failure, or on the deadline. */
  synchronized void await(BooleanSupplier cond, long deadline, Session session) throws Exception {
    while (!cond.getAsBoolean()) {
      if (failure != null) {
        throw new IllegalStateException("watcher: " + failure, failure);
      }
      if (session.stopped()) {
        throw new IllegalStateException("session stopped: " + session.error(), session.error());
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException("timed out; pods: " + states());
      }
      wait(Math.max(1, Math.min(left / 1_000_000, 500)));
    }
  }

  synchronized Map<String, String> states() {
    Map<String, String> out = new TreeMap<>();
    pods.forEach((n, p) -> out.put(n, p.getNodeName().isEmpty() ? "pending" : p.getNodeName()));
    return out;
  }

  synchronized void report() {
    states().forEach((n, s) -> System.out.printf("  %-10s %s%n", n, s));
    System.out.println("  evicted: " + new java.util.TreeSet<>(evicted));
  }

  private static void log(String format, java.lang.Object... args) {
    System.out.println(String.format(format, args));
  }

  public static void main(String[] args) throws Exception {
    String server = System.getenv().getOrDefault("BERTH_SERVER", "127.0.0.1:7070");
    String token = System.getenv("BERTH_TOKEN");
    Duration timeout = Duration.ofSeconds(60);
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--server": server = args[++i]; break;
        case "--token": token = args[++i]; break;
        case "--timeout": timeout = Duration.ofSeconds(Long.parseLong(args[++i])); break;
        default:
          System.err.println("usage: Fleet [--server host:port[,host:port...]] [--token T] [--timeout SECONDS]");
          System.exit(2);
      }
    }
    System.exit(run(server, token, timeout));
  }

  static int run(String server, String token, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Fleet fleet = new Fleet();
    // Three low-priority batch jobs fill three quarters of every node. They are in the record
    // before the session starts, so its first re-list sends them: no upsert needed.
    for (String name : List.of("batch-1", "batch-2", "batch-3")) {
      fleet.addPod(name, "low", "1500m");
    }
    try (Client client = Client.builder(server).token(token).build();
        // The re-list is scoped to the kinds this example sends; within a kind it is global.
        Session session = client.newSession(fleet::list, Session.options().resyncKinds(
            ObjectKind.OBJECT_KIND_NODE, ObjectKind.OBJECT_KIND_POD,
            ObjectKind.OBJECT_KIND_PRIORITY_CLASS)).start()) {
      Watcher watcher = client.newWatcher(Checkpoint.memory(), d -> fleet.handle(session, d),
          Watcher.options().startAt(1).onCompacted(ce -> ce.oldest()));
      Thread watching = new Thread(() -> {
        try {
          watcher.run();
        } catch (HandlerException e) {
          fleet.failure = e.getCause();
        } catch (Throwable e) {
          fleet.failure = e;
        }
        synchronized (fleet) {
          fleet.notifyAll();
        }
      }, "fleet-watch");
      watching.setDaemon(true);
      watching.start();
      try {
        System.out.println("registered 3 nodes and 3 low-priority batch pods");
        fleet.await(() -> fleet.running("batch-1", "batch-2", "batch-3"), deadline, session);
        session.upsert(timeout, List.of(fleet.addPod("critical", "high", "1"),
            fleet.addPod(NEVER_FITS, "low", "64")));
        System.out.println("submitted critical (must preempt) and huge (never fits)");
        fleet.await(fleet::done, deadline, session);
        fleet.report();
        List<ObjectRef> refs = new ArrayList<>();
        for (String n : fleet.states().keySet()) {
          refs.add(ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_POD).setNamespace(NAMESPACE)
              .setName(n).build());
        }
        for (Object o : fleet.others) {
          if (o.hasNode()) {
            refs.add(ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_NODE)
                .setName(o.getNode().getName()).build());
          } else if (o.hasPriorityClass()) {
            refs.add(ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_PRIORITY_CLASS)
                .setName(o.getPriorityClass().getName()).build());
          }
        }
        client.delete(refs);
      } catch (Exception e) {
        fleet.report();
        System.err.println("fleet (java): FAILED: " + e.getMessage());
        return 1;
      } finally {
        watcher.stop();
        watching.join(5000);
      }
    }
    System.out.println("fleet (java): OK, every schedulable pod is running");
    return 0;
  }
}
