package io.berthsched.berth.examples;

import io.berthsched.berth.client.Checkpoint;
import io.berthsched.berth.client.Client;
import io.berthsched.berth.client.HandlerException;
import io.berthsched.berth.client.Watcher;
import io.berthsched.berth.v1.ClaimAllocation;
import io.berthsched.berth.v1.Container;
import io.berthsched.berth.v1.DeallocateClaim;
import io.berthsched.berth.v1.Decision;
import io.berthsched.berth.v1.Device;
import io.berthsched.berth.v1.DeviceAttribute;
import io.berthsched.berth.v1.DeviceClass;
import io.berthsched.berth.v1.DeviceRequest;
import io.berthsched.berth.v1.DeviceRequestAllocationResult;
import io.berthsched.berth.v1.DeviceSelector;
import io.berthsched.berth.v1.ExactDeviceRequest;
import io.berthsched.berth.v1.Node;
import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.ObjectKind;
import io.berthsched.berth.v1.ObjectRef;
import io.berthsched.berth.v1.Pod;
import io.berthsched.berth.v1.PodResourceClaim;
import io.berthsched.berth.v1.ResourceClaimSpec;
import io.berthsched.berth.v1.ResourceClaimTemplate;
import io.berthsched.berth.v1.ResourcePool;
import io.berthsched.berth.v1.ResourceSlice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Dynamic resource allocation example on Berth's Java client, the twin of the Go, Python and
 * TypeScript devices examples.
 *
 * <p>Registers a node with two GPUs (a ResourceSlice), a DeviceClass selecting them by CEL and a
 * ResourceClaimTemplate of one GPU, then submits three pods that each claim a GPU through the
 * template. Reads each pod's allocation from its Bind (the claim Berth made for the pod, and the
 * driver/pool/device), confirms the bind, sees the third pod wait, deletes the first pod, reads
 * the DeallocateClaim that frees its GPU, and sees the third pod bound to exactly that GPU. Exits
 * 0 when all of that happened; fails if a GPU is ever given to two pods. It uses apply/delete (no
 * session, no re-list), so other orchestrators' objects are left alone.
 *
 * <pre>clients/java/build example devices --server 127.0.0.1:7070</pre>
 */
public final class Devices {
  static final String NAMESPACE = "devices-java";
  static final String PREFIX = "devices-java-"; // of the cluster-scoped objects' names
  static final String DRIVER = "gpu.example.com";

  /** The freed GPU was handed on: stops the watcher. */
  static final class Done extends Exception {
    private static final long serialVersionUID = 1L;
  }

  private final Client client;
  private final String run;
  private final Map<String, String> held = new TreeMap<>(); // driver/pool/device -> pod
  private boolean waiting;
  private boolean deleted;
  private String freed;

  Devices(Client client, String run) {
    this.client = client;
    this.run = run;
  }

  /** Follows the allocations, on the watcher's thread. */
  void handle(Decision d) throws Exception {
    if (!d.getPod().getUid().startsWith(run + "-")) {
      return; // another orchestrator's, or an earlier run's
    }
    String name = d.getPod().getName();
    switch (d.getActionCase()) {
      case BIND:
        for (ClaimAllocation claim : d.getBind().getClaimsList()) {
          for (DeviceRequestAllocationResult dev : claim.getAllocation().getDevicesList()) {
            String gpu = dev.getDriver() + "/" + dev.getPool() + "/" + dev.getDevice();
            System.out.printf("%s -> %s: claim %s (entry %s), request %s: %s%n", name,
                d.getBind().getNode(), claim.getName(), claim.getPodClaimNamesList(), dev.getRequest(), gpu);
            if (held.containsKey(gpu)) {
              throw new IllegalStateException(gpu + " given to " + name + " while " + held.get(gpu) + " holds it");
            }
            if (freed != null && !gpu.equals(freed)) {
              throw new IllegalStateException(name + " got " + gpu + ", want the freed " + freed);
            }
            held.put(gpu, name);
          }
        }
        client.confirmBind(d);
        if (freed != null) {
          throw new Done();
        }
        break;
      case UNSCHEDULABLE:
        System.out.println(name + " waits: " + d.getUnschedulable().getMessage());
        waiting = waiting || name.equals("train-2");
        break;
      case DEALLOCATE_CLAIM: {
        DeallocateClaim x = d.getDeallocateClaim();
        for (DeviceRequestAllocationResult dev : x.getAllocation().getDevicesList()) {
          freed = dev.getDriver() + "/" + dev.getPool() + "/" + dev.getDevice();
          held.remove(freed);
        }
        System.out.printf("claim %s/%s deallocated (deleted with its pod: %s): %s is free%n",
            x.getNamespace(), x.getName(), x.getClaimDeleted(), freed);
        break;
      }
      default:
        break;
    }
    endFirstJob();
  }

