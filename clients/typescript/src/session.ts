// The Sync session: one Sync stream kept open, re-listing on every connect.
import * as grpc from "@grpc/grpc-js";

import type { Client } from "./index.js";
import { retryDelay } from "./router.js";
import { BatchError, grpcCode, isNotFound, ObjectError, objectError, RequestTooLarge, RETRYABLE, SessionClosed, UntrackedKind } from "./errors.js";
import { Object as BerthObject, ObjectKind, objectKindToJSON, ObjectRef } from "./gen/berth/v1/object.js";
import { Mutation, ObjectError as WireObjectError, Resync, SyncRequest, SyncResponse } from "./gen/berth/v1/state_service.js";

/** The default maxBatch: far below berthd's default --max-batch-objects (10000). */
export const DEFAULT_MAX_BATCH = 500;

export interface ResyncResult { sent: number; deleted: number; errors: ObjectError[] }

export interface SessionOptions {
  /**
   * The kinds re-listed; empty (the default) re-lists every kind: Berth then
   * deletes every object, of every kind, that this session did not re-send,
   * including other orchestrators' in a shared berthd. Within a kind a
   * re-list is always global. upsert() refuses objects of other kinds
   * (UntrackedKind): the session does not track them.
   */
  resyncKinds?: ObjectKind[];
  /** Mutations per request; the Client's maxBatch by default. */
  maxBatch?: number;
  onResync?: (r: ResyncResult) => void;
}

/** One upsert() or delete() waiting for its answer. */
interface Call {
  mutations: Mutation[];
  todo: number[]; // indexes not yet sent (nor superseded), in order
  pending: number; // indexes not yet answered
  applied: number;
  errors: ObjectError[];
  finished: boolean;
  resolve: () => void;
  reject: (e: Error) => void;
}

/** Some of one call's mutations, sent in one request or superseded together. */
type Segment = [Call, number[]];

/** One request sent and not yet acknowledged: of calls (segs) or of the re-list. */
interface Batch { id: number; size: number; segs?: Segment[]; offset: number; end: boolean }

type KindCase = NonNullable<BerthObject["kind"]>["$case"];

/** Every kind of object, and whether its objects are named within a namespace. */
const KINDS: Record<KindCase, [ObjectKind, boolean]> = {
  node: [ObjectKind.OBJECT_KIND_NODE, false],
  pod: [ObjectKind.OBJECT_KIND_POD, true],
  priorityClass: [ObjectKind.OBJECT_KIND_PRIORITY_CLASS, false],
  podDisruptionBudget: [ObjectKind.OBJECT_KIND_POD_DISRUPTION_BUDGET, true],
  namespace: [ObjectKind.OBJECT_KIND_NAMESPACE, false],
  podGroup: [ObjectKind.OBJECT_KIND_POD_GROUP, true],
  compositePodGroup: [ObjectKind.OBJECT_KIND_COMPOSITE_POD_GROUP, true],
  deviceClass: [ObjectKind.OBJECT_KIND_DEVICE_CLASS, false],
  resourceSlice: [ObjectKind.OBJECT_KIND_RESOURCE_SLICE, false],
  resourceClaim: [ObjectKind.OBJECT_KIND_RESOURCE_CLAIM, true],
  resourceClaimTemplate: [ObjectKind.OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE, true],
  deviceTaintRule: [ObjectKind.OBJECT_KIND_DEVICE_TAINT_RULE, false],
  persistentVolume: [ObjectKind.OBJECT_KIND_PERSISTENT_VOLUME, false],
  persistentVolumeClaim: [ObjectKind.OBJECT_KIND_PERSISTENT_VOLUME_CLAIM, true],
  storageClass: [ObjectKind.OBJECT_KIND_STORAGE_CLASS, false],
  csiNode: [ObjectKind.OBJECT_KIND_CSI_NODE, false],
  csiDriver: [ObjectKind.OBJECT_KIND_CSI_DRIVER, false],
  csiStorageCapacity: [ObjectKind.OBJECT_KIND_CSI_STORAGE_CAPACITY, true],
  resourceFlavor: [ObjectKind.OBJECT_KIND_RESOURCE_FLAVOR, false],
  clusterQueue: [ObjectKind.OBJECT_KIND_CLUSTER_QUEUE, false],
  cohort: [ObjectKind.OBJECT_KIND_COHORT, false],
  localQueue: [ObjectKind.OBJECT_KIND_LOCAL_QUEUE, true],
  workloadPriorityClass: [ObjectKind.OBJECT_KIND_WORKLOAD_PRIORITY_CLASS, false],
  workload: [ObjectKind.OBJECT_KIND_WORKLOAD, true],
};

