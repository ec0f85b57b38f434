// Gang scheduling example on Berth's TypeScript client: registers two nodes
// with room for one group of four pods, submits two such groups (PodGroup
// objects, pods naming them with schedulingGroup), confirms the binds of the
// group Berth places (all four in one commit, each Bind naming its group),
// ends that group's job (deletes its pods) and waits for the other group to
// be placed in turn. Exits 0 when both groups ran one after the other; fails
// if a group is ever partly bound or a Bind names another group than its
// pod's.
//
// It uses apply/delete (no session, no re-list), so other orchestrators'
// objects are left alone; it deletes its own at the end.
//
//   npm run build && BERTH_SERVER=127.0.0.1:7070 node dist/examples/gang.js
import { BerthObject, Client, Decision, HandlerError, MemoryCheckpoint, ObjectKind, ObjectRef, Watcher } from "../src/index.js";

const NAMESPACE = "gang-ts";
const NODES = ["gang-ts-n1", "gang-ts-n2"];
const GROUPS = ["a", "b"];
const MEMBERS = 4;

const server = process.env.BERTH_SERVER ?? "127.0.0.1:7070";
const timeoutMs = Number(process.env.GANG_TIMEOUT_MS ?? 60_000);
const run = `${NAMESPACE}-${Date.now().toString(16)}`; // the prefix of this run's pods' uids

class Done extends Error {}

const node = (name: string) => BerthObject.fromPartial({ kind: { $case: "node", value: {
  name, labels: { "kubernetes.io/hostname": name }, allocatable: { cpu: 4000, memory: 16 * 2 ** 30, pods: 110 },
} } });
const group = (name: string) =>
  BerthObject.fromPartial({ kind: { $case: "podGroup", value: { namespace: NAMESPACE, name, minCount: MEMBERS } } });
// Member i of group g: 2 cpu, so a 4-cpu node takes two.
const pod = (g: string, i: number) => BerthObject.fromPartial({ kind: { $case: "pod", value: {
  uid: `${run}-${g}-${i}`, namespace: NAMESPACE, name: `${g}-${i}`, schedulingGroup: g,
  containers: [{ name: "main", requests: { cpu: 2000, memory: 2 ** 30 } }],
} } });
const podRef = (name: string) => ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_POD, namespace: NAMESPACE, name });

// Follows the binds of the two groups; decisions reach it one at a time.
class Groups {
  readonly bound = new Map<string, Map<string, string>>(); // group -> pod -> node
  private first = "";

  constructor(private readonly client: Client) {}

  async handle(d: Decision): Promise<void> {
    const ref = d.pod;
    if (!ref?.uid.startsWith(run + "-")) return; // not this run's
    const a = d.action;
    if (a?.$case === "unschedulable") console.log(`${ref.name} waits: ${a.value.message}`);
    if (a?.$case !== "bind") return;
    const want = ref.name.split("-")[0]; // the group the pod was submitted in
    if (a.value.group !== want) throw new Error(`bind of ${ref.name} names group "${a.value.group}", not ${want}`);
    const pods = this.bound.get(want) ?? new Map<string, string>();
    this.bound.set(want, pods.set(ref.name, a.value.node));
    await this.client.confirmBind(d);
    if (pods.size < MEMBERS) return;
    console.log(`group ${want} bound: ${[...pods].sort().map(([p, n]) => `${p}->${n}`).join(", ")}`);
    if (this.first) throw new Done();
    this.first = want;
    for (const [other, ps] of this.bound) {
      if (other !== want && ps.size > 0) throw new Error(`group ${other} was partly bound (${[...ps.keys()]}) while ${want} ran`);
    }
    console.log(`group ${want}'s job ends: deleting its pods`);
    await this.client.delete([...pods.keys()].map(podRef));
  }
}

// Deletes what the example sent; the first group's pods are already gone.
async function cleanup(client: Client): Promise<void> {
  const refs = [
    ...GROUPS.flatMap((g) => [...Array(MEMBERS).keys()].map((i) => podRef(`${g}-${i}`))),
    ...GROUPS.map((name) => ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_POD_GROUP, namespace: NAMESPACE, name })),
    ...NODES.map((name) => ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_NODE, name })),
  ];
  await client.delete(refs).catch(() => {}); // NOT_FOUND for the pods already deleted
}

async function main(): Promise<number> {
  const client = new Client(server, { token: process.env.BERTH_TOKEN });
  const groups = new Groups(client);
  // The whole log, so no decision is missed; this run's pods by uid.
  const watcher = new Watcher(client, new MemoryCheckpoint(), (d) => groups.handle(d),
    { startAt: 1, onCompacted: (ce) => ce.oldest });
  let timer: NodeJS.Timeout | undefined;
  try {
    const watching = watcher.run().then(
      () => { throw new Error("the watch ended"); },
      (e) => { const err = e instanceof HandlerError ? e.error : e; if (!(err instanceof Done)) throw err; });
    watching.catch(() => {}); // handled by the race below; not unhandled meanwhile
    await client.apply([
      ...NODES.map(node), ...GROUPS.map(group),
      ...[...Array(MEMBERS).keys()].flatMap((i) => GROUPS.map((g) => pod(g, i))),
    ]);
    const bound = () => JSON.stringify([...groups.bound].map(([g, pods]) => [g, Object.fromEntries(pods)]));
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out; bound so far: ${bound()}`)), timeoutMs);
    });
    await Promise.race([watching, timeout]);
    console.log("gang (typescript): OK, both groups ran, one after the other");
    return 0;
  } catch (e) {
    console.error(`gang (typescript): FAILED: ${(e as Error).message ?? e}`);
    return 1;
  } finally {
    clearTimeout(timer);
    watcher.stop();
    await cleanup(client);
    client.close();
  }
}

main().then((code) => process.exit(code));
