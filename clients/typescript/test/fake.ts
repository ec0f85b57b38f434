// An in-process fake berthd for the client's tests: objects with resync
// semantics, a decision log, and faults to inject.
import * as grpc from "@grpc/grpc-js";

import { identity } from "../src/session.js";
import { Decision } from "../src/gen/berth/v1/decision.js";
import { DecisionServiceService, DecisionServiceServer, WatchResponse } from "../src/gen/berth/v1/decision_service.js";
import { Object as BerthObject, ObjectKind, ObjectRef } from "../src/gen/berth/v1/object.js";
import {
  ErrorCode, Mutation, ObjectError, ReportBindResultRequest, Resync, StateServiceServer, StateServiceService, SyncRequest,
  SyncResponse,
} from "../src/gen/berth/v1/state_service.js";
import { ErrorInfo } from "../src/gen/google/rpc/error_details.js";
import { Status } from "../src/gen/google/rpc/status.js";

const status = (code: grpc.status, details: string, metadata?: grpc.Metadata) =>
  Object.assign(new Error(details), { code, details, metadata }) as grpc.ServiceError;

/** Ends a Watch as berthd does: code, with an ErrorInfo of reason in the status details. */
export function watchError(code: grpc.status, message: string, reason: string, metadata: { [k: string]: string }): grpc.ServiceError {
  const info = ErrorInfo.encode({ reason, domain: "berth.v1", metadata }).finish();
  const details = Status.encode({ code, message, details: [{ typeUrl: "type.googleapis.com/google.rpc.ErrorInfo", value: Buffer.from(info) }] }).finish();
  const md = new grpc.Metadata();
  md.set("grpc-status-details-bin", Buffer.from(details));
  return status(code, message, md);
}

const refKey = (r: ObjectRef) => `${r.kind}/${r.namespace}/${r.name}`;

export class FakeBerth {
  readonly objects = new Map<string, BerthObject>();
  readonly log: Decision[] = [1, 2, 3, 4, 5].map((i) => Decision.fromPartial({
    revision: i, pod: { namespace: "ns", name: `p${i}`, uid: `u${i}` }, action: { $case: "bind", value: { node: "n1" } },
  }));
  oldest = 1;
  /** Requests each Sync stream acknowledges before it ends with UNAVAILABLE. */
  syncBreaks: number[] = [];
  /** Decisions each Watch sends before it ends with UNAVAILABLE. */
  watchBreaks: number[] = [];
  /** > 0: larger requests fail with RESOURCE_EXHAUSTED (berthd's --max-batch-objects). */
  maxMutations = 0;
  /** A code ReportBindResult fails with. */
  reportError?: grpc.status;
  readonly watchFroms: number[] = [];
  /** The logId of each Watch request. */
  readonly watchLogIds: string[] = [];
  logId = "log-A";
  /** Compacted positions end without an ErrorInfo, as an old berthd's. */
  bareOutOfRange = false;
  readonly requests: SyncRequest[] = [];
  readonly reports: ReportBindResultRequest[] = [];
  /** The authorization metadata of each call, in order. */
  readonly authorization: string[][] = [];
  unaryCalls = 0;
  private resyncWaiters: (() => void)[] = [];
  private resyncs = 0;
  private readonly server = new grpc.Server();
  port = 0;

  async start(creds = grpc.ServerCredentials.createInsecure()): Promise<this> {
    this.server.addService(StateServiceService, this.stateService());
    this.server.addService(DecisionServiceService, this.decisionService());
    this.port = await new Promise<number>((res, rej) =>
      this.server.bindAsync("127.0.0.1:0", creds, (err, port) => (err ? rej(err) : res(port))));
    return this;
  }

  stop(): void { this.server.forceShutdown(); }

  /** Resolves once n re-lists (RESYNC_END) have been acknowledged in all. */
  async resynced(n: number): Promise<void> {
    while (this.resyncs < n) await new Promise<void>((res) => this.resyncWaiters.push(res));
  }

  held(): string[] { return [...this.objects.values()].map((o) => o.kind?.value.name ?? "").sort(); }

  /** Per Sync request: its marker (B, E or -) and the names it carries. */
  received(): string[] {
    return this.requests.map((req) => {
      let s = req.resync === Resync.RESYNC_BEGIN ? "B" : req.resync === Resync.RESYNC_END ? "E" : "-";
      for (const m of req.mutations) {
        s += m.op?.$case === "delete" ? ` del:${m.op.value.name}` : ` ${m.op?.value.kind?.value.name ?? ""}`;
      }
      return s;
    });
  }

  private seen(md: grpc.Metadata): void { this.authorization.push(md.get("authorization").map(String)); }

  private tooLarge(n: number): grpc.ServiceError | undefined {
    return this.maxMutations && n > this.maxMutations
      ? status(grpc.status.RESOURCE_EXHAUSTED, `${n} mutations, more than ${this.maxMutations}`) : undefined;
  }

