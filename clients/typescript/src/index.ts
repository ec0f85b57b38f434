// TypeScript client of Berth's berth.v1 gRPC API, on @grpc/grpc-js. The
// generated stubs are in ./gen (regenerate with clients/generate); this module
// adds a Sync session that batches upserts and re-lists on reconnect, a
// decision watcher that resumes from a checkpointed revision, and bind
// reporting. See clients/README.md.
import { promises as fs } from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { BinaryReader } from "@bufbuild/protobuf/wire";

import { Decision } from "./gen/berth/v1/decision.js";
import { DecisionServiceClient, WatchRequest, WatchResponse } from "./gen/berth/v1/decision_service.js";
import { AdminServiceClient } from "./gen/berth/v1/admin_service.js";
import { Object as BerthObject, ObjectKind, ObjectRef } from "./gen/berth/v1/object.js";
import {
  BindOutcome, Mutation, ObjectError as WireObjectError, Resync, StateServiceClient, SyncRequest, SyncResponse,
} from "./gen/berth/v1/state_service.js";

export * as decisionPb from "./gen/berth/v1/decision.js";
export * as objectPb from "./gen/berth/v1/object.js";
export * as nodePb from "./gen/berth/v1/node.js";
export * as podPb from "./gen/berth/v1/pod.js";
export * as policyPb from "./gen/berth/v1/policy.js";
export * as statePb from "./gen/berth/v1/state_service.js";
export { BerthObject, Decision, ObjectKind, ObjectRef };

/** One object Berth refused; index counts from the caller's first object. */
export class ObjectError extends Error {
  constructor(
    readonly index: number,
    readonly ref: ObjectRef | undefined,
    /** A gRPC status code: 3 INVALID_ARGUMENT, 5 NOT_FOUND, 9 FAILED_PRECONDITION, 13 INTERNAL. */
    readonly code: grpc.status,
    readonly fieldPath: string,
    readonly detail: string,
  ) {
    const name = [ref?.namespace, ref?.name].filter(Boolean).join("/");
    super([`object ${index}${name ? ` (${name})` : ""}`, grpc.status[code], fieldPath, detail].filter(Boolean).join(": "));
  }
}

/** The objects of one call that Berth refused; the others took effect. */
export class BatchError extends Error {
  constructor(readonly applied: number, readonly errors: ObjectError[]) {
    super(`${errors.length} object(s) refused: ${errors.map((e) => e.message).join("; ")}`);
  }
}

/** The watch position was compacted out of Berth's log (OUT_OF_RANGE). */
export class CompactedError extends Error {
  constructor(readonly fromRevision: number, readonly oldest: number) {
    super(`watch from revision ${fromRevision}: compacted, oldest revision kept is ${oldest}`);
  }
}

/** Raised by Session calls still waiting when the session closes. */
export class SessionClosed extends Error {}

function batchError(offset: number, applied: number, errs: WireObjectError[], isDelete?: (i: number) => boolean) {
  const out: ObjectError[] = [];
  for (const e of errs) {
    const idx = e.index - offset;
    if ((e.code as number) === grpc.status.NOT_FOUND && isDelete?.(idx)) {
      applied++; // deleting what Berth does not hold is success
      continue;
    }
    out.push(new ObjectError(idx, e.ref, e.code as number, e.fieldPath, e.message));
  }
  return out.length ? new BatchError(applied, out) : undefined;
}

const RETRYABLE = new Set([
  grpc.status.UNAVAILABLE, grpc.status.UNKNOWN, grpc.status.INTERNAL, grpc.status.ABORTED,
  grpc.status.CANCELLED, grpc.status.DEADLINE_EXCEEDED, grpc.status.RESOURCE_EXHAUSTED,
]);

/** Exponential delay in milliseconds between reconnection attempts. */
export class Backoff {
  constructor(readonly initialMs = 100, readonly maxMs = 10_000, readonly factor = 2) {}
  delay(attempt: number): number {
    return attempt <= 0 ? 0 : Math.min(this.initialMs * this.factor ** (attempt - 1), this.maxMs);
  }
}

/** Where a watcher keeps the revision to resume from (0: none saved). */
export interface Checkpoint {
  load(): Promise<number>;
  save(revision: number): Promise<void>;
}

