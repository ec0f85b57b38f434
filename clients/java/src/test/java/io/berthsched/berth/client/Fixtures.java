package io.berthsched.berth.client;

import io.berthsched.berth.v1.Bind;
import io.berthsched.berth.v1.Decision;
import io.berthsched.berth.v1.Node;
import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.ObjectKind;
import io.berthsched.berth.v1.ObjectRef;
import io.berthsched.berth.v1.Pod;
import io.berthsched.berth.v1.PodRef;
import io.grpc.inprocess.InProcessChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/** Builders of the tests' objects and clients. */
final class Fixtures {
  private Fixtures() {}

  static Object node(String name) {
    return Object.newBuilder().setNode(Node.newBuilder().setName(name).putAllocatable("cpu", 4000)).build();
  }

  static Object pod(String name) {
    return pod(name, "");
  }

  static Object pod(String name, String nodeName) {
    return Object.newBuilder().setPod(Pod.newBuilder().setNamespace("ns").setName(name)
        .setUid(name + "-uid").setNodeName(nodeName)).build();
  }

  static ObjectRef podRef(String name) {
    return ObjectRef.newBuilder().setKind(ObjectKind.OBJECT_KIND_POD).setNamespace("ns").setName(name).build();
  }

  static Decision bind(String pod, String node) {
    return Decision.newBuilder().setPod(PodRef.newBuilder().setNamespace("ns").setName(pod).setUid(pod + "-uid"))
        .setBind(Bind.newBuilder().setNode(node)).build();
  }

  /** A unique in-process server name. */
  static String name(String prefix) {
    return prefix + "-" + UUID.randomUUID();
  }

  /** The sleeps a router was asked for; it sleeps none of them. */
  static final class Sleeps implements Router.Sleeper {
    final List<Duration> slept = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void sleep(Duration d) {
      slept.add(d);
    }
  }

  /** A client of in-process fakes, with a backoff short enough to keep the tests fast. */
  static Client.Builder client(String target) {
    return Client.builder(target).channelBuilder(InProcessChannelBuilder::forName)
        .backoff(new Backoff(Duration.ofMillis(1), Duration.ofMillis(20), 2));
  }
}
