// Example orchestrator on Berth's TypeScript client: registers three nodes,
// runs three low-priority batch pods, then submits a high-priority pod that
// must preempt one of them and a pod that can never fit; binds what Berth
// binds (confirming by upserting the pod with nodeName set), stops and
// deletes what Berth evicts (logging why: preemption, a taint, the eviction
// API, node pressure), and exits 0 once every schedulable pod runs and the
// never-fitting one was reported unschedulable. It fails if Berth binds one
// of its pods twice.
//
// Its session re-lists nodes, pods and priority classes. Berth scopes a
// re-list by kind only, so each re-list deletes every node, pod and priority
// class this example did not send, including another orchestrator's: run it
// against a berthd of its own (clients/run-examples runs the examples one
// after another).
//
//   npm run build && BERTH_SERVER=127.0.0.1:7070 node dist/examples/fleet.js
import {
  BerthObject, Client, Decision, HandlerError, MemoryCheckpoint, ObjectKind, ObjectRef, parseResources, Session, Watcher,
} from "../src/index.js";
import { Evict, EvictCause } from "../src/gen/berth/v1/decision.js";
import { Pod } from "../src/gen/berth/v1/pod.js";

const NAMESPACE = "fleet-ts";
const PREFIX = "fleet-ts-"; // of cluster-scoped names: nodes, priority classes
const NEVER_FITS = "huge";

const server = process.env.BERTH_SERVER ?? "127.0.0.1:7070";
const timeoutMs = Number(process.env.FLEET_TIMEOUT_MS ?? 60_000);
const runId = Date.now().toString(16);

// The orchestrator's own record: the source of truth it re-lists.
const pods = new Map<string, Pod>();
const others: BerthObject[] = [
  ...["n1", "n2", "n3"].map((n) => BerthObject.fromPartial({ kind: { $case: "node", value: {
    name: PREFIX + n, labels: { fleet: NAMESPACE }, allocatable: parseResources({ cpu: "2", memory: "4Gi", pods: "110" }),
  } } })),
  ...([["low", 100], ["high", 1000]] as const).map(([n, v]) =>
    BerthObject.fromPartial({ kind: { $case: "priorityClass", value: { name: PREFIX + n, value: v } } })),
];
const bindRevision = new Map<string, number>(); // pod -> revision of the Bind it runs by
const evicted = new Set<string>();
const unschedulable = new Map<string, string>();
let changed: () => void = () => {};

const podObject = (p: Pod) => BerthObject.fromPartial({ kind: { $case: "pod", value: p } });
const list = () => [...others, ...[...pods.values()].map(podObject)];

// Records a new pod and returns a copy to send to Berth: the record first,
// then Berth, as the session requires (its re-list, which reads the record,
// supersedes calls made before it).
function addPod(name: string, klass: string, cpu: string): BerthObject {
  const p = Pod.fromPartial({
    namespace: NAMESPACE, name, uid: `${name}-${runId}`, priorityClassName: PREFIX + klass,
    nodeSelector: { fleet: NAMESPACE },
    containers: [{ name: "main", requests: parseResources({ cpu, memory: "256Mi" }) }],
  });
  pods.set(name, p);
  return podObject(Pod.fromPartial(p));
}

async function handle(session: Session, d: Decision): Promise<void> {
  const p = pods.get(d.pod?.name ?? "");
  if (d.pod?.namespace !== NAMESPACE || !p || p.uid !== d.pod.uid) return; // not this run's
  const a = d.action;
  switch (a?.$case) {
    case "bind": {
      // "Start" the pod, then confirm the bind by upserting it with nodeName
      // set (the API's other confirmation, equivalent to ReportBindResult
      // CONFIRMED). Through the session it is ordered after every earlier
      // upsert of the pod, so no older, pending copy can arrive after it and
      // undo it.
      const rev = bindRevision.get(p.name);
      if (rev !== undefined && rev !== d.revision) {
        throw new Error(`pod ${p.name} bound twice: to ${p.nodeName} at revision ${rev}, to ${a.value.node} at revision ${d.revision}`);
      }
      bindRevision.set(p.name, d.revision);
      p.nodeName = a.value.node;
      await session.upsert(podObject(Pod.fromPartial(p)));
      console.log(`rev ${d.revision}: bind ${p.name} -> ${a.value.node} (confirmed)`);
      break;
    }
    case "evict":
      // Stop the pod within its grace period, then delete it from Berth as
      // the orchestrator would once it has stopped. The example's pods run
      // nothing, so they stop at once, within any grace period.
      console.log(`rev ${d.revision}: evict ${p.name} from ${a.value.node} (${evictCause(a.value)}: ${a.value.reason}); ` +
        `stopped within ${gracePeriod(a.value)}`);
      pods.delete(p.name);
      evicted.add(p.name);
      await session.delete(ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_POD, namespace: NAMESPACE, name: p.name, uid: p.uid }));
      break;
    case "nominate":
      console.log(`rev ${d.revision}: nominate ${p.name} on ${a.value.node}`);
      break;
    case "unschedulable":
      if (!unschedulable.has(p.name)) console.log(`rev ${d.revision}: ${p.name} unschedulable: ${a.value.message}`);
      unschedulable.set(p.name, a.value.message);
      break;
  }
  changed();
}

