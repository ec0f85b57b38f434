package io.berthsched.berth.examples;

import io.berthsched.berth.client.Checkpoint;
import io.berthsched.berth.client.Client;
import io.berthsched.berth.client.HandlerException;
import io.berthsched.berth.client.Watcher;
import io.berthsched.berth.v1.Container;
import io.berthsched.berth.v1.Decision;
import io.berthsched.berth.v1.Node;
import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.ObjectKind;
import io.berthsched.berth.v1.ObjectRef;
import io.berthsched.berth.v1.Pod;
import io.berthsched.berth.v1.PodGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Gang scheduling example on Berth's Java client, the twin of the Go, Python and TypeScript gang
 * examples.
 *
 * <p>Registers two nodes with room for one group of four pods, submits two such groups (PodGroup
 * objects, pods naming them with scheduling_group), confirms the binds of the group Berth places
 * (all four in one commit, each Bind naming its group), ends that group's job (deletes its pods)
 * and waits for the other group to be placed in turn. Exits 0 when both groups ran one after the
 * other; fails if a group is ever partly bound. It uses apply/delete (no session, no re-list), so
 * other orchestrators' objects are left alone.
 *
 * <pre>clients/java/build example gang --server 127.0.0.1:7070</pre>
 */
public final class Gang {
  static final String NAMESPACE = "gang-java";
  static final List<String> NODES = List.of("gang-java-n1", "gang-java-n2");
  static final int MEMBERS = 4;

  /** Both groups ran: stops the watcher. */
  static final class Done extends Exception {
    private static final long serialVersionUID = 1L;
  }

  private final Client client;
  private final String run;
  private final Map<String, Map<String, String>> bound = new TreeMap<>(); // group -> pod -> node
  private String first;

  Gang(Client client, String run) {
    this.client = client;
    this.run = run;
  }

  /** Follows the binds of the two groups, on the watcher's thread. */
  void handle(Decision d) throws Exception {
    if (!d.getPod().getUid().startsWith(run + "-")) {
      return; // another orchestrator's, or an earlier run's
    }
    if (d.hasUnschedulable()) {
      System.out.println(d.getPod().getName() + " waits: " + d.getUnschedulable().getMessage());
    }
    if (!d.hasBind()) {
      return;
    }
    String group = d.getBind().getGroup();
    Map<String, String> pods = bound.computeIfAbsent(group, g -> new TreeMap<>());
    pods.put(d.getPod().getName(), d.getBind().getNode());
    client.confirmBind(d);
    if (pods.size() < MEMBERS) {
      return;
    }
    System.out.println("group " + group + " bound: " + pods);
    if (first != null) {
      throw new Done();
    }
    first = group;
    Map<String, Map<String, String>> partial = new HashMap<>();
    bound.forEach((g, p) -> {
      if (!g.equals(group) && !p.isEmpty()) {
        partial.put(g, p);
      }
    });
    if (!partial.isEmpty()) {
      throw new IllegalStateException("partly bound while " + group + " ran: " + partial);
    }
    System.out.println("group " + group + "'s job ends: deleting its pods");
    List<ObjectRef> refs = new ArrayList<>();
    pods.keySet().forEach(n -> refs.add(podRef(n)));
    client.delete(refs);
  }

  static Object node(String name) {
    return Object.newBuilder().setNode(Node.newBuilder().setName(name)
        .putLabels("kubernetes.io/hostname", name)
        .putAllocatable("cpu", 4000).putAllocatable("memory", 16L << 30).putAllocatable("pods", 110))
        .build();
  }

  static Object group(String name) {
    return Object.newBuilder().setPodGroup(PodGroup.newBuilder().setNamespace(NAMESPACE).setName(name)
        .setMinCount(MEMBERS)).build();
  }

  /** A member: 2 cpu, so a 4-cpu node takes two of them. */
  static Object pod(String run, String group, int i) {
    return Object.newBuilder().setPod(Pod.newBuilder().setUid(run + "-" + group + "-" + i)
        .setNamespace(NAMESPACE).setName(group + "-" + i).setSchedulingGroup(group)
        .addContainers(Container.newBuilder().setName("main")
            .putRequests("cpu", 2000).putRequests("memory", 1L << 30)))
        .build();
  }

  static ObjectRef podRef(String name) {
    return ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_POD).setNamespace(NAMESPACE)
        .setName(name).build();
  }

  static void cleanup(Client client) {
    List<ObjectRef> refs = new ArrayList<>();
    for (String g : List.of("a", "b")) {
      for (int i = 0; i < MEMBERS; i++) {
        refs.add(podRef(g + "-" + i));
      }
      refs.add(ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_POD_GROUP).setNamespace(NAMESPACE)
          .setName(g).build());
    }
    NODES.forEach(n -> refs.add(ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_NODE).setName(n).build()));
    client.delete(refs); // the pods deleted already count as deleted
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
          System.err.println("usage: Gang [--server host:port[,host:port...]] [--token T] [--timeout SECONDS]");
          System.exit(2);
      }
    }
    System.exit(run(server, token, timeout));
  }

  static int run(String server, String token, Duration timeout) throws Exception {
    try (Client client = Client.builder(server).token(token).build()) {
      String run = NAMESPACE + "-" + Long.toHexString(System.nanoTime());
      Gang gang = new Gang(client, run);
      // The whole log, so no decision is missed; this run's pods by uid.
      Watcher watcher = client.newWatcher(Checkpoint.memory(), gang::handle,
          Watcher.options().startAt(1).onCompacted(ce -> ce.oldest()));
      CompletableFuture<Throwable> outcome = new CompletableFuture<>();
      Thread watching = new Thread(() -> {
        try {
          watcher.run();
          outcome.complete(null);
        } catch (HandlerException e) {
          outcome.complete(e.getCause());
        } catch (Throwable e) {
          outcome.complete(e);
        }
      }, "gang-watch");
      watching.setDaemon(true);
      watching.start();
      try {
        List<Object> objs = new ArrayList<>();
        NODES.forEach(n -> objs.add(node(n)));
        objs.add(group("a"));
        objs.add(group("b"));
        for (int i = 0; i < MEMBERS; i++) {
          for (String g : List.of("a", "b")) {
            objs.add(pod(run, g, i));
          }
        }
        client.apply(objs);
        Throwable end;
        try {
          end = outcome.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
          throw new IllegalStateException("timed out; bound so far: " + gang.bound, e);
        }
        if (!(end instanceof Done)) {
          throw new IllegalStateException("the watch ended: " + end, end);
        }
      } catch (Exception e) {
        System.err.println("gang (java): FAILED: " + e.getMessage());
        return 1;
      } finally {
        watcher.stop();
        cleanup(client);
      }
    }
    System.out.println("gang (java): OK, both groups ran, one after the other");
    return 0;
  }
}
