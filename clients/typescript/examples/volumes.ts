// Persistent storage example on Berth's TypeScript client: registers two
// nodes, each with a local volume (10 GiB on n1, 20 GiB on n2) of a
// WaitForFirstConsumer class, and a claim of 15 GiB. Submits a pod using
// the claim and reads, from the pod's Bind, the volume Berth chose for the
// claim (the only one big enough, on n2); then does the volume controller's
// part (sends the volume bound to the claim and the claim bound to the
// volume) and confirms the bind. A second pod sharing the claim must go to
// the same node. Exits 0 when all of that happened.
//
// It uses apply/delete (no session, no re-list), so other orchestrators'
// objects are left alone; it deletes its own at the end.
//
//   npm run build && BERTH_SERVER=127.0.0.1:7070 node dist/examples/volumes.js
import { BerthObject, Client, Decision, HandlerError, MemoryCheckpoint, ObjectKind, ObjectRef, volumePb, Watcher } from "../src/index.js";
import { NodeSelectorOperator } from "../src/gen/berth/v1/selector.js";

const NAMESPACE = "volumes-ts";
const PREFIX = "volumes-ts-"; // of the cluster-scoped objects' names
const CLAIM = "data";
const RWO = volumePb.PersistentVolumeAccessMode.PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE;

const server = process.env.BERTH_SERVER ?? "127.0.0.1:7070";
const timeoutMs = Number(process.env.VOLUMES_TIMEOUT_MS ?? 60_000);
const run = `${NAMESPACE}-${Date.now().toString(16)}`; // the prefix of this run's pods' uids

class Done extends Error {}

const node = (name: string) => BerthObject.fromPartial({ kind: { $case: "node", value: {
  name: PREFIX + name, labels: { "kubernetes.io/hostname": PREFIX + name }, allocatable: { cpu: 8000, memory: 32 * 2 ** 30, pods: 110 },
} } });

// A disk of node, bound to the claim boundTo when given.
const localVolume = (nodeName: string, gib: number, boundTo?: string) => BerthObject.fromPartial({ kind: { $case: "persistentVolume", value: {
  name: `${PREFIX}${nodeName}-disk`, capacityBytes: gib * 2 ** 30, storageClassName: PREFIX + "local", accessModes: [RWO],
  nodeAffinity: { nodeSelectorTerms: [{ matchExpressions: [{
    key: "kubernetes.io/hostname", operator: NodeSelectorOperator.NODE_SELECTOR_OPERATOR_IN, values: [PREFIX + nodeName],
  }] }] },
  ...(boundTo ? { claimRef: { namespace: NAMESPACE, name: boundTo }, phase: volumePb.PersistentVolumePhase.PERSISTENT_VOLUME_PHASE_BOUND } : {}),
} } });

// The 15 GiB claim, bound to volume when given.
const claim = (volume?: string) => BerthObject.fromPartial({ kind: { $case: "persistentVolumeClaim", value: {
  namespace: NAMESPACE, name: CLAIM, requestBytes: 15 * 2 ** 30, storageClassName: PREFIX + "local", accessModes: [RWO],
  ...(volume ? { volumeName: volume, bindCompleted: true, phase: volumePb.PersistentVolumeClaimPhase.PERSISTENT_VOLUME_CLAIM_PHASE_BOUND } : {}),
} } });

// The class before the claim (a claim without one takes the default class).
const cluster = () => [
  BerthObject.fromPartial({ kind: { $case: "storageClass", value: {
    name: PREFIX + "local", provisioner: "kubernetes.io/no-provisioner",
    volumeBindingMode: volumePb.VolumeBindingMode.VOLUME_BINDING_MODE_WAIT_FOR_FIRST_CONSUMER,
  } } }),
  node("n1"), node("n2"), localVolume("n1", 10), localVolume("n2", 20), claim(),
];

const pod = (name: string) => BerthObject.fromPartial({ kind: { $case: "pod", value: {
  uid: `${run}-${name}`, namespace: NAMESPACE, name, priority: 0,
  containers: [{ name: "main", requests: { cpu: 1000, memory: 2 ** 30 } }],
  volumes: [
    { name: "data", source: { $case: "persistentVolumeClaim", value: { claimName: CLAIM, readOnly: false } } },
    { name: "tmp", source: { $case: "other", value: "emptyDir" } },
  ],
} } });
const ref = (kind: ObjectKind, name: string, namespace = "") => ObjectRef.fromPartial({ kind, namespace, name });

