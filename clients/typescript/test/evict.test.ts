// Client.evict against an in-process fake EvictionService.
import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";

import { BudgetRefused, Client } from "../src/index.js";
import { EvictionServiceService, EvictPodRequest } from "../src/gen/berth/v1/eviction_service.js";
import { ErrorInfo, RetryInfo } from "../src/gen/google/rpc/error_details.js";
import { Status } from "../src/gen/google/rpc/status.js";

const requests: EvictPodRequest[] = [];
const server = new grpc.Server();
let client: Client;

before(async () => {
  server.addService(EvictionServiceService, {
    evictPod(call: grpc.ServerUnaryCall<EvictPodRequest, unknown>, cb: grpc.sendUnaryData<unknown>) {
      requests.push(call.request);
      if (call.request.pod?.name !== "guarded") {
        cb(null, { revision: call.request.dryRun ? 0 : 7, alreadyEvicted: false, budget: "", disruptionsAllowed: 0 });
        return;
      }
      const st = Status.fromPartial({
        code: grpc.status.RESOURCE_EXHAUSTED, message: "budget",
        details: [
          { typeUrl: "type.googleapis.com/google.rpc.ErrorInfo", value: Buffer.from(ErrorInfo.encode(ErrorInfo.fromPartial({ reason: "DISRUPTION_BUDGET", domain: "berth.v1", metadata: { budget: "ns/web" } })).finish()) },
          { typeUrl: "type.googleapis.com/google.rpc.RetryInfo", value: Buffer.from(RetryInfo.encode(RetryInfo.fromPartial({ retryDelay: { seconds: 5, nanos: 0 } })).finish()) },
        ],
      });
      const md = new grpc.Metadata();
      md.set("grpc-status-details-bin", Buffer.from(Status.encode(st).finish()));
      cb({ code: grpc.status.RESOURCE_EXHAUSTED, details: "budget", metadata: md });
    },
  });
  const port = await new Promise<number>((res, rej) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? rej(err) : res(p))));
  client = new Client(`127.0.0.1:${port}`);
});

after(() => {
  client.close();
  server.forceShutdown();
});

test("evict sends the request and returns the response", async () => {
  const resp = await client.evict("ns", "free", { gracePeriodSeconds: 0 });
  assert.equal(Number(resp.revision), 7);
  const req = requests.at(-1)!;
  assert.deepEqual([req.pod?.namespace, req.pod?.name, req.gracePeriodSeconds, req.dryRun], ["ns", "free", 0, false]);
});

test("a budget refusal is a BudgetRefused with the budget and delay", async () => {
  await assert.rejects(client.evict("ns", "guarded"), (e: unknown) => {
    assert.ok(e instanceof BudgetRefused);
    assert.deepEqual([e.budget, e.retryAfter], ["ns/web", 5]);
    return true;
  });
});