/** An object's kind, namespace and name, as a string key. */
export function identity(o: BerthObject): string {
  const k = o.kind;
  if (!k) return `${ObjectKind.OBJECT_KIND_UNSPECIFIED}//`;
  const [kind, namespaced] = KINDS[k.$case];
  const ns = namespaced ? (k.value as { namespace?: string }).namespace ?? "" : "";
  return `${kind}/${ns}/${k.value.name}`;
}

/** An object's kind; UNSPECIFIED when it has none (berthd refuses it). */
export function objectKind(o: BerthObject): ObjectKind {
  return o.kind ? KINDS[o.kind.$case][0] : ObjectKind.OBJECT_KIND_UNSPECIFIED;
}

function kindOf(m: Mutation): ObjectKind {
  if (m.op?.$case === "delete") return m.op.value.kind;
  return m.op?.$case === "upsert" ? objectKind(m.op.value) : ObjectKind.OBJECT_KIND_UNSPECIFIED;
}

function answer(c: Call, n: number, applied: number, errors: ObjectError[]): void {
  if (c.finished) return;
  c.pending -= n;
  c.applied += applied;
  c.errors.push(...errors);
  if (c.pending > 0) return;
  c.finished = true;
  c.todo = [];
  if (c.errors.length) c.reject(new BatchError(c.applied, c.errors.sort((a, b) => a.index - b.index)));
  else c.resolve();
}

function fail(c: Call, e: Error): void {
  if (c.finished) return;
  c.finished = true;
  c.todo = [];
  c.reject(e);
}

export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
  });

/**
 * Keeps one Sync stream open. Each time it connects it re-lists everything
 * lister() returns between resync markers, so Berth drops what the
 * orchestrator no longer holds, then sends upsert()/delete() calls, several
 * per request when they queue up, and a call of more than maxBatch mutations
 * over several requests (Berth may then apply part of it before the rest).
 * Calls reject with BatchError for refused objects, RequestTooLarge when
 * berthd refused the request as too large (not retried), SessionClosed.
 *
 * The re-list is the truth. Upserts and deletes of a re-listed kind still
 * waiting when lister() is called (never sent, or sent on a stream that broke
 * before their acknowledgement) are not sent: the re-list supersedes them.
 * They are answered once the re-list is acknowledged, with Berth's refusal of
 * the re-listed object of the same identity if any, else success. Sending
 * them after the re-list could undo newer state (a pod the re-list sent with
 * nodeName set, replaced by an older pending copy, is scheduled again);
 * sending them before would show the scheduler stale state. This requires
 * the orchestrator to update what lister() returns before calling
 * upsert()/delete() for the same change. Calls made after lister() was
 * called are sent after the re-list, in order.
 *
 * With resyncKinds, upsert() rejects at once with UntrackedKind, sending
 * nothing, when an object is of another kind: the session does not track
 * it (a re-list removes nothing of it), and an upsert that resolved would
 * say otherwise. Deletes of other kinds are sent, and never superseded:
 * they are sent again.
 */
export class Session {
  private queue: Call[] = [];
  private batchId = 0;
  private resynced = false; // whether the last stream completed its re-list
  private readonly abort = new AbortController();
  private wake?: () => void;
  private stream?: grpc.ClientDuplexStream<SyncRequest, SyncResponse>;
  private done?: Promise<void>;
  private readonly maxBatch: number;
  /** Why the session stopped, when not through close(). */
  error?: Error;

  constructor(private readonly client: Client, private readonly lister: () => BerthObject[] | Promise<BerthObject[]>,
    private readonly opts: SessionOptions = {}) {
    this.maxBatch = Math.max(opts.maxBatch ?? client.maxBatch, 1);
  }

  start(): this {
    this.done = this.run();
    return this;
  }

  async close(): Promise<void> {
    this.abort.abort();
    this.stream?.cancel();
    this.wake?.();
    await this.done;
  }

