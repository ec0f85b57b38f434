// Queues and quotas (Kueue's model) example on Berth's TypeScript client:
// two teams share a cohort of two ClusterQueues of 4 cpu each. Team A
// submits eight 1-cpu pods: four fit its own quota and four borrow team B's
// unused quota, so all eight are admitted and bound. Team B then submits two
// pods: its ClusterQueue reclaims its nominal quota (reclaimWithinCohort:
// Any), so Berth evicts two of team A's pods with cause QUOTA; the example
// deletes them, as an orchestrator would once they stopped, and team B's
// pods are admitted and bound. Exits 0 when all of that happened.
//
// It uses apply/delete (no session, no re-list), so other orchestrators'
// objects are left alone; it deletes its own at the end.
//
//   npm run build && BERTH_SERVER=127.0.0.1:7070 node dist/examples/batch.js
import { BerthObject, Client, Decision, decisionPb, HandlerError, MemoryCheckpoint, ObjectKind, ObjectRef, queueingPb, Watcher } from "../src/index.js";

const PREFIX = "batch-ts-"; // of every object's name or namespace
const QUEUE = "jobs"; // each team's LocalQueue
const QUEUE_LABEL = "kueue.x-k8s.io/queue-name";

const server = process.env.BERTH_SERVER ?? "127.0.0.1:7070";
const timeoutMs = Number(process.env.BATCH_TIMEOUT_MS ?? 60_000);
const run = `${PREFIX}${Date.now().toString(16)}`; // the prefix of this run's pods' uids

class Done extends Error {}

const node = (name: string) => BerthObject.fromPartial({ kind: { $case: "node", value: {
  name: PREFIX + name, labels: { "kubernetes.io/hostname": PREFIX + name, pool: PREFIX + "batch" },
  allocatable: { cpu: 4000, memory: 16 * 2 ** 30, pods: 110 },
} } });

// The flavor (the example's nodes), each team's namespace, ClusterQueue of
// 4 cpu in one cohort (it may borrow what the other does not use and takes
// its own back) and LocalQueue.
const queues = () => [
  BerthObject.fromPartial({ kind: { $case: "resourceFlavor", value: { name: PREFIX + "nodes", nodeLabels: { pool: PREFIX + "batch" } } } }),
  ...["a", "b"].flatMap((team) => [
    BerthObject.fromPartial({ kind: { $case: "namespace", value: { name: PREFIX + team } } }),
    BerthObject.fromPartial({ kind: { $case: "clusterQueue", value: {
      name: PREFIX + team, cohort: PREFIX + "teams",
      namespaceSelector: {}, // an empty selector admits every namespace; none would admit none
      resourceGroups: [{ coveredResources: ["cpu"], flavors: [{ name: PREFIX + "nodes", resources: [{ name: "cpu", nominalQuota: 4000 }] }] }],
      preemption: {
        reclaimWithinCohort: queueingPb.QueuePreemptionPolicy.QUEUE_PREEMPTION_POLICY_ANY,
        withinClusterQueue: queueingPb.QueuePreemptionPolicy.QUEUE_PREEMPTION_POLICY_LOWER_PRIORITY,
      },
    } } }),
    BerthObject.fromPartial({ kind: { $case: "localQueue", value: { namespace: PREFIX + team, name: QUEUE, clusterQueue: PREFIX + team } } }),
  ]),
];

// A one-pod workload of a team's queue: 1 cpu. It requests only what the
// ClusterQueues cover: Kueue refuses a workload asking for a resource its
// ClusterQueue has no quota of.
const pod = (team: string, i: number) => BerthObject.fromPartial({ kind: { $case: "pod", value: {
  uid: `${run}-${team}-job-${i}`, namespace: PREFIX + team, name: `job-${i}`, priority: 0,
  labels: { [QUEUE_LABEL]: QUEUE },
  containers: [{ name: "main", requests: { cpu: 1000 } }],
} } });
const ref = (kind: ObjectKind, name: string, namespace = "") => ObjectRef.fromPartial({ kind, namespace, name });

// Plays the orchestrator: confirms binds and deletes evicted pods.
// Decisions reach it one at a time.
class Fleet {
  private readonly bound = new Map<string, string>(); // namespace/name -> node
  private readonly evicted = new Set<string>();
  private teamB = false;

  constructor(private readonly client: Client) {}

