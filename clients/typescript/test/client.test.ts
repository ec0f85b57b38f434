// Unit tests of the TypeScript client against an in-process fake berthd.
//   npm test   (builds, then runs node --test on dist/test)
import { strict as assert } from "node:assert";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";

import {
  Backoff, BatchError, BerthObject, Client, CompactedError, Decision, FileCheckpoint, HandlerError, MemoryCheckpoint,
  errorReason, LOG_ID_MISMATCH, ObjectKind, ObjectRef, RequestTooLarge, ResyncResult, REVISION_NOT_WRITTEN, Session,
  SessionOptions, UntrackedKind, Watcher, WatcherOptions,
} from "../src/index.js";
import { identity } from "../src/session.js";
import { BindOutcome } from "../src/gen/berth/v1/state_service.js";
import { FakeBerth } from "./fake.js";

const node = (name: string) => BerthObject.fromPartial({ kind: { $case: "node", value: { name } } });
const pod = (name: string, extra: { nodeName?: string; priorityClassName?: string } = {}) =>
  BerthObject.fromPartial({ kind: { $case: "pod", value: { namespace: "ns", name, uid: `uid-${name}`, ...extra } } });
const podRef = (name: string) => ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_POD, namespace: "ns", name });

/** An orchestrator's record, re-listed by its session. */
class Store {
  constructor(public objects: BerthObject[] = []) {}
  add(...objs: BerthObject[]) { this.objects.push(...objs); }
  list = () => [...this.objects];
}

let fake: FakeBerth;
let client: Client;
const cleanups: (() => unknown)[] = [];

beforeEach(async () => {
  fake = await new FakeBerth().start();
  client = newClient();
});

afterEach(async () => {
  for (const f of cleanups.splice(0).reverse()) await f();
  client.close();
  fake.stop();
});

function newClient(opts: { token?: string; maxBatch?: number } = {}): Client {
  return new Client(`127.0.0.1:${fake.port}`, { backoff: new Backoff(0), ...opts });
}

function session(store: Store, opts: SessionOptions = {}, c = client): Session {
  const s = new Session(c, store.list, { maxBatch: 2, ...opts }).start();
  cleanups.push(() => s.close());
  return s;
}

/** Watches until the handler saw revision last; returns the revisions handled. */
async function watchUntil(checkpoint: MemoryCheckpoint | FileCheckpoint, last: number, opts: WatcherOptions = {}) {
  const got: number[] = [];
  const w: Watcher = new Watcher(client, checkpoint, (d) => {
    got.push(d.revision);
    if (d.revision === last) w.stop();
  }, opts);
  await w.run();
  return got;
}

