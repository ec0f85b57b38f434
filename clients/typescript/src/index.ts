// TypeScript client of Berth's berth.v1 gRPC API, on @grpc/grpc-js. The
// generated stubs are in ./gen (regenerate with clients/generate); this module
// adds a Sync session that batches upserts and re-lists on reconnect
// (./session.ts), a decision watcher that resumes from a checkpointed
// revision, and bind reporting. See clients/README.md.
import { promises as fs } from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";

import { BatchError, CompactedError, grpcCode, HandlerError, isNotFound, ObjectError, objectError, RequestTooLarge, RETRYABLE } from "./errors.js";
import { DEFAULT_MAX_BATCH, sleep } from "./session.js";
import { Router, splitEndpoints } from "./router.js";
import { budgetRefused, errorInfo, REVISION_COMPACTED } from "./status.js";
import { Decision } from "./gen/berth/v1/decision.js";
import { DecisionServiceClient, WatchRequest, WatchResponse } from "./gen/berth/v1/decision_service.js";
import { AdminServiceClient } from "./gen/berth/v1/admin_service.js";
import { EvictionServiceClient, EvictPodResponse } from "./gen/berth/v1/eviction_service.js";
import { Object as BerthObject, ObjectKind, ObjectRef } from "./gen/berth/v1/object.js";
import { BindOutcome, ObjectError as WireObjectError, StateServiceClient } from "./gen/berth/v1/state_service.js";

export * as decisionPb from "./gen/berth/v1/decision.js";
export * as objectPb from "./gen/berth/v1/object.js";
export * as nodePb from "./gen/berth/v1/node.js";
export * as podPb from "./gen/berth/v1/pod.js";
export * as policyPb from "./gen/berth/v1/policy.js";
export * as statePb from "./gen/berth/v1/state_service.js";
export * as evictionPb from "./gen/berth/v1/eviction_service.js";
export * as volumePb from "./gen/berth/v1/volume.js";
export * as queueingPb from "./gen/berth/v1/queueing.js";
export { BerthObject, Decision, ObjectKind, ObjectRef };
export { BatchError, CompactedError, HandlerError, ObjectError, RequestTooLarge, SessionClosed, UntrackedKind } from "./errors.js";
export { DEFAULT_MAX_BATCH, Session } from "./session.js";
export { formatQuantity, parseQuantity, parseQuantityBigInt, parseResources, QuantityError } from "./quantity.js";
export { BudgetRefused, DISRUPTION_BUDGET, ErrorInfo, errorInfo, errorReason, LOG_ID_MISMATCH, REVISION_COMPACTED, REVISION_NOT_WRITTEN, Status, statusDetails } from "./status.js";
export type { ResyncResult, SessionOptions } from "./session.js";
export { LEADER_POLL_MS, MAX_REDIRECTS, NOT_LEADER, notLeader, splitEndpoints } from "./router.js";

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

/** PEM-encoded TLS material; a client certificate (privateKey + certChain) for mutual TLS. */
export interface TlsOptions {
  /** CA certificates the server's certificate must chain to; the system roots when unset. */
  rootCerts?: Buffer;
  /** The client's key and certificate chain, for a berthd run with --tls-client-ca. */
  privateKey?: Buffer;
  certChain?: Buffer;
}

export interface ClientOptions {
  /** Sent as "authorization: Bearer <token>" with every call. */
  token?: string;
  /** Connect over TLS (mutual with a client certificate); plaintext by default (loopback sidecar). */
  tls?: TlsOptions;
  /** Other channel credentials; overrides tls. */
  credentials?: grpc.ChannelCredentials;
  /** gRPC channel options, e.g. { "grpc.ssl_target_name_override": "berth.example" }. */
  channelOptions?: grpc.ChannelOptions;
  backoff?: Backoff;
  /**
   * Objects per request of apply(), delete() and sessions (500 by default);
   * berthd refuses a request of more than its --max-batch-objects (10000 by default).
   */
  maxBatch?: number;
}

/**
 * A connection to berthd; target is "host:port" or "unix:///path", or, for
 * the replicas of a highly available berthd, several of them: a list, or one
 * string with commas between them.
 *
 * With several replicas, calls go to one at a time, the first at start. A
 * write refused by a replica that is not the leader (UNAVAILABLE, ErrorInfo
 * reason NOT_LEADER) moves the client to the leader the replica names
 * (connected to the first time, with the same credentials), or to the next
 * endpoint when it names none; a replica that cannot be reached
 * (UNAVAILABLE) moves it to the next endpoint. Unary calls are retried there
 * (at most MAX_REDIRECTS redirects, with backoff); a Session reconnects
 * there and re-lists; a Watcher resumes there from its revision with its log
 * id. Reads go to the endpoint of the last call that answered: followers
 * serve them. With several endpoints calls fail fast on a replica that is
 * down instead of waiting for it. target tells where calls go now.
 */