  async handle(d: Decision): Promise<void> {
    const a = d.action;
    if (a?.$case === "admit") {
      if (a.value.workloadNamespace.startsWith(PREFIX)) {
        console.log(`rev ${d.revision}: admit ${a.value.workloadNamespace}/${a.value.workloadName} to ${a.value.clusterQueue}`);
      }
      return;
    }
    if (a?.$case === "evictWorkload") {
      const w = a.value;
      if (w.workloadNamespace.startsWith(PREFIX)) {
        console.log(`rev ${d.revision}: workload ${w.workloadNamespace}/${w.workloadName} loses its quota (${w.reason}): ${w.message}`);
      }
      return;
    }
    const p = d.pod;
    if (!p?.uid.startsWith(run + "-")) return; // not this run's
    const key = `${p.namespace}/${p.name}`;
    if (a?.$case === "bind") {
      console.log(`rev ${d.revision}: bind ${key} to ${a.value.node}`);
      await this.client.confirmBind(d);
      await this.onBound(key, a.value.node);
    } else if (a?.$case === "evict") {
      if (a.value.cause !== decisionPb.EvictCause.EVICT_CAUSE_QUOTA) throw new Error(`${key} evicted for ${a.value.cause}, want cause QUOTA`);
      console.log(`rev ${d.revision}: evict ${key} (quota): ${a.value.reason}`);
      this.bound.delete(key);
      this.evicted.add(key);
      // The pod stops at once (it runs nothing): delete it from Berth.
      await this.client.delete([ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_POD, namespace: p.namespace, name: p.name, uid: p.uid })]);
    }
  }

  // Moves the story on: once team A's eight pods run, team B submits its
  // two; once those run after two of team A's were evicted, done.
  private async onBound(key: string, node: string): Promise<void> {
    this.bound.set(key, node);
    const a = [...this.bound.keys()].filter((k) => k.startsWith(PREFIX + "a/")).length;
    const b = this.bound.size - a;
    if (a === 8 && !this.teamB) {
      this.teamB = true;
      console.log("team A runs 8 pods on 8 cpu (4 of them borrowed); team B submits 2");
      await this.client.apply([pod("b", 0), pod("b", 1)]);
    } else if (b === 2) {
      if (this.evicted.size !== 2 || a !== 6) throw new Error(`team B runs 2 pods, team A ${a} with ${this.evicted.size} evicted; want 6 and 2`);
      throw new Done();
    }
  }
}

async function cleanup(client: Client): Promise<void> {
  const refs: ObjectRef[] = [];
  for (const team of ["a", "b"]) {
    for (let i = 0; i < 8; i++) refs.push(ref(ObjectKind.OBJECT_KIND_POD, `job-${i}`, PREFIX + team));
    refs.push(ref(ObjectKind.OBJECT_KIND_LOCAL_QUEUE, QUEUE, PREFIX + team), ref(ObjectKind.OBJECT_KIND_CLUSTER_QUEUE, PREFIX + team));
  }
  refs.push(ref(ObjectKind.OBJECT_KIND_RESOURCE_FLAVOR, PREFIX + "nodes"),
    ref(ObjectKind.OBJECT_KIND_NODE, PREFIX + "n1"), ref(ObjectKind.OBJECT_KIND_NODE, PREFIX + "n2"));
  // One by one: a pod already gone (NOT_FOUND) must not keep the rest.
  for (const r of refs) await client.delete([r]).catch(() => {});
}

async function main(): Promise<number> {
  const client = new Client(server, { token: process.env.BERTH_TOKEN });
  const fleet = new Fleet(client);
  const watcher = new Watcher(client, new MemoryCheckpoint(), (d) => fleet.handle(d),
    { startAt: 1, onCompacted: (ce) => ce.oldest });
  let timer: NodeJS.Timeout | undefined;
  try {
    const watching = watcher.run().then(
      () => { throw new Error("the watch ended"); },
      (e) => { const err = e instanceof HandlerError ? e.error : e; if (!(err instanceof Done)) throw err; });
    watching.catch(() => {}); // handled by the race below; not unhandled meanwhile
    // The queues before the pods: a pod naming a LocalQueue Berth does not
    // know waits, as in Kueue, until the queue exists.
    await client.apply([node("n1"), node("n2"), ...queues()]);
    await client.apply(Array.from({ length: 8 }, (_, i) => pod("a", i)));
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timed out")), timeoutMs);
    });
    await Promise.race([watching, timeout]);
    console.log("batch (typescript): OK, team A borrowed, team B reclaimed its quota by preemption");
    return 0;
  } catch (e) {
    console.error(`batch (typescript): FAILED: ${(e as Error).message ?? e}`);
    return 1;
  } finally {
    clearTimeout(timer);
    watcher.stop();
    await cleanup(client);
    client.close();
  }
}

main().then((code) => process.exit(code));