/** Keeps the revision in a file, replaced atomically. */
export class FileCheckpoint implements Checkpoint {
  constructor(readonly file: string) {}
  async load(): Promise<number> {
    try {
      return Number.parseInt((await fs.readFile(this.file, "utf8")).trim(), 10) || 0;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return 0;
      throw e;
    }
  }
  async save(revision: number): Promise<void> {
    const tmp = path.join(path.dirname(this.file), `.${path.basename(this.file)}.${process.pid}.tmp`);
    const fh = await fs.open(tmp, "w");
    try {
      await fh.writeFile(`${revision}\n`);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, this.file);
  }
}

/** Keeps the revision in memory (survives reconnects, not restarts). */
export class MemoryCheckpoint implements Checkpoint {
  constructor(public revision = 0) {}
  async load() { return this.revision; }
  async save(revision: number) { this.revision = revision; }
}

export interface ClientOptions {
  /** Sent as "authorization: Bearer <token>" with every call. */
  token?: string;
  /** TLS or other channel credentials; plaintext by default (loopback sidecar). */
  credentials?: grpc.ChannelCredentials;
  backoff?: Backoff;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
  });

/** A connection to berthd; target is "host:port" or "unix:///path". */
export class Client {
  readonly state: StateServiceClient;
  readonly decisions: DecisionServiceClient;
  readonly admin: AdminServiceClient;
  readonly backoff: Backoff;
  private readonly token?: string;

  constructor(target: string, opts: ClientOptions = {}) {
    const creds = opts.credentials ?? grpc.credentials.createInsecure();
    this.state = new StateServiceClient(target, creds);
    this.decisions = new DecisionServiceClient(target, creds);
    this.admin = new AdminServiceClient(target, creds);
    this.backoff = opts.backoff ?? new Backoff();
    this.token = opts.token;
  }

  metadata(): grpc.Metadata {
    const md = new grpc.Metadata();
    if (this.token) md.set("authorization", `Bearer ${this.token}`);
    return md;
  }

  close(): void {
    this.state.close();
    this.decisions.close();
    this.admin.close();
  }

  /** Upserts objects; rejects with BatchError for the refused ones. */
  async apply(objects: BerthObject[]): Promise<void> {
    const resp = await new Promise<{ applied: number; errors: WireObjectError[] }>((res, rej) =>
      this.state.apply({ objects }, this.metadata(), (err, r) => (err ? rej(err) : res(r))));
    const err = batchError(0, resp.applied, resp.errors);
    if (err) throw err;
  }

  /** Deletes objects; NOT_FOUND counts as deleted; rejects with BatchError otherwise. */
  async delete(refs: ObjectRef[]): Promise<void> {
    const resp = await new Promise<{ deleted: number; errors: WireObjectError[] }>((res, rej) =>
      this.state.delete({ refs }, this.metadata(), (err, r) => (err ? rej(err) : res(r))));
    const err = batchError(0, resp.deleted, resp.errors, () => true);
    if (err) throw err;
  }

  /** Reports that the pod of a Bind decision runs on its node. */
  confirmBind(d: Decision): Promise<void> { return this.report(d, BindOutcome.BIND_OUTCOME_CONFIRMED, ""); }

  /** Reports that a Bind could not be carried out; Berth requeues the pod. */
  failBind(d: Decision, reason: string): Promise<void> { return this.report(d, BindOutcome.BIND_OUTCOME_FAILED, reason); }

  private report(d: Decision, outcome: BindOutcome, reason: string): Promise<void> {
    if (d.action?.$case !== "bind") return Promise.reject(new Error(`decision ${d.revision} is not a Bind`));
    const req = { pod: d.pod, node: d.action.value.node, revision: d.revision, outcome, reason };
    return new Promise((res, rej) => this.state.reportBindResult(req, this.metadata(), (err) => (err ? rej(err) : res())));
  }
}

export interface ResyncResult { sent: number; deleted: number; errors: ObjectError[] }

interface Call { mutations: Mutation[]; resolve: () => void; reject: (e: Error) => void }
interface Batch { id: number; calls?: Call[]; offset: number; end: boolean }

export interface SessionOptions {
  resyncKinds?: ObjectKind[];
  maxBatch?: number;
  onResync?: (r: ResyncResult) => void;
}

/**
 * Keeps one Sync stream open. Each time it connects it re-lists everything
 * lister() returns between resync markers, so Berth drops what the
 * orchestrator no longer holds, then sends upsert()/delete() calls, several per
 * request when they queue up. Calls sent on a stream that broke before their
 * acknowledgement are sent again after the next re-list.
 */