describe("Watcher", () => {
  test("resumes after stream breaks", async () => {
    fake.watchBreaks = [2, 1];
    const cp = new MemoryCheckpoint();
    assert.deepEqual(await watchUntil(cp, 5, { startAt: 1 }), [1, 2, 3, 4, 5]);
    assert.deepEqual(fake.watchFroms, [1, 3, 4]);
    assert.equal(cp.revision, 6);
  });

  test("resumes from the persisted revision after a disconnect", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "berth-ts-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, "rev");
    fake.watchBreaks = [3];
    // The first watcher handles 1..3, its stream breaks, and it stops (the
    // orchestrator exits) once it saw 3.
    assert.deepEqual(await watchUntil(new FileCheckpoint(file), 3, { startAt: 1 }), [1, 2, 3]);
    assert.equal(await new FileCheckpoint(file).load(), 4);
    // A new watcher on the same file resumes at 4, whatever startAt says.
    assert.deepEqual(await watchUntil(new FileCheckpoint(file), 5, { startAt: 1 }), [4, 5]);
    assert.deepEqual(fake.watchFroms, [1, 4]);
  });

  test("surfaces and recovers from compaction", async () => {
    fake.oldest = 4;
    await assert.rejects(watchUntil(new MemoryCheckpoint(2), 5), (e) =>
      e instanceof CompactedError && e.fromRevision === 2 && e.oldest === 4);
    assert.deepEqual(await watchUntil(new MemoryCheckpoint(2), 5, { onCompacted: (ce) => ce.oldest }), [4, 5]);
  });

  test("a compaction without ErrorInfo (an older berthd) is still one", async () => {
    fake.oldest = 4;
    fake.bareOutOfRange = true;
    await assert.rejects(watchUntil(new MemoryCheckpoint(2), 5), (e) =>
      e instanceof CompactedError && e.fromRevision === 2 && e.oldest === 0);
  });

  test("a revision not yet written is not a compaction", async () => {
    const compactions: CompactedError[] = [];
    await assert.rejects(watchUntil(new MemoryCheckpoint(50), 5, { onCompacted: (ce) => { compactions.push(ce); return 0; } }), (e) =>
      !(e instanceof CompactedError) && (e as grpc.ServiceError).code === grpc.status.OUT_OF_RANGE && errorReason(e) === REVISION_NOT_WRITTEN);
    assert.deepEqual(compactions, []);
    assert.deepEqual(fake.watchFroms, [50]); // not retried
  });

  test("resuming sends the log's id", async () => {
    fake.watchBreaks = [2, 1];
    assert.deepEqual(await watchUntil(new MemoryCheckpoint(), 5, { startAt: 1 }), [1, 2, 3, 4, 5]);
    assert.deepEqual(fake.watchLogIds, ["", "log-A", "log-A"]);
  });

  test("a logId of another log is refused", async () => {
    await assert.rejects(watchUntil(new MemoryCheckpoint(3), 5, { logId: "log-B" }), (e) =>
      (e as grpc.ServiceError).code === grpc.status.FAILED_PRECONDITION && errorReason(e) === LOG_ID_MISMATCH);
    assert.deepEqual(fake.watchLogIds, ["log-B"]);
  });

  test("a handler error stops it at that revision", async () => {
    const cp = new MemoryCheckpoint();
    const boom = new Error("boom");
    const w = new Watcher(client, cp, (d) => { if (d.revision === 3) throw boom; }, { startAt: 1 });
    await assert.rejects(w.run(), (e) => e instanceof HandlerError && e.revision === 3 && e.error === boom);
    assert.equal(cp.revision, 3);
  });

  test("a gRPC error from the handler is not retried as a broken stream", async () => {
    fake.reportError = grpc.status.UNAVAILABLE;
    const seen: number[] = [];
    const w = new Watcher(client, new MemoryCheckpoint(), async (d) => {
      seen.push(d.revision);
      await client.confirmBind(d);
    }, { startAt: 1 });
    await assert.rejects(w.run(), (e) =>
      e instanceof HandlerError && (e.error as grpc.ServiceError).code === grpc.status.UNAVAILABLE);
    assert.deepEqual(seen, [1]);
    assert.deepEqual(fake.watchFroms, [1]);
  });
});

describe("Client", () => {
  test("confirmBind and failBind report the Bind", async () => {
    const bind = fake.log[0];
    await client.confirmBind(bind);
    await client.failBind(bind, "image pull failed");
    await assert.rejects(client.confirmBind(Decision.fromPartial({ revision: 9, action: { $case: "evict", value: { node: "n1" } } })),
      /not a Bind/);
    assert.deepEqual(fake.reports.map((r) => [r.pod?.name, r.pod?.uid, r.node, r.revision, r.outcome, r.reason]), [
      ["p1", "u1", "n1", 1, BindOutcome.BIND_OUTCOME_CONFIRMED, ""],
      ["p1", "u1", "n1", 1, BindOutcome.BIND_OUTCOME_FAILED, "image pull failed"],
    ]);
  });

  test("the token goes with every call", async () => {
    const c = newClient({ token: "s3cret" });
    cleanups.push(() => c.close());
    await c.apply([node("n1")]);
    await c.confirmBind(fake.log[0]);
    session(new Store(), {}, c);
    await fake.resynced(1);
    const w: Watcher = new Watcher(c, new MemoryCheckpoint(), () => w.stop(), { startAt: 1 });
    await w.run();
    await client.apply([node("n2")]); // no token: none sent
    assert.deepEqual(fake.authorization, [...Array(4).fill(["Bearer s3cret"]), []]);
  });

  test("apply and delete split above maxBatch", async () => {
    const c = newClient({ maxBatch: 2 });
    cleanups.push(() => c.close());
    await assert.rejects(c.apply([node("a"), node("b"), node("c"), node(""), node("e")]), (e) =>
      e instanceof BatchError && e.applied === 4 && e.errors.length === 1 && e.errors[0].index === 3 &&
      e.errors[0].code === grpc.status.INVALID_ARGUMENT);
    await c.delete([podRef("x"), podRef("y"), podRef("z")]); // NOT_FOUND is success
    assert.equal(fake.unaryCalls, 5);
    fake.maxMutations = 1;
    await assert.rejects(c.apply([node("a"), node("b")]), RequestTooLarge);
  });
});