  /** Deletes train-0 once both GPUs are taken and train-2 waits. */
  private void endFirstJob() {
    if (deleted || !waiting || held.size() < 2) {
      return;
    }
    deleted = true;
    System.out.println("train-0's job ends: deleting it");
    client.delete(podRef("train-0"));
  }

  static List<Object> objects() {
    List<Device> gpus = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      gpus.add(Device.newBuilder().setName("gpu-" + i)
          .putAttributes("model", DeviceAttribute.newBuilder().setString("a100").build())
          .putCapacity("memory", "40Gi").build());
    }
    return List.of(
        Object.newBuilder().setDeviceClass(DeviceClass.newBuilder().setName(PREFIX + "gpu")
            .addSelectors(DeviceSelector.newBuilder().setCel("device.driver == \"" + DRIVER + "\""))).build(),
        Object.newBuilder().setNode(Node.newBuilder().setName(PREFIX + "n1")
            .putLabels("kubernetes.io/hostname", PREFIX + "n1")
            .putAllocatable("cpu", 8000).putAllocatable("memory", 32L << 30).putAllocatable("pods", 110)).build(),
        Object.newBuilder().setResourceSlice(ResourceSlice.newBuilder().setName(PREFIX + "n1-gpus")
            .setDriver(DRIVER).setNodeName(PREFIX + "n1").addAllDevices(gpus)
            .setPool(ResourcePool.newBuilder().setName(PREFIX + "n1").setGeneration(1).setResourceSliceCount(1)))
            .build(),
        Object.newBuilder().setResourceClaimTemplate(ResourceClaimTemplate.newBuilder()
            .setNamespace(NAMESPACE).setName("one-gpu")
            .setSpec(ResourceClaimSpec.newBuilder().addRequests(DeviceRequest.newBuilder().setName("gpu")
                .setExactly(ExactDeviceRequest.newBuilder().setDeviceClassName(PREFIX + "gpu")
                    .addSelectors(DeviceSelector.newBuilder()
                        .setCel("device.attributes[\"" + DRIVER + "\"].model == \"a100\"")))))).build());
  }

  static Object pod(String run, String name) {
    return Object.newBuilder().setPod(Pod.newBuilder().setUid(run + "-" + name).setNamespace(NAMESPACE)
        .setName(name)
        .addResourceClaims(PodResourceClaim.newBuilder().setName("gpu").setResourceClaimTemplateName("one-gpu"))
        .addContainers(Container.newBuilder().setName("main").putRequests("cpu", 1000)
            .putRequests("memory", 1L << 30).addClaims("gpu")))
        .build();
  }

  static ObjectRef podRef(String name) {
    return ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_POD).setNamespace(NAMESPACE).setName(name).build();
  }

  static void cleanup(Client client) {
    List<ObjectRef> refs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      refs.add(podRef("train-" + i));
    }
    refs.add(ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE)
        .setNamespace(NAMESPACE).setName("one-gpu").build());
    refs.add(ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_RESOURCE_SLICE).setName(PREFIX + "n1-gpus").build());
    refs.add(ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_DEVICE_CLASS).setName(PREFIX + "gpu").build());
    refs.add(ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_NODE).setName(PREFIX + "n1").build());
    client.delete(refs); // the pod deleted already counts as deleted
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
          System.err.println("usage: Devices [--server host:port[,host:port...]] [--token T] [--timeout SECONDS]");
          System.exit(2);
      }
    }
    System.exit(run(server, token, timeout));
  }

  static int run(String server, String token, Duration timeout) throws Exception {
    try (Client client = Client.builder(server).token(token).build()) {
      String run = NAMESPACE + "-" + Long.toHexString(System.nanoTime());
      Devices gpus = new Devices(client, run);
      // The whole log, so no decision is missed; this run's pods by uid.
      Watcher watcher = client.newWatcher(Checkpoint.memory(), gpus::handle,
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
      }, "devices-watch");
      watching.setDaemon(true);
      watching.start();
      try {
        // Classes before the claims that name them; slice and template before the pods.
        client.apply(objects());
        client.apply(pod(run, "train-0"), pod(run, "train-1"), pod(run, "train-2"));
        Throwable end;
        try {
          end = outcome.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
          throw new IllegalStateException("timed out; held so far: " + gpus.held, e);
        }
        if (!(end instanceof Done)) {
          throw new IllegalStateException("the watch ended: " + end, end);
        }
      } catch (Exception e) {
        System.err.println("devices (java): FAILED: " + e.getMessage());
        return 1;
      } finally {
        watcher.stop();
        cleanup(client);
      }
    }
    System.out.println("devices (java): OK, each pod got its own GPU and a freed GPU was handed on");
    return 0;
  }
}