export class Client {
  readonly state: StateServiceClient;
  readonly decisions: DecisionServiceClient;
  readonly admin: AdminServiceClient;
  readonly eviction: EvictionServiceClient;
  readonly backoff: Backoff;
  readonly maxBatch: number;
  private readonly token?: string;
  private readonly router: Router;

  constructor(target: string | string[], opts: ClientOptions = {}) {
    const { tls } = opts;
    if (!tls?.privateKey !== !tls?.certChain) throw new Error("tls.privateKey and tls.certChain go together");
    const creds = opts.credentials ??
      (tls ? grpc.credentials.createSsl(tls.rootCerts ?? null, tls.privateKey ?? null, tls.certChain ?? null)
        : grpc.credentials.createInsecure());
    this.backoff = opts.backoff ?? new Backoff();
    const endpoints = splitEndpoints(target);
    this.router = new Router(endpoints.length ? endpoints : [""], creds, opts.channelOptions, (n) => this.backoff.delay(n));
    // Each replica's stubs share one channel: same target, credentials and options.
    this.state = this.router.routed(StateServiceClient);
    this.decisions = this.router.routed(DecisionServiceClient);
    this.admin = this.router.routed(AdminServiceClient);
    this.eviction = this.router.routed(EvictionServiceClient);
    this.maxBatch = Math.max(opts.maxBatch ?? DEFAULT_MAX_BATCH, 1);
    this.token = opts.token;
  }

  /** The address calls go to now: the first endpoint, or the replica a redirect or failover chose since. */
  get target(): string { return this.router.target; }

  /** See Router.hop: whether a stream that failed with e may be reopened at once, on another replica. */
  hop(e: unknown, hops: number): [boolean, number] { return this.router.hop(e, hops); }

  metadata(): grpc.Metadata {
    const md = new grpc.Metadata();
    if (this.token) md.set("authorization", `Bearer ${this.token}`);
    return md;
  }

  close(): void { this.router.close(); }

  /**
   * Evicts a pod through berthd's eviction API (disruption budgets
   * enforced); rejects with BudgetRefused when the pod's budget allows no
   * disruption now, with the gRPC error otherwise.
   */
  evict(namespace: string, name: string, opts: { dryRun?: boolean; gracePeriodSeconds?: number } = {}): Promise<EvictPodResponse> {
    const req = { pod: { namespace, name, uid: "" }, dryRun: opts.dryRun ?? false, gracePeriodSeconds: opts.gracePeriodSeconds };
    return new Promise((res, rej) => this.eviction.evictPod(req, this.metadata(), (err, r) => {
      if (err) rej(budgetRefused(err) ?? err);
      else res(r);
    }));
  }

  /**
   * Upserts objects, maxBatch per call; rejects with BatchError for the
   * refused ones. A call that fails as a whole rejects (with its gRPC error,
   * or RequestTooLarge) with the calls before it applied.
   */
  apply(objects: BerthObject[]): Promise<void> {
    return this.chunked(objects.length, false, (lo, hi) => new Promise((res, rej) =>
      this.state.apply({ objects: objects.slice(lo, hi) }, this.metadata(), (err, r) => (err ? rej(err) : res([r.applied, r.errors])))));
  }

  /** Deletes objects, maxBatch per call; NOT_FOUND counts as deleted; rejects with BatchError otherwise. */
  delete(refs: ObjectRef[]): Promise<void> {
    return this.chunked(refs.length, true, (lo, hi) => new Promise((res, rej) =>
      this.state.delete({ refs: refs.slice(lo, hi) }, this.metadata(), (err, r) => (err ? rej(err) : res([r.deleted, r.errors])))));
  }