// Follows the binds; decisions reach it one at a time.
class Storage {
  private node = ""; // where db-0 went

  constructor(private readonly client: Client) {}

  async handle(d: Decision): Promise<void> {
    const p = d.pod;
    if (!p?.uid.startsWith(run + "-")) return; // not this run's
    const a = d.action;
    if (a?.$case === "unschedulable") throw new Error(`${p.name} unschedulable: ${a.value.message}`);
    if (a?.$case !== "bind") return;
    const { node, volumes } = a.value;
    for (const v of volumes) console.log(`${p.name} -> ${node}: claim ${v.claim} gets volume "${v.volume}" (provision on "${v.selectedNode}")`);
    if (p.name === "db-0") {
      if (volumes.length !== 1 || volumes[0].claim !== CLAIM || volumes[0].volume !== `${PREFIX}n2-disk` || node !== `${PREFIX}n2`) {
        throw new Error(`db-0: bound to ${node} with volumes ${JSON.stringify(volumes)}, want claim ${CLAIM} on ${PREFIX}n2-disk on ${PREFIX}n2`);
      }
      // The volume controller's part: bind the claim to the volume.
      await this.client.apply([localVolume("n2", 20, CLAIM), claim(volumes[0].volume)]);
      this.node = node;
      await this.client.confirmBind(d);
      await this.client.apply([pod("db-1")]);
    } else if (p.name === "db-1") {
      if (node !== this.node || volumes.length !== 0) {
        throw new Error(`db-1: bound to ${node} with volumes ${JSON.stringify(volumes)}, want ${this.node} and none (the claim is bound)`);
      }
      await this.client.confirmBind(d);
      throw new Done();
    }
  }
}

async function cleanup(client: Client): Promise<void> {
  const refs = [
    ref(ObjectKind.OBJECT_KIND_POD, "db-0", NAMESPACE), ref(ObjectKind.OBJECT_KIND_POD, "db-1", NAMESPACE),
    ref(ObjectKind.OBJECT_KIND_PERSISTENT_VOLUME_CLAIM, CLAIM, NAMESPACE),
    ref(ObjectKind.OBJECT_KIND_PERSISTENT_VOLUME, PREFIX + "n1-disk"), ref(ObjectKind.OBJECT_KIND_PERSISTENT_VOLUME, PREFIX + "n2-disk"),
    ref(ObjectKind.OBJECT_KIND_STORAGE_CLASS, PREFIX + "local"),
    ref(ObjectKind.OBJECT_KIND_NODE, PREFIX + "n1"), ref(ObjectKind.OBJECT_KIND_NODE, PREFIX + "n2"),
  ];
  await client.delete(refs).catch(() => {}); // NOT_FOUND for objects already gone
}

async function main(): Promise<number> {
  const client = new Client(server, { token: process.env.BERTH_TOKEN });
  const storage = new Storage(client);
  const watcher = new Watcher(client, new MemoryCheckpoint(), (d) => storage.handle(d),
    { startAt: 1, onCompacted: (ce) => ce.oldest });
  let timer: NodeJS.Timeout | undefined;
  try {
    const watching = watcher.run().then(
      () => { throw new Error("the watch ended"); },
      (e) => { const err = e instanceof HandlerError ? e.error : e; if (!(err instanceof Done)) throw err; });
    watching.catch(() => {}); // handled by the race below; not unhandled meanwhile
    await client.apply(cluster());
    await client.apply([pod("db-0")]);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timed out")), timeoutMs);
    });
    await Promise.race([watching, timeout]);
    console.log("volumes (typescript): OK, the claim got the volume that fits and both pods went where it is");
    return 0;
  } catch (e) {
    console.error(`volumes (typescript): FAILED: ${(e as Error).message ?? e}`);
    return 1;
  } finally {
    clearTimeout(timer);
    watcher.stop();
    await cleanup(client);
    client.close();
  }
}

main().then((code) => process.exit(code));