describe("Session", () => {
  test("maps refusals to the caller's objects", async () => {
    const resyncs: ResyncResult[] = [];
    const s = session(new Store([node("n1")]), { onResync: (r) => resyncs.push(r) });
    await fake.resynced(1);
    await assert.rejects(s.upsert(pod("a"), pod("")), (e) =>
      e instanceof BatchError && e.applied === 1 && e.errors.length === 1 && e.errors[0].index === 1 &&
      e.errors[0].fieldPath === "name");
    await s.delete(podRef("gone"));
    assert.deepEqual(resyncs.map((r) => r.sent), [1]);
    assert.deepEqual(fake.received(), ["B n1", "E", "- a ", "- del:gone"]);
  });

  test("sends a call made before the first re-list, of an object the record holds, once", async () => {
    const store = new Store([node("n1"), pod("a")]);
    const s = session(store);
    await s.upsert(pod("a")); // made while the session starts: the re-list carries it
    assert.deepEqual(fake.received(), ["B n1 a", "E"]);
  });

  test("batches calls made during the re-list into one request", async () => {
    let release!: () => void;
    const listed = new Promise<void>((res) => { release = res; });
    let called!: () => void;
    const listing = new Promise<void>((res) => { called = res; });
    const lister = async () => {
      called();
      await listed;
      return [node("n1")];
    };
    const s = new Session(client, lister).start();
    cleanups.push(() => s.close());
    await listing; // calls made from now on are sent after the re-list
    const calls = [s.upsert(pod("a")), s.upsert(pod("b")), s.delete(podRef("c"))];
    release();
    await Promise.all(calls);
    assert.deepEqual(fake.received(), ["B n1", "E", "- a b del:c"]);
  });

  test("splits a call above maxBatch", async () => {
    const s = session(new Store());
    await fake.resynced(1);
    await assert.rejects(s.upsert(pod("a"), pod("b"), pod(""), pod("d"), pod("e", { priorityClassName: "gold" })), (e) =>
      e instanceof BatchError && e.applied === 3 &&
      JSON.stringify(e.errors.map((x) => [x.index, x.code])) ===
        JSON.stringify([[2, grpc.status.INVALID_ARGUMENT], [4, grpc.status.FAILED_PRECONDITION]]));
    assert.deepEqual(fake.received(), ["B", "E", "- a b", "-  d", "- e"]);
  });

  test("re-lists on reconnect; the re-list supersedes unacknowledged calls", async () => {
    // First stream: acks BEGIN+n1 / END / the upsert of a, breaks on b's.
    fake.syncBreaks = [3];
    const store = new Store([node("n1")]);
    const resyncs: ResyncResult[] = [];
    const s = session(store, { onResync: (r) => resyncs.push(r) });
    await fake.resynced(1);
    store.add(pod("a"));
    await s.upsert(pod("a"));
    store.add(pod("b")); // the record first, then Berth
    await s.upsert(pod("b")); // answered by the re-list
    assert.deepEqual(resyncs.map((r) => [r.sent, r.deleted, r.errors.length]), [[1, 0, 0], [3, 0, 0]]);
    assert.deepEqual(fake.held(), ["a", "b", "n1"]);
    assert.deepEqual(fake.received(), ["B n1", "E", "- a", "B n1 a", "- b", "E"]);
  });

  test("a stale call does not undo the re-list", async () => {
    fake.syncBreaks = [2]; // acks BEGIN / END, breaks on the first call
    const store = new Store();
    const s = session(store);
    await fake.resynced(1);
    store.add(pod("b", { nodeName: "n1" })); // the record moved on before the call was answered
    await s.upsert(pod("b"));
    const held = [...fake.objects.values()].find((o) => o.kind?.value.name === "b");
    assert.equal(held?.kind?.$case === "pod" && held.kind.value.nodeName, "n1");
  });

  test("a superseded call gets the re-list's refusal", async () => {
    fake.syncBreaks = [2];
    const store = new Store();
    const s = session(store);
    await fake.resynced(1);
    const bad = pod("p", { priorityClassName: "gold" });
    store.add(node("n1"), bad);
    await assert.rejects(s.upsert(node("n1"), bad), (e) =>
      e instanceof BatchError && e.applied === 1 && e.errors.length === 1 && e.errors[0].index === 1 &&
      e.errors[0].code === grpc.status.FAILED_PRECONDITION);
  });

  test("deletes of kinds not re-listed are sent again", async () => {
    fake.syncBreaks = [2];
    const store = new Store([pod("a")]);
    const s = session(store, { resyncKinds: [ObjectKind.OBJECT_KIND_POD] });
    await fake.resynced(1);
    store.add(pod("b"));
    await Promise.all([s.upsert(pod("b")), s.delete(ObjectRef.fromPartial({ kind: ObjectKind.OBJECT_KIND_NODE, name: "n9" }))]);
    assert.deepEqual(fake.received(), ["B a", "E", "B a b", "E", "- del:n9"]);
    assert.deepEqual(fake.requests[2].resyncKinds, [ObjectKind.OBJECT_KIND_POD]);
  });

  test("an upsert of a kind not re-listed is refused, nothing of it sent", async () => {
    const s = session(new Store([pod("a")]), { resyncKinds: [ObjectKind.OBJECT_KIND_POD, ObjectKind.OBJECT_KIND_RESOURCE_CLAIM] });
    await fake.resynced(1);
    await assert.rejects(s.upsert(pod("b"), node("n9")), (e) => {
      assert.ok(e instanceof UntrackedKind);
      assert.equal(e.index, 1);
      assert.equal(e.kind, "OBJECT_KIND_NODE");
      assert.deepEqual(e.resyncKinds, ["OBJECT_KIND_POD", "OBJECT_KIND_RESOURCE_CLAIM"]);
      assert.match(e.message, /does not track OBJECT_KIND_NODE \(its resyncKinds: OBJECT_KIND_POD, OBJECT_KIND_RESOURCE_CLAIM\).*add OBJECT_KIND_NODE to resyncKinds/);
      return true;
    });
    // A kind the session re-lists, of the newer kinds too, goes through.
    const claim = BerthObject.fromPartial({ kind: { $case: "resourceClaim", value: { namespace: "ns", name: "gpu" } } });
    await s.upsert(claim);
    assert.deepEqual(fake.received(), ["B a", "E", "- gpu"]);
    assert.deepEqual(fake.held(), ["a", "gpu"]);
  });

  test("without resyncKinds every kind is taken", async () => {
    const s = session(new Store());
    await fake.resynced(1);
    await s.upsert(node("n1"), pod("p"));
    assert.deepEqual(fake.held(), ["n1", "p"]);
  });

  test("a request too large fails the call, not the session", async () => {
    fake.maxMutations = 3;
    const s = session(new Store(), { maxBatch: 4 });
    await fake.resynced(1);
    await assert.rejects(s.upsert(pod("a"), pod("b"), pod("c"), pod("d")), RequestTooLarge);
    await s.upsert(pod("e"));
    assert.ok(fake.held().includes("e"));
  });

  test("a re-list too large ends the session", async () => {
    fake.maxMutations = 1;
    const s = new Session(client, () => [node("a"), node("b")], { maxBatch: 2 }).start();
    await assert.rejects(s.upsert(node("x")), /re-list request of 2 objects/);
    assert.ok(s.error instanceof RequestTooLarge);
    await s.close();
  });
});