  private async chunked(n: number, deletes: boolean, one: (lo: number, hi: number) => Promise<[number, WireObjectError[]]>) {
    let applied = 0;
    const refused: ObjectError[] = [];
    for (let lo = 0; lo < n; lo += this.maxBatch) {
      const hi = Math.min(lo + this.maxBatch, n);
      let ok: number, errs: WireObjectError[];
      try {
        [ok, errs] = await one(lo, hi);
      } catch (e) {
        if (grpcCode(e) === grpc.status.RESOURCE_EXHAUSTED) {
          throw new RequestTooLarge(`berth: objects ${lo}..${hi - 1} refused as too large (lower maxBatch)`, e as grpc.ServiceError);
        }
        throw e;
      }
      applied += ok;
      for (const e of errs) {
        if (deletes && isNotFound(e)) applied++; // deleting what Berth does not hold is success
        else refused.push(objectError(lo + e.index, e));
      }
    }
    if (refused.length) throw new BatchError(applied, refused);
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

export interface WatcherOptions {
  /** Revision to start from when the checkpoint holds none: 0 only new decisions, 1 the whole log. */
  startAt?: number;
  /** Called when the position was compacted; returns the revision to watch from. */
  onCompacted?: (e: CompactedError) => number | Promise<number>;
  schedulerName?: string;
  types?: number[];
  /**
   * The log the checkpoint's revision belongs to (a WatchResponse.logId kept
   * by the caller); without it the watcher learns it from the first
   * response. Sent on every (re)connect, so that a berthd that lost its log
   * refuses the watch (FAILED_PRECONDITION, LOG_ID_MISMATCH) rather than
   * skip decisions.
   */
  logId?: string;
}

/**
 * Streams decisions to handler, in revision order, resuming from the
 * checkpoint after a disconnect or a server restart. Delivery is at least
 * once: handlers must be idempotent. A handler rejection stops run(), which
 * rejects with it wrapped in a HandlerError (even a gRPC error, say from
 * confirmBind, which is not retried as a broken stream would be); the
 * checkpoint then holds that decision. Only a compacted position is a
 * CompactedError: a revision beyond the end of the log (OUT_OF_RANGE,
 * REVISION_NOT_WRITTEN) or a logId of another log (FAILED_PRECONDITION,
 * LOG_ID_MISMATCH) means the checkpoint belongs to a log berthd no longer
 * has, and run() rejects with that gRPC error (errorReason tells which).
 */
export class Watcher {
  private readonly abort = new AbortController();
  private call?: grpc.ClientReadableStream<WatchResponse>;
  /** The log the revisions come from: opts.logId, then each response's. */
  logId: string;

  constructor(private readonly client: Client, private readonly checkpoint: Checkpoint,
    private readonly handler: (d: Decision) => void | Promise<void>, private readonly opts: WatcherOptions = {}) {
    this.logId = opts.logId ?? "";
  }

  stop(): void {
    this.abort.abort();
    this.call?.cancel();
  }

  async run(): Promise<void> {
    let rev = (await this.checkpoint.load()) || (this.opts.startAt ?? 0);
    let attempt = 0;
    let hops = 0;
    let atOnce = false; // the router moved past a replica that is down: no wait
    while (!this.abort.signal.aborted) {
      if (!atOnce) await sleep(this.client.backoff.delay(attempt), this.abort.signal);
      atOnce = false;
      if (this.abort.signal.aborted) return;
      const req = WatchRequest.fromPartial({ fromRevision: rev, schedulerName: this.opts.schedulerName ?? "", types: this.opts.types ?? [], logId: this.logId });
      const call = this.client.decisions.watch(req, this.client.metadata(), { waitForReady: true } as Partial<grpc.CallOptions>);
      this.call = call;
      let progressed = false;
      try {
        for await (const resp of call as AsyncIterable<WatchResponse>) {
          progressed = true;
          if (resp.logId) this.logId = resp.logId;
          for (const d of resp.decisions) {
            if (rev && d.revision < rev) continue; // never deliver a revision twice
            try {
              await this.handler(d);
            } catch (e) {
              call.cancel();
              await this.checkpoint.save(d.revision);
              throw new HandlerError(d.revision, e);
            }
            rev = d.revision + 1;
          }
          rev = Math.max(rev, resp.nextRevision);
          await this.checkpoint.save(rev);
        }
        attempt = progressed ? 0 : attempt + 1;
      } catch (e) {
        const se = e as grpc.ServiceError;
        if (e instanceof HandlerError) throw e;
        if (this.abort.signal.aborted) return;
        const ce = compacted(rev, se);
        if (ce) {
          if (!this.opts.onCompacted) throw ce;
          rev = await this.opts.onCompacted(ce);
          await this.checkpoint.save(rev);
          attempt = 0;
          continue;
        }
        const code = grpcCode(e);
        if (code === undefined || !RETRYABLE.has(code)) throw e;
        attempt = progressed ? 0 : attempt + 1;
        [atOnce, hops] = this.client.hop(e, hops);
        if (atOnce && attempt) attempt--; // another replica, at once: not a failure of its own
      } finally {
        this.call = undefined;
      }
    }
  }
}

/**
 * The CompactedError of a watch error: OUT_OF_RANGE with reason
 * REVISION_COMPACTED, or without an ErrorInfo (a berthd older than the
 * reasons); undefined for any other error, REVISION_NOT_WRITTEN included.
 */
function compacted(rev: number, e: grpc.ServiceError): CompactedError | undefined {
  if (e?.code !== grpc.status.OUT_OF_RANGE) return undefined;
  const info = errorInfo(e);
  if (!info) return new CompactedError(rev, 0);
  if (info.reason !== REVISION_COMPACTED) return undefined;
  return new CompactedError(rev, Number.parseInt(info.metadata.oldest_revision ?? "0", 10) || 0);
}
