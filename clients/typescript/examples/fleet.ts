// Example orchestrator on Berth's TypeScript client: registers three nodes,
// runs three low-priority batch pods, then submits a high-priority pod that
// must preempt one of them and a pod that can never fit; binds what Berth
// binds (ReportBindResult CONFIRMED), deletes what Berth evicts, and exits 0
// once every schedulable pod runs and the never-fitting one was reported
// unschedulable.
//
//   npm run build && BERTH_SERVER=127.0.0.1:7070 node dist/examples/fleet.js
import { BerthObject, Client, Decision, MemoryCheckpoint, ObjectKind, ObjectRef, Session, Watcher } from "../src/index.js";
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
    name: PREFIX + n, labels: { fleet: NAMESPACE }, allocatable: { cpu: 2000, memory: 4 * 2 ** 30, pods: 110 },
  } } })),
  ...([["low", 100], ["high", 1000]] as const).map(([n, v]) =>
    BerthObject.fromPartial({ kind: { $case: "priorityClass", value: { name: PREFIX + n, value: v } } })),
];
const evicted = new Set<string>();
const unschedulable = new Map<string, string>();
let changed: () => void = () => {};

// Pods whose first upsert is on its way: a re-list leaves them out, so it
// cannot send them a second time, pending, after Berth bound them (Berth
// refuses an upsert that would make a bound pod pending again).
const submitting = new Set<string>();

const podObject = (p: Pod) => BerthObject.fromPartial({ kind: { $case: "pod", value: p } });
const list = () => [...others, ...[...pods.values()].filter((p) => !submitting.has(p.name)).map(podObject)];

function pod(name: string, klass: string, milliCpu: number): BerthObject {
  const p = Pod.fromPartial({
    namespace: NAMESPACE, name, uid: `${name}-${runId}`, priorityClassName: PREFIX + klass,
    nodeSelector: { fleet: NAMESPACE },
    containers: [{ name: "main", requests: { cpu: milliCpu, memory: 256 * 2 ** 20 } }],
  });
  pods.set(name, p);
  submitting.add(name);
  return podObject(p);
}

async function submit(session: Session, ...objs: BerthObject[]): Promise<void> {
  try {
    await session.upsert(...objs);
  } finally {
    for (const o of objs) if (o.kind?.$case === "pod") submitting.delete(o.kind.value.name);
  }
}

async function handle(client: Client, session: Session, d: Decision): Promise<void> {
  const p = pods.get(d.pod?.name ?? "");
  if (d.pod?.namespace !== NAMESPACE || !p || p.uid !== d.pod.uid) return; // not this run's
  const a = d.action;
  switch (a?.$case) {
    case "bind":
      p.nodeName = a.value.node; // "start" the pod; re-lists now carry node_name
      await client.confirmBind(d);
      console.log(`rev ${d.revision}: bind ${p.name} -> ${a.value.node} (confirmed)`);
      break;
    case "evict":
      console.log(`rev ${d.revision}: evict ${p.name} from ${a.value.node} for ${a.value.preemptor?.name}`);
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

const running = (...names: string[]) => names.every((n) => !!pods.get(n)?.nodeName);
const done = () =>
  [...pods.values()].every((p) => p.name === NEVER_FITS || !!p.nodeName) &&
  unschedulable.has(NEVER_FITS) && evicted.size > 0 && pods.has("critical");

function report(): void {
  for (const n of [...pods.keys()].sort()) console.log(`  ${n.padEnd(10)} ${pods.get(n)!.nodeName || "pending"}`);
  console.log(`  evicted: ${[...evicted].sort().join(", ")}`);
}

async function main(): Promise<number> {
  const client = new Client(server, { token: process.env.BERTH_TOKEN });
  const session = new Session(client, list).start();
  let failure: unknown;
  const watcher = new Watcher(client, new MemoryCheckpoint(),
    (d) => handle(client, session, d), { startAt: 1, onCompacted: (ce) => ce.oldest });
  const watching = watcher.run().catch((e) => { failure = e; changed(); });
  const deadline = Date.now() + timeoutMs;
  const until = async (cond: () => boolean) => {
    while (!cond()) {
      if (failure) throw failure;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("timed out");
      await new Promise<void>((resolve) => { changed = resolve; setTimeout(resolve, Math.min(left, 500)); });
    }
  };
  try {
    await submit(session, pod("batch-1", "low", 1500), pod("batch-2", "low", 1500), pod("batch-3", "low", 1500));
    console.log("submitted 3 nodes and 3 low-priority batch pods");
    await until(() => running("batch-1", "batch-2", "batch-3"));
    await submit(session, pod("critical", "high", 1000), pod(NEVER_FITS, "low", 64_000));
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