describe("identity", () => {
  // Refusals of a re-list are matched to superseded calls by identity: two
  // objects must share one only if berthd takes them for the same object.
  const cases: [string, BerthObject, string][] = [
    ["node", node("n1"), `${ObjectKind.OBJECT_KIND_NODE}//n1`],
    ["pod", pod("p"), `${ObjectKind.OBJECT_KIND_POD}/ns/p`],
    ["pod group", BerthObject.fromPartial({ kind: { $case: "podGroup", value: { namespace: "ns", name: "g" } } }), `${ObjectKind.OBJECT_KIND_POD_GROUP}/ns/g`],
    ["composite pod group", BerthObject.fromPartial({ kind: { $case: "compositePodGroup", value: { namespace: "ns", name: "c" } } }), `${ObjectKind.OBJECT_KIND_COMPOSITE_POD_GROUP}/ns/c`],
    ["device class", BerthObject.fromPartial({ kind: { $case: "deviceClass", value: { name: "gpu" } } }), `${ObjectKind.OBJECT_KIND_DEVICE_CLASS}//gpu`],
    ["resource slice", BerthObject.fromPartial({ kind: { $case: "resourceSlice", value: { name: "s" } } }), `${ObjectKind.OBJECT_KIND_RESOURCE_SLICE}//s`],
    ["resource claim", BerthObject.fromPartial({ kind: { $case: "resourceClaim", value: { namespace: "ns", name: "c" } } }), `${ObjectKind.OBJECT_KIND_RESOURCE_CLAIM}/ns/c`],
    ["resource claim template", BerthObject.fromPartial({ kind: { $case: "resourceClaimTemplate", value: { namespace: "ns", name: "t" } } }), `${ObjectKind.OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE}/ns/t`],
    ["device taint rule", BerthObject.fromPartial({ kind: { $case: "deviceTaintRule", value: { name: "r" } } }), `${ObjectKind.OBJECT_KIND_DEVICE_TAINT_RULE}//r`],
    ["no kind", BerthObject.fromPartial({}), `${ObjectKind.OBJECT_KIND_UNSPECIFIED}//`],
  ];
  for (const [name, o, want] of cases) test(name, () => assert.equal(identity(o), want));
});