  private apply(i: number, m: Mutation, seen?: Set<string>): ObjectError | undefined {
    if (m.op?.$case === "delete") {
      const key = refKey(m.op.value);
      if (!this.objects.delete(key)) return ObjectError.fromPartial({ index: i, ref: m.op.value, code: ErrorCode.ERROR_CODE_NOT_FOUND });
      seen?.delete(key);
      return undefined;
    }
    const o = m.op?.value ?? {};
    const key = identity(o);
    const [kind, namespace, name] = key.split("/");
    const ref = ObjectRef.fromPartial({ kind: Number(kind), namespace, name });
    if (!name) return ObjectError.fromPartial({ index: i, ref, code: ErrorCode.ERROR_CODE_INVALID_ARGUMENT, fieldPath: "name", message: "must not be empty" });
    const pc = o.kind?.$case === "pod" ? o.kind.value.priorityClassName : "";
    if (pc && !this.objects.has(`${ObjectKind.OBJECT_KIND_PRIORITY_CLASS}//${pc}`)) {
      return ObjectError.fromPartial({ index: i, ref, code: ErrorCode.ERROR_CODE_FAILED_PRECONDITION, fieldPath: "pod.priority_class_name" });
    }
    this.objects.set(key, o as BerthObject);
    seen?.add(key);
    return undefined;
  }

  /** The StateService handlers (replicas wrap them). */
  stateService(): StateServiceServer {
    return {
      sync: (call) => {
        this.seen(call.metadata);
        const breakAfter = this.syncBreaks.shift() ?? -1;
        let acked = 0;
        let dead = false;
        let seen: Set<string> | undefined;
        let kinds: ObjectKind[] = [];
        call.on("data", (req: SyncRequest) => {
          if (dead) return;
          const err = acked === breakAfter ? status(grpc.status.UNAVAILABLE, "sync broken") : this.tooLarge(req.mutations.length);
          if (err) {
            dead = true;
            call.emit("error", err);
            return;
          }
          this.requests.push(req);
          const resp = SyncResponse.fromPartial({ batchId: req.batchId });
          if (req.resync === Resync.RESYNC_BEGIN) { seen = new Set(); kinds = req.resyncKinds; }
          req.mutations.forEach((m, i) => {
            const e = this.apply(i, m, seen);
            if (e) resp.errors.push(e); else resp.applied++;
          });
          if (req.resync === Resync.RESYNC_END) {
            for (const key of [...this.objects.keys()]) {
              if (!seen?.has(key) && (!kinds.length || kinds.includes(Number(key.split("/")[0])))) {
                this.objects.delete(key);
                resp.resyncDeleted++;
              }
            }
            seen = undefined;
          }
          call.write(resp);
          acked++;
          if (req.resync === Resync.RESYNC_END) {
            this.resyncs++;
            for (const w of this.resyncWaiters.splice(0)) w();
          }
        });
        call.on("end", () => { if (!dead) call.end(); });
      },
      apply: (call, cb) => {
        this.seen(call.metadata);
        this.unaryCalls++;
        const err = this.tooLarge(call.request.objects.length);
        if (err) return cb(err);
        let applied = 0;
        const errors: ObjectError[] = [];
        call.request.objects.forEach((o, i) => {
          const e = this.apply(i, Mutation.fromPartial({ op: { $case: "upsert", value: o } }));
          if (e) errors.push(e); else applied++;
        });
        cb(null, { applied, errors });
      },
      delete: (call, cb) => {
        this.seen(call.metadata);
        this.unaryCalls++;
        const err = this.tooLarge(call.request.refs.length);
        if (err) return cb(err);
        let deleted = 0;
        const errors: ObjectError[] = [];
        call.request.refs.forEach((r, i) => {
          const e = this.apply(i, Mutation.fromPartial({ op: { $case: "delete", value: r } }));
          if (e) errors.push(e); else deleted++;
        });
        cb(null, { deleted, errors });
      },
      reportBindResult: (call, cb) => {
        this.seen(call.metadata);
        if (this.reportError !== undefined) return cb(status(this.reportError, "report refused"));
        this.reports.push(call.request);
        cb(null, {});
      },
    };
  }

  private decisionService(): DecisionServiceServer {
    return {
      watch: (call) => {
        this.seen(call.metadata);
        const from = call.request.fromRevision;
        this.watchFroms.push(from);
        this.watchLogIds.push(call.request.logId);
        const next = this.log.length + 1;
        let refusal: grpc.ServiceError | undefined;
        if (call.request.logId && call.request.logId !== this.logId) {
          refusal = watchError(grpc.status.FAILED_PRECONDITION, "another log", "LOG_ID_MISMATCH", { log_id: this.logId });
        } else if (from > next) {
          refusal = watchError(grpc.status.OUT_OF_RANGE, "beyond the end", "REVISION_NOT_WRITTEN",
            { next_revision: String(next), log_id: this.logId });
        } else if (from < this.oldest) {
          refusal = this.bareOutOfRange ? status(grpc.status.OUT_OF_RANGE, "compacted")
            : watchError(grpc.status.OUT_OF_RANGE, "compacted", "REVISION_COMPACTED", { oldest_revision: String(this.oldest), log_id: this.logId });
        }
        if (refusal) {
          call.emit("error", refusal);
          return;
        }
        const limit = this.watchBreaks.shift();
        let sent = 0;
        for (const d of this.log.filter((x) => x.revision >= from)) {
          if (sent === limit) break;
          call.write(WatchResponse.fromPartial({ decisions: [d], nextRevision: d.revision + 1, logId: this.logId }));
          sent++;
        }
        call.emit("error", status(grpc.status.UNAVAILABLE, sent === limit ? "watch broken" : "end of log"));
      },
    };
  }
}