export class Session {
  private queue: Call[] = [];
  private batchId = 0;
  private readonly abort = new AbortController();
  private wake?: () => void;
  private stream?: grpc.ClientDuplexStream<SyncRequest, SyncResponse>;
  private done?: Promise<void>;
  /** Why the session stopped, when not through close(). */
  error?: Error;

  constructor(private readonly client: Client, private readonly lister: () => BerthObject[] | Promise<BerthObject[]>,
    private readonly opts: SessionOptions = {}) {}

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

  upsert(...objects: BerthObject[]): Promise<void> {
    return this.submit(objects.map((o) => Mutation.fromPartial({ op: { $case: "upsert", value: o } })));
  }

  delete(...refs: ObjectRef[]): Promise<void> {
    return this.submit(refs.map((r) => Mutation.fromPartial({ op: { $case: "delete", value: r } })));
  }

  private submit(mutations: Mutation[]): Promise<void> {
    if (!mutations.length) return Promise.resolve();
    if (this.abort.signal.aborted) return Promise.reject(new SessionClosed("session closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({ mutations, resolve, reject });
      this.wake?.();
    });
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (!this.abort.signal.aborted) {
      await sleep(this.client.backoff.delay(attempt), this.abort.signal);
      if (this.abort.signal.aborted) break;
      try {
        attempt = (await this.connect()) ? 0 : attempt + 1;
      } catch (e) {
        const code = (e as grpc.ServiceError).code;
        if (code !== undefined && !RETRYABLE.has(code)) {
          this.error = e as Error;
          break;
        }
        attempt++;
      }
    }
    this.abort.abort();
    for (const c of this.queue.splice(0)) c.reject(new SessionClosed(this.error?.message ?? "session closed"));
  }

  private async connect(): Promise<boolean> {
    const objects = await this.lister();
    const max = Math.max(this.opts.maxBatch ?? 500, 1);
    const inflight: Batch[] = [];
    const result: ResyncResult = { sent: objects.length, deleted: 0, errors: [] };
    let resynced = false;
    const stream = this.client.state.sync(this.client.metadata(), { waitForReady: true } as Partial<grpc.CallOptions>);
    this.stream = stream;
    const send = (req: Partial<SyncRequest>, b: Omit<Batch, "id">) => {
      const id = ++this.batchId;
      inflight.push({ id, ...b });
      stream.write(SyncRequest.fromPartial({ ...req, batchId: id }));
    };
    for (let off = 0; off === 0 || off < objects.length; off += max) {
      const mutations = objects.slice(off, off + max).map((o) => Mutation.fromPartial({ op: { $case: "upsert", value: o } }));
      send(off === 0 ? { mutations, resync: Resync.RESYNC_BEGIN, resyncKinds: this.opts.resyncKinds ?? [] } : { mutations },
        { offset: off, end: false });
    }
    send({ resync: Resync.RESYNC_END }, { offset: 0, end: true });

    let ended = false;
    const pump = () => {
      while (!ended && this.queue.length) {
        const calls: Call[] = [];
        let size = 0;
        while (this.queue.length && (!calls.length || size + this.queue[0].mutations.length <= max)) {
          const c = this.queue.shift()!;
          calls.push(c);
          size += c.mutations.length;
        }
        send({ mutations: calls.flatMap((c) => c.mutations) }, { calls, offset: 0, end: false });
      }
    };
    try {
      await new Promise<void>((resolve, reject) => {
        stream.on("data", (resp: SyncResponse) => {
          const b = inflight.shift();
          if (!b || b.id !== resp.batchId) {
            stream.cancel();
            return reject(new Error(`berth: ack of batch ${resp.batchId} does not match a request`));
          }
          if (!b.calls) {
            const err = batchError(-b.offset, 0, resp.errors);
            if (err) result.errors.push(...err.errors);
            if (b.end) {
              result.deleted = resp.resyncDeleted;
              resynced = true;
              this.opts.onResync?.(result);
              this.wake = pump;
              pump();
            }
            return;
          }
          let start = 0;
          for (const c of b.calls) {
            const n = c.mutations.length;
            const mine = resp.errors.filter((e) => e.index >= start && e.index < start + n);
            const err = batchError(start, n - mine.length, mine, (i) => c.mutations[i]?.op?.$case === "delete");
            if (err) c.reject(err); else c.resolve();
            start += n;
          }
        });
        stream.on("error", reject);
        stream.on("end", () => resolve());
      });
    } finally {
      ended = true;
      this.wake = undefined;
      this.stream = undefined;
      // Unacknowledged calls go back to the head of the queue, in order.
      this.queue.unshift(...inflight.flatMap((b) => b.calls ?? []));
    }
    return resynced;
  }
}