// What made Berth evict a pod. Every cause asks the same of the orchestrator
// (stop the pod, then delete it); an orchestrator might act on them
// differently, say reschedule a preempted job at once but alert on node
// pressure.
function evictCause(e: Evict): string {
  switch (e.cause) {
    case EvictCause.EVICT_CAUSE_PREEMPTION:
    case EvictCause.EVICT_CAUSE_UNSPECIFIED: // written before Berth recorded causes, all preemptions
      return `preempted for ${e.preemptor?.namespace}/${e.preemptor?.name}`;
    case EvictCause.EVICT_CAUSE_TAINT:
      return "a NoExecute taint on its node";
    case EvictCause.EVICT_CAUSE_API:
      return "the eviction API";
    case EvictCause.EVICT_CAUSE_NODE_PRESSURE:
      return "node pressure";
    default:
      return `cause ${e.cause}, newer than this example`;
  }
}

// How long the pod may take to stop.
function gracePeriod(e: Evict): string {
  if (e.gracePeriodSeconds === undefined) return "its own termination grace period";
  return e.gracePeriodSeconds === 0 ? "0s (killed at once)" : `${e.gracePeriodSeconds}s`;
}

const running = (...names: string[]) => names.every((n) => !!pods.get(n)?.nodeName);
const done = () =>
  [...pods.values()].every((p) => p.name === NEVER_FITS || !!p.nodeName) &&
  unschedulable.has(NEVER_FITS) && evicted.size > 0 && pods.has("critical");

function report(): void {
  for (const n of [...pods.keys()].sort()) console.log(`  ${n.padEnd(10)} ${pods.get(n)!.nodeName || "pending"}`);
  console.log(`  evicted: ${[...evicted].sort().join(", ")}`);
}

async function main(): Promise<number> {
  // Three low-priority batch jobs fill three quarters of every node. They are
  // in the record before the session starts, so its first re-list sends them
  // with the nodes and priority classes: no upsert needed.
  for (const name of ["batch-1", "batch-2", "batch-3"]) addPod(name, "low", "1500m");
  const client = new Client(server, { token: process.env.BERTH_TOKEN });
  // The re-list is scoped to the kinds this example sends, which the API
  // allows; within a kind it is global (see above).
  const session = new Session(client, list, {
    resyncKinds: [ObjectKind.OBJECT_KIND_NODE, ObjectKind.OBJECT_KIND_POD, ObjectKind.OBJECT_KIND_PRIORITY_CLASS],
  }).start();
  let failure: unknown;
  const watcher = new Watcher(client, new MemoryCheckpoint(),
    (d) => handle(session, d), { startAt: 1, onCompacted: (ce) => ce.oldest });
  const watching = watcher.run().catch((e) => { failure = e instanceof HandlerError ? e.error : e; changed(); });
  const deadline = Date.now() + timeoutMs;
  const until = async (cond: () => boolean) => {
    while (!cond()) {
      if (failure) throw failure;
      if (session.error) throw session.error;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("timed out");
      await new Promise<void>((resolve) => { changed = resolve; setTimeout(resolve, Math.min(left, 500)); });
    }
  };
  try {
    console.log("registered 3 nodes and 3 low-priority batch pods");
    await until(() => running("batch-1", "batch-2", "batch-3"));
    await session.upsert(addPod("critical", "high", "1"), addPod(NEVER_FITS, "low", "64"));
    console.log("submitted critical (must preempt) and huge (never fits)");
    await until(done);
    report();
    await client.delete([
      ...[...pods.keys()].map((name) => ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_POD, namespace: NAMESPACE, name })),
      ...others.map((o) => o.kind?.$case === "node"
        ? ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_NODE, name: o.kind.value.name })
        : ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_PRIORITY_CLASS, name: o.kind?.$case === "priorityClass" ? o.kind.value.name : "" })),
    ]);
    console.log("fleet (typescript): OK, every schedulable pod is running");
    return 0;
  } catch (e) {
    report();
    console.error(`fleet (typescript): FAILED: ${(e as Error).message ?? e}`);
    return 1;
  } finally {
    watcher.stop();
    await session.close();
    await watching;
    client.close();
  }
}

main().then((code) => process.exit(code));