  /**
   * Creates or replaces objects; rejects with BatchError for the refused
   * ones, or with UntrackedKind, sending none, when one is of a kind the
   * session does not re-list.
   */
  upsert(...objects: BerthObject[]): Promise<void> {
    const untracked = objects.findIndex((o) => !this.tracks(objectKind(o)));
    if (untracked >= 0) {
      const kinds = (this.opts.resyncKinds ?? []).map(objectKindToJSON);
      return Promise.reject(new UntrackedKind(untracked, objectKindToJSON(objectKind(objects[untracked])), kinds));
    }
    return this.submit(objects.map((o) => Mutation.fromPartial({ op: { $case: "upsert", value: o } })));
  }

  /** Removes objects; one Berth does not hold counts as deleted. */
  delete(...refs: ObjectRef[]): Promise<void> {
    return this.submit(refs.map((r) => Mutation.fromPartial({ op: { $case: "delete", value: r } })));
  }

  private submit(mutations: Mutation[]): Promise<void> {
    if (!mutations.length) return Promise.resolve();
    if (this.abort.signal.aborted) return Promise.reject(new SessionClosed("session closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({
        mutations, todo: mutations.map((_, i) => i), pending: mutations.length, applied: 0, errors: [], finished: false,
        resolve, reject,
      });
      this.wake?.();
    });
  }

  private async run(): Promise<void> {
    let attempt = 0;
    let hops = 0;
    let atOnce = false; // the router moved past a replica that is down: no wait
    let failure: unknown; // the previous stream's
    while (!this.abort.signal.aborted) {
      if (!atOnce) await sleep(retryDelay(this.client.backoff.delay(attempt), failure), this.abort.signal);
      if (this.abort.signal.aborted) break;
      failure = undefined;
      try {
        await this.connect();
      } catch (e) {
        if (this.abort.signal.aborted) break;
        const code = grpcCode(e);
        if (e instanceof RequestTooLarge || (code !== undefined && !RETRYABLE.has(code))) {
          this.error = e as Error;
          break;
        }
        failure = e;
      }
      attempt = this.resynced ? 0 : attempt + 1;
      [atOnce, hops] = this.client.hop(failure, hops);
      if (atOnce && attempt) attempt--; // another replica, at once: not a failure of its own
    }
    this.abort.abort();
    for (const c of this.queue.splice(0)) fail(c, new SessionClosed(this.error?.message ?? "session closed"));
  }

  private relisted(kind: ObjectKind): boolean {
    const kinds = this.opts.resyncKinds ?? [];
    return !kinds.length || kinds.includes(kind);
  }

  /**
   * Whether upsert() takes objects of kind: a re-listed kind, or none at all
   * (berthd answers that object's refusal).
   */
  private tracks(kind: ObjectKind): boolean {
    return kind === ObjectKind.OBJECT_KIND_UNSPECIFIED || this.relisted(kind);
  }

  /** Removes from the queue, before lister() is called, what the re-list supersedes. */
  private supersede(): Segment[] {
    const out: Segment[] = [];
    for (const c of this.queue) {
      const sup = c.todo.filter((i) => this.relisted(kindOf(c.mutations[i])));
      c.todo = c.todo.filter((i) => !this.relisted(kindOf(c.mutations[i])));
      if (sup.length) out.push([c, sup]);
    }
    this.queue = this.queue.filter((c) => c.todo.length);
    return out;
  }

  /** Puts segments back at the head of the queue, in order. */
  private requeue(segs: Segment[]): void {
    const head: Call[] = [];
    for (const [c, idx] of segs) {
      if (c.finished) continue;
      c.todo = [...c.todo, ...idx].sort((a, b) => a - b);
      if (!head.includes(c)) head.push(c);
    }
    this.queue = [...head, ...this.queue.filter((c) => !head.includes(c))];
  }

  /** The mutations of the next request: up to maxBatch, splitting a call that does not fit. */
  private take(): Segment[] {
    const segs: Segment[] = [];
    let room = this.maxBatch;
    while (room > 0 && this.queue.length) {
      const c = this.queue[0];
      const n = Math.min(c.todo.length, room);
      if (n) {
        segs.push([c, c.todo.slice(0, n)]);
        c.todo = c.todo.slice(n);
        room -= n;
      }
      if (!c.todo.length) this.queue.shift();
    }
    return segs;
  }

  /**
   * Runs one stream: supersede, re-list, then the queue, until the stream
   * ends. What was neither answered nor superseded goes back to the head of
   * the queue.
   */
  private async connect(): Promise<void> {
    this.resynced = false;
    const superseded = this.supersede();
    const inflight: Batch[] = [];
    let ended = false;
    try {
      const objects = await this.lister();
      const result: ResyncResult = { sent: objects.length, deleted: 0, errors: [] };
      const relistErrors = new Map<string, WireObjectError>();
      const stream = this.client.state.sync(this.client.metadata(), { waitForReady: true } as Partial<grpc.CallOptions>);
      this.stream = stream;
      if (this.abort.signal.aborted) stream.cancel();
      const send = (req: Partial<SyncRequest>, b: Omit<Batch, "id" | "size">) => {
        const id = ++this.batchId;
        inflight.push({ id, size: req.mutations?.length ?? 0, ...b });
        stream.write(SyncRequest.fromPartial({ ...req, batchId: id }));
      };
      const max = this.maxBatch;
      for (let off = 0; off === 0 || off < objects.length; off += max) {
        const mutations = objects.slice(off, off + max).map((o) => Mutation.fromPartial({ op: { $case: "upsert", value: o } }));
        send(off === 0 ? { mutations, resync: Resync.RESYNC_BEGIN, resyncKinds: this.opts.resyncKinds ?? [] } : { mutations },
          { offset: off, end: false });
      }
      send({ resync: Resync.RESYNC_END }, { offset: 0, end: true });

      const pump = () => {
        while (!ended && this.queue.length) {
          const segs = this.take();
          if (segs.length) send({ mutations: segs.flatMap(([c, idx]) => idx.map((i) => c.mutations[i])) }, { segs, offset: 0, end: false });
        }
      };
      const ackRelist = (b: Batch, resp: SyncResponse) => {
        for (const e of resp.errors) {
          const i = b.offset + e.index;
          if (i >= 0 && i < objects.length) relistErrors.set(identity(objects[i]), e);
          result.errors.push(objectError(i, e));
        }
        if (!b.end) return;
        result.deleted = resp.resyncDeleted;
        this.resynced = true;
        for (const [c, idx] of superseded) {
          const errs: ObjectError[] = [];
          for (const i of idx) {
            const op = c.mutations[i].op;
            const e = op?.$case === "upsert" ? relistErrors.get(identity(op.value)) : undefined;
            if (e) errs.push(objectError(i, e));
          }
          answer(c, idx.length, idx.length - errs.length, errs);
        }
        this.error = undefined;
        this.opts.onResync?.(result);
        this.wake = pump;
        pump();
      };
      try {
        await new Promise<void>((resolve, reject) => {
          stream.on("data", (resp: SyncResponse) => {
            const b = inflight.shift();
            if (!b || b.id !== resp.batchId) {
              stream.cancel();
              return reject(new Error(`berth: acknowledgement of batch ${resp.batchId} does not match a request`));
            }
            if (!b.segs) return ackRelist(b, resp);
            const byIndex = new Map(resp.errors.map((e) => [e.index, e]));
            let pos = 0;
            for (const [c, idx] of b.segs) {
              const errs: ObjectError[] = [];
              let applied = 0;
              idx.forEach((i, j) => {
                const e = byIndex.get(pos + j);
                if (!e || (isNotFound(e) && c.mutations[i].op?.$case === "delete")) applied++; // a delete of what is gone is success
                else errs.push(objectError(i, e));
              });
              answer(c, idx.length, applied, errs);
              pos += idx.length;
            }
          });
          stream.on("error", reject);
          stream.on("end", () => resolve());
        });
      } catch (e) {
        const b = inflight[0];
        if (grpcCode(e) !== grpc.status.RESOURCE_EXHAUSTED || !b) throw e;
        if (!b.segs) throw new RequestTooLarge(`berth: a re-list request of ${b.size} objects was refused as too large (lower maxBatch)`, e as grpc.ServiceError);
        inflight.shift();
        const err = new RequestTooLarge(`berth: a request of ${b.size} mutations carrying this call was refused as too large (lower maxBatch)`, e as grpc.ServiceError);
        for (const [c] of b.segs) fail(c, err);
        // Reconnect: the calls concerned were answered.
      }
    } finally {
      ended = true;
      this.wake = undefined;
      this.stream = undefined;
      if (!this.resynced) this.requeue(superseded);
      this.requeue(inflight.flatMap((b) => b.segs ?? []));
    }
  }
}