export interface WatcherOptions {
  /** Revision to start from when the checkpoint holds none: 0 only new decisions, 1 the whole log. */
  startAt?: number;
  /** Called when the position was compacted; returns the revision to watch from. */
  onCompacted?: (e: CompactedError) => number | Promise<number>;
  schedulerName?: string;
  types?: number[];
}

/**
 * Streams decisions to handler, in revision order, resuming from the
 * checkpoint after a disconnect or a server restart. Delivery is at least
 * once: handlers must be idempotent. A handler rejection stops run() with the
 * checkpoint holding that decision.
 */
export class Watcher {
  private readonly abort = new AbortController();
  private call?: grpc.ClientReadableStream<WatchResponse>;

  constructor(private readonly client: Client, private readonly checkpoint: Checkpoint,
    private readonly handler: (d: Decision) => void | Promise<void>, private readonly opts: WatcherOptions = {}) {}

  stop(): void {
    this.abort.abort();
    this.call?.cancel();
  }

  async run(): Promise<void> {
    let rev = (await this.checkpoint.load()) || (this.opts.startAt ?? 0);
    let attempt = 0;
    while (!this.abort.signal.aborted) {
      await sleep(this.client.backoff.delay(attempt), this.abort.signal);
      if (this.abort.signal.aborted) return;
      const req = WatchRequest.fromPartial({ fromRevision: rev, schedulerName: this.opts.schedulerName ?? "", types: this.opts.types ?? [] });
      const call = this.client.decisions.watch(req, this.client.metadata(), { waitForReady: true } as Partial<grpc.CallOptions>);
      this.call = call;
      let progressed = false;
      try {
        for await (const resp of call as AsyncIterable<WatchResponse>) {
          progressed = true;
          for (const d of resp.decisions) {
            if (rev && d.revision < rev) continue; // never deliver a revision twice
            try {
              await this.handler(d);
            } catch (e) {
              await this.checkpoint.save(d.revision);
              call.cancel();
              throw e;
            }
            rev = d.revision + 1;
          }
          rev = Math.max(rev, resp.nextRevision);
          await this.checkpoint.save(rev);
        }
        attempt = progressed ? 0 : attempt + 1;
      } catch (e) {
        const se = e as grpc.ServiceError;
        if (this.abort.signal.aborted) return;
        if (se.code === grpc.status.OUT_OF_RANGE) {
          const ce = new CompactedError(rev, oldestRevision(se.metadata));
          if (!this.opts.onCompacted) throw ce;
          rev = await this.opts.onCompacted(ce);
          await this.checkpoint.save(rev);
          attempt = 0;
          continue;
        }
        if (se.code === undefined || !RETRYABLE.has(se.code)) throw e;
        attempt = progressed ? 0 : attempt + 1;
      } finally {
        this.call = undefined;
      }
    }
  }
}

/** Reads oldest_revision from the ErrorInfo in a status's details trailer. */
export function oldestRevision(md: grpc.Metadata | undefined): number {
  const raw = md?.get("grpc-status-details-bin")[0];
  if (!(raw instanceof Buffer)) return 0;
  try {
    const status = new BinaryReader(raw);
    while (status.pos < status.len) {
      const [num, wt] = status.tag();
      if (num !== 3) { status.skip(wt); continue; }
      const any = new BinaryReader(status.bytes());
      let typeUrl = "";
      let value: Uint8Array = new Uint8Array();
      while (any.pos < any.len) {
        const [n, w] = any.tag();
        if (n === 1) typeUrl = any.string(); else if (n === 2) value = any.bytes(); else any.skip(w);
      }
      if (!typeUrl.endsWith("/google.rpc.ErrorInfo")) continue;
      const info = new BinaryReader(value);
      while (info.pos < info.len) {
        const [n, w] = info.tag();
        if (n !== 3) { info.skip(w); continue; }
        const entry = new BinaryReader(info.bytes());
        let key = "";
        let val = "";
        while (entry.pos < entry.len) {
          const [en, ew] = entry.tag();
          if (en === 1) key = entry.string(); else if (en === 2) val = entry.string(); else entry.skip(ew);
        }
        if (key === "oldest_revision") return Number.parseInt(val, 10) || 0;
      }
    }
  } catch {
    return 0;
  }
  return 0;
}
