// Dynamic resource allocation example on Berth's TypeScript client:
// registers a node with two GPUs (a ResourceSlice), a DeviceClass selecting
// them by CEL and a ResourceClaimTemplate of one GPU, then submits three
// pods that each claim a GPU through the template. Reads each pod's
// allocation from its Bind (the claim Berth made for the pod, and the
// driver/pool/device), confirms the bind, sees the third pod wait, deletes
// the first pod, reads the DeallocateClaim that frees its GPU, and sees the
// third pod bound to exactly that GPU. Exits 0 when all of that happened;
// fails if a GPU is ever given to two pods.
//
// It uses apply/delete (no session, no re-list), so other orchestrators'
// objects are left alone; it deletes its own at the end.
//
//   npm run build && BERTH_SERVER=127.0.0.1:7070 node dist/examples/devices.js
import { BerthObject, Client, Decision, HandlerError, MemoryCheckpoint, ObjectKind, ObjectRef, Watcher } from "../src/index.js";

const NAMESPACE = "devices-ts";
const PREFIX = "devices-ts-"; // of the cluster-scoped objects' names
const DRIVER = "gpu.example.com";

const server = process.env.BERTH_SERVER ?? "127.0.0.1:7070";
const timeoutMs = Number(process.env.DEVICES_TIMEOUT_MS ?? 60_000);
const run = `${NAMESPACE}-${Date.now().toString(16)}`; // the prefix of this run's pods' uids

class Done extends Error {}

// Classes before the claims that name them; slice and template before the pods.
const cluster = () => [
  BerthObject.fromPartial({ kind: { $case: "deviceClass", value: {
    name: PREFIX + "gpu", selectors: [{ cel: `device.driver == "${DRIVER}"` }],
  } } }),
  BerthObject.fromPartial({ kind: { $case: "node", value: {
    name: PREFIX + "n1", labels: { "kubernetes.io/hostname": PREFIX + "n1" }, allocatable: { cpu: 8000, memory: 32 * 2 ** 30, pods: 110 },
  } } }),
  BerthObject.fromPartial({ kind: { $case: "resourceSlice", value: {
    name: PREFIX + "n1-gpus", driver: DRIVER, nodeName: PREFIX + "n1",
    pool: { name: PREFIX + "n1", generation: 1, resourceSliceCount: 1 },
    devices: [0, 1].map((i) => ({
      name: `gpu-${i}`, attributes: { model: { value: { $case: "string" as const, value: "a100" } } }, capacity: { memory: "40Gi" },
    })),
  } } }),
  BerthObject.fromPartial({ kind: { $case: "resourceClaimTemplate", value: {
    namespace: NAMESPACE, name: "one-gpu",
    spec: { requests: [{ name: "gpu", exactly: {
      deviceClassName: PREFIX + "gpu", selectors: [{ cel: `device.attributes["${DRIVER}"].model == "a100"` }],
    } }] },
  } } }),
];
const pod = (name: string) => BerthObject.fromPartial({ kind: { $case: "pod", value: {
  uid: `${run}-${name}`, namespace: NAMESPACE, name,
  resourceClaims: [{ name: "gpu", resourceClaimTemplateName: "one-gpu" }],
  containers: [{ name: "main", requests: { cpu: 1000, memory: 2 ** 30 }, claims: ["gpu"] }],
} } });
const podRef = (name: string) => ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_POD, namespace: NAMESPACE, name });

// Follows the allocations; decisions reach it one at a time.
class GPUs {
  readonly held = new Map<string, string>(); // driver/pool/device -> pod
  private waiting = false; // train-2 was reported unschedulable
  private deleted = false; // train-0 was deleted
  private freed = ""; // the device train-0's deletion freed

  constructor(private readonly client: Client) {}

  async handle(d: Decision): Promise<void> {
    const ref = d.pod;
    if (!ref?.uid.startsWith(run + "-")) return; // not this run's
    const a = d.action;
    if (a?.$case === "bind") {
      for (const claim of a.value.claims) {
        for (const dev of claim.allocation?.devices ?? []) {
          const gpu = `${dev.driver}/${dev.pool}/${dev.device}`;
          console.log(`${ref.name} -> ${a.value.node}: claim ${claim.name} (entry ${claim.podClaimNames}), request ${dev.request}: ${gpu}`);
          const other = this.held.get(gpu);
          if (other) throw new Error(`${gpu} given to ${ref.name} while ${other} holds it`);
          if (this.freed && gpu !== this.freed) throw new Error(`${ref.name} got ${gpu}, want the freed ${this.freed}`);
          this.held.set(gpu, ref.name);
        }
      }
      await this.client.confirmBind(d);
      if (this.freed) throw new Done();
    } else if (a?.$case === "unschedulable") {
      console.log(`${ref.name} waits: ${a.value.message}`);
      this.waiting ||= ref.name === "train-2";
    } else if (a?.$case === "deallocateClaim") {
      const x = a.value;
      for (const dev of x.allocation?.devices ?? []) {
        this.freed = `${dev.driver}/${dev.pool}/${dev.device}`;
        this.held.delete(this.freed);
      }
      console.log(`claim ${x.namespace}/${x.name} deallocated (deleted with its pod: ${x.claimDeleted}): ${this.freed} is free`);
    }
    await this.endFirstJob();
  }

  // Deletes train-0 once both GPUs are taken and train-2 waits.
  private async endFirstJob(): Promise<void> {
    if (this.deleted || !this.waiting || this.held.size < 2) return;
    this.deleted = true;
    console.log("train-0's job ends: deleting it");
    await this.client.delete([podRef("train-0")]);
  }
}

// Deletes what the example sent; train-0 is already gone.
async function cleanup(client: Client): Promise<void> {
  const refs = [
    ...[0, 1, 2].map((i) => podRef(`train-${i}`)),
    ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE, namespace: NAMESPACE, name: "one-gpu" }),
    ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_RESOURCE_SLICE, name: PREFIX + "n1-gpus" }),
    ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_DEVICE_CLASS, name: PREFIX + "gpu" }),
    ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_NODE, name: PREFIX + "n1" }),
  ];
  await client.delete(refs).catch(() => {}); // NOT_FOUND for the pods already deleted
}

async function main(): Promise<number> {
  const client = new Client(server, { token: process.env.BERTH_TOKEN });
  const gpus = new GPUs(client);
  // The whole log, so no decision is missed; this run's pods by uid.
  const watcher = new Watcher(client, new MemoryCheckpoint(), (d) => gpus.handle(d),
    { startAt: 1, onCompacted: (ce) => ce.oldest });
  let timer: NodeJS.Timeout | undefined;
  try {
    const watching = watcher.run().then(
      () => { throw new Error("the watch ended"); },
      (e) => { const err = e instanceof HandlerError ? e.error : e; if (!(err instanceof Done)) throw err; });
    watching.catch(() => {}); // handled by the race below; not unhandled meanwhile
    await client.apply(cluster());
    await client.apply(["train-0", "train-1", "train-2"].map(pod));
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out; held so far: ${JSON.stringify(Object.fromEntries(gpus.held))}`)), timeoutMs);
    });
    await Promise.race([watching, timeout]);
    console.log("devices (typescript): OK, each pod got its own GPU and a freed GPU was handed on");
    return 0;
  } catch (e) {
    console.error(`devices (typescript): FAILED: ${(e as Error).message ?? e}`);
    return 1;
  } finally {
    clearTimeout(timer);
    watcher.stop();
    await cleanup(client);
    client.close();
  }
}

main().then((code) => process.exit(code));
