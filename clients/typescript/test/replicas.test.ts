// Tests of the TypeScript client against several fake berthd replicas, one
// the leader.
import { strict as assert } from "node:assert";
import { afterEach, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";

import {
  Backoff, BerthObject, Client, Decision, MAX_REDIRECTS, MemoryCheckpoint, NOT_LEADER, notLeader, Session, splitEndpoints, Watcher,
} from "../src/index.js";
import { DecisionServiceService, WatchResponse } from "../src/gen/berth/v1/decision_service.js";
import { StateServiceServer, StateServiceService, SyncRequest } from "../src/gen/berth/v1/state_service.js";
import { FakeBerth, watchError } from "./fake.js";

const node = (name: string) => BerthObject.fromPartial({ kind: { $case: "node", value: { name } } });
const pod = (name: string) => BerthObject.fromPartial({ kind: { $case: "pod", value: { namespace: "ns", name, uid: `uid-${name}` } } });

type Handler = (call: never, cb?: never) => void;

/**
 * berthd's replicas over one FakeBerth (one store: the same log and log id
 * everywhere). A follower refuses StateService calls with NOT_LEADER naming
 * the leader; a leader deposed since refuses the next request of its Sync
 * streams. Every replica serves Watch.
 */
class Cluster {
  readonly fake = new FakeBerth();
  readonly servers: grpc.Server[] = [];
  readonly addrs: string[] = [];
  readonly unaware = new Set<number>();
  readonly calls: string[] = [];
  /** After electAt refusals replica 2 leads (an election that ends while a call goes round). */
  electAt = 0;
  private refusals = 0;
  private appended: (() => void)[] = [];

  constructor(public leader: number | undefined) {}

  async start(n: number): Promise<this> {
    for (let i = 0; i < n; i++) {
      const server = new grpc.Server();
      server.addService(StateServiceService, this.stateService(i) as unknown as grpc.UntypedServiceImplementation);
      server.addService(DecisionServiceService, { watch: (call: grpc.ServerWritableStream<{ fromRevision: number; logId: string }, WatchResponse>) => this.watch(i, call) });
      const port = await new Promise<number>((res, rej) =>
        server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? rej(err) : res(p))));
      this.servers.push(server);
      this.addrs.push(`127.0.0.1:${port}`);
    }
    return this;
  }

  stop(): void { for (const s of this.servers) s.forceShutdown(); }

  name(addr: string): string { return `r${this.addrs.indexOf(addr)}`; }

  client(...endpoints: number[]): Client {
    return new Client(endpoints.map((i) => this.addrs[i]), { backoff: new Backoff(0) });
  }

  /** Makes replica i the leader; a new leader holds only what is re-listed. */
  setLeader(i: number | undefined): void {
    this.leader = i;
    this.fake.objects.clear();
  }

  /** Appends n decisions to the log (copies of its first). */
  append(n: number): void {
    for (let k = 0; k < n; k++) this.fake.log.push(Decision.fromPartial({ ...this.fake.log[0], revision: this.fake.log.length + 1 }));
    for (const w of this.appended.splice(0)) w();
  }

  /** Replica i's NOT_LEADER refusal, undefined on the leader. */
  private refusal(i: number): grpc.ServiceError | undefined {
    if (i === this.leader) return undefined;
    const leader = this.leader !== undefined && !this.unaware.has(i) ? this.addrs[this.leader] : "";
    if (++this.refusals === this.electAt) this.leader = 2;
    return watchError(grpc.status.UNAVAILABLE, "not the leader", NOT_LEADER, { leader });
  }

  private stateService(i: number): StateServiceServer {
    const inner = this.fake.stateService() as unknown as Record<string, Handler>;
    const unary = (method: string) => (call: never, cb: (e: grpc.ServiceError) => void) => {
      this.calls.push(`r${i} ${method}`);
      const refused = this.refusal(i);
      if (refused) {
        this.calls.push(`r${i} ${method} refused`);
        return cb(refused);
      }
      inner[method](call, cb as never);
    };
    return {
      apply: unary("apply"),
      delete: unary("delete"),
      reportBindResult: unary("reportBindResult"),
      sync: (call) => {
        this.calls.push(`r${i} sync`);
        const refused = this.refusal(i);
        if (refused) return void call.emit("error", refused);
        // The inner handler sees requests only while this replica leads.
        let deposed = false;
        const fenced = new Proxy(call, {
          get: (t, p) => {
            if (p === "on") {
              return (ev: string, fn: (req: SyncRequest) => void) => t.on(ev, ev !== "data" ? fn : (req: SyncRequest) => {
                const err = this.refusal(i);
                if (err && !deposed) call.emit("error", err);
                deposed ||= err !== undefined;
                if (!deposed) fn(req);
              });
            }
            const v = (t as unknown as Record<string | symbol, unknown>)[p];
            return typeof v === "function" ? v.bind(t) : v;
          },
        });
        inner.sync(fenced as never);
      },
    } as StateServiceServer;
  }

  private watch(i: number, call: grpc.ServerWritableStream<{ fromRevision: number; logId: string }, WatchResponse>): void {
    this.calls.push(`r${i} watch from=${call.request.fromRevision} log=${call.request.logId}`);
    let rev = call.request.fromRevision;
    let done = false;
    call.on("cancelled", () => { done = true; });
    const send = () => {
      if (done) return;
      for (const d of this.fake.log.filter((x) => x.revision >= rev)) {
        call.write(WatchResponse.fromPartial({ decisions: [d], nextRevision: d.revision + 1, logId: this.fake.logId }));
        rev = d.revision + 1;
      }
      this.appended.push(send);
    };
    send();
  }
}

const clusters: Cluster[] = [];
const clients: Client[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  for (const c of clusters.splice(0)) c.stop();
});

async function cluster(n: number, leader: number | undefined): Promise<Cluster> {
  const c = await new Cluster(leader).start(n);
  clusters.push(c);
  return c;
}

describe("several endpoints", () => {
  const cases: { name: string; leader?: number; endpoints: number[]; unaware?: number[]; stopped?: number[]; electAt?: number; calls: string[]; at: string }[] = [
    { name: "a follower names the leader", leader: 2, endpoints: [1, 2, 0], calls: ["r1 apply", "r2 apply"], at: "r2" },
    { name: "a leader not among the endpoints", leader: 0, endpoints: [1], calls: ["r1 apply", "r0 apply"], at: "r0" },
    {
      name: "a follower that knows no leader: the next endpoint", leader: 0, endpoints: [1, 2, 0], unaware: [1],
      calls: ["r1 apply", "r2 apply", "r0 apply"], at: "r0",
    },
    { name: "an endpoint down: the next one", leader: 1, endpoints: [0, 1], stopped: [0], calls: ["r1 apply"], at: "r1" },
    {
      name: "an endpoint down while the others elect: round again until one leads", endpoints: [0, 1, 2], stopped: [0], electAt: 4,
      calls: ["r1 apply", "r2 apply", "r1 apply", "r2 apply", "r1 apply", "r2 apply"], at: "r2",
    },
  ];
  for (const tc of cases) {
    test(`unary writes: ${tc.name}`, async () => {
      const c = await cluster(3, tc.leader);
      for (const i of tc.unaware ?? []) c.unaware.add(i);
      for (const i of tc.stopped ?? []) c.servers[i].forceShutdown();
      c.electAt = tc.electAt ?? 0;
      const client = c.client(...tc.endpoints);
      clients.push(client);

      await client.apply([node("n1")]);

      assert.deepEqual(c.calls.filter((x) => !x.endsWith("refused")), tc.calls);
      assert.equal(c.name(client.target), tc.at);
    });
  }

  test("unary writes: no leader anywhere fails with NOT_LEADER", async () => {
    const c = await cluster(2, undefined);
    const client = c.client(0, 1);
    clients.push(client);

    const err = await client.apply([node("n1")]).then(() => undefined, (e: unknown) => e);

    assert.deepEqual(notLeader(err), { leader: "" });
    assert.equal(c.calls.filter((x) => x.endsWith("refused")).length, MAX_REDIRECTS);
  });

  test("a stream reopens at once on another replica until a round failed", async () => {
    const c = await cluster(3, 0);
    const client = c.client(0, 1, 2);
    clients.push(client);
    const unavailable = Object.assign(new Error("down"), { code: grpc.status.UNAVAILABLE });
    assert.deepEqual([0, 1, 2].map((n) => client.hop(unavailable, n)), [[true, 1], [true, 2], [false, 0]]);
    assert.deepEqual(client.hop(undefined, 1), [false, 0]);
  });

  test("splitEndpoints", () => {
    assert.deepEqual(splitEndpoints(" a:1, b:2 ,,c:3,"), ["a:1", "b:2", "c:3"]);
    assert.deepEqual(splitEndpoints(["a:1", "b:2,c:3"]), ["a:1", "b:2", "c:3"]);
  });

  test("a session re-lists on each new leader", async () => {
    const c = await cluster(3, 0);
    const client = c.client(1, 0, 2);
    clients.push(client);
    const objects = [node("n1")];
    const sent: number[] = [];
    const s = new Session(client, () => [...objects], { maxBatch: 2, onResync: (r) => sent.push(r.sent) }).start();
    const upsert = async (name: string) => {
      objects.push(pod(name));
      await s.upsert(pod(name));
    };
    try {
      await c.fake.resynced(1);
      await upsert("a");
      c.setLeader(2); // r0 is deposed and stays up
      await upsert("b"); // refused by r0: re-listed on r2
      await c.fake.resynced(2);
      c.setLeader(1);
      c.servers[2].forceShutdown(); // the leader dies
      await upsert("c"); // in the re-list on r1, or sent after it
      await c.fake.resynced(3);
    } finally {
      s.close();
    }

    assert.deepEqual(sent.slice(0, 2), [1, 3]);
    assert.ok(sent[2] === 3 || sent[2] === 4, `third re-list sent ${sent[2]}`);
    assert.deepEqual(c.fake.held(), ["a", "b", "c", "n1"]);
    assert.deepEqual(c.calls.filter((x) => x.endsWith(" sync")), ["r1 sync", "r0 sync", "r2 sync", "r1 sync"]);
    assert.equal(c.name(client.target), "r1");
  });

  test("a watcher resumes on another replica, every decision once", async () => {
    const c = await cluster(3, 0);
    c.fake.log.splice(3);
    const client = c.client(0, 1, 2);
    clients.push(client);
    const got: number[] = [];
    const cp = new MemoryCheckpoint();
    const w: Watcher = new Watcher(client, cp, (d) => {
      got.push(d.revision);
      if (d.revision === 2) {
        c.servers[0].forceShutdown(); // revision 3 may or may not arrive first
        c.append(2); // r0 cannot send these
      }
      if (d.revision === 5) w.stop();
    }, { startAt: 1 });

    await w.run();

    assert.deepEqual(got, [1, 2, 3, 4, 5]);
    assert.equal(cp.revision, 6);
    const watches = c.calls.filter((x) => x.includes(" watch "));
    assert.equal(watches.length, 2);
    assert.equal(watches[0], "r0 watch from=1 log=");
    assert.ok(["r1 watch from=3 log=log-A", "r1 watch from=4 log=log-A"].includes(watches[1]), watches[1]);
  });
});
