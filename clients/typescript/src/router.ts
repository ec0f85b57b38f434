// Calls over the replicas of a highly available berthd. One channel per
// replica: the endpoints given first, the leaders they named after. Every
// call goes to the current endpoint. A NOT_LEADER refusal (UNAVAILABLE with
// ErrorInfo reason NOT_LEADER) makes the leader it names current (or the
// next endpoint when it names none); an UNAVAILABLE failure, with several
// endpoints, the next endpoint. Unary calls are retried there; streams are
// not: Session and Watcher reopen them, with backoff, and reach the new
// current endpoint.
import * as grpc from "@grpc/grpc-js";

import { errorInfo } from "./status.js";

/** The ErrorInfo reason of a write refused by a berthd replica that is not the leader. */
export const NOT_LEADER = "NOT_LEADER";

/**
 * How many NOT_LEADER answers one unary call follows: with the default
 * Backoff capped at LEADER_POLL_MS the waits add up to about 26s, more than
 * an election with berthd's default lease TTL (10s) takes.
 */
export const MAX_REDIRECTS = 30;

/**
 * The longest wait before asking again after a NOT_LEADER answer: while an
 * election goes on the replicas are asked at least this often, so that a
 * write reaches the new leader soon after it wins.
 */
export const LEADER_POLL_MS = 1000;

/** A backoff delay, capped at LEADER_POLL_MS after a NOT_LEADER answer. */
export function retryDelay(delay: number, e: unknown): number {
  return notLeader(e) ? Math.min(delay, LEADER_POLL_MS) : delay;
}

/**
 * Whether e is a replica's NOT_LEADER refusal; its leader is the one named
 * ("" while no leader is known).
 */
export function notLeader(e: unknown): { leader: string } | undefined {
  if ((e as grpc.ServiceError | undefined)?.code !== grpc.status.UNAVAILABLE) return undefined;
  const info = errorInfo(e);
  if (info?.reason !== NOT_LEADER) return undefined;
  return { leader: info.metadata.leader ?? "" };
}

/** The endpoints of a comma-separated string or a list of them. */
export function splitEndpoints(targets: string | string[]): string[] {
  return (typeof targets === "string" ? [targets] : targets)
    .flatMap((t) => t.split(",")).map((t) => t.trim()).filter(Boolean);
}

/** A generated client constructor, with its service definition. */
export interface StubConstructor<T extends grpc.Client> {
  new (address: string, credentials: grpc.ChannelCredentials, options?: Partial<grpc.ClientOptions>): T;
  service: grpc.ServiceDefinition;
}

interface Endpoint {
  addr: string;
  stubs: Map<StubConstructor<grpc.Client>, grpc.Client>;
}

const enum Verdict { Done, Redirect, Failover }

type Callback = (err: grpc.ServiceError | null, resp?: unknown) => void;
type AnyMethod = (...args: unknown[]) => unknown;

/** The endpoints, and which one calls go to. */
export class Router {
  private readonly eps: Endpoint[] = [];
  private cur = 0;

  constructor(addrs: string[], private readonly credentials: grpc.ChannelCredentials,
    private readonly channelOptions: grpc.ChannelOptions | undefined, private readonly delay: (attempt: number) => number) {
    for (const addr of new Set(addrs)) this.eps.push({ addr, stubs: new Map() });
    if (!this.eps.length) throw new Error("berth: no endpoint given");
  }

  /** The address calls go to now. */
  get target(): string { return this.eps[this.cur].addr; }

  /** The endpoint's stub of a service; its stubs share one channel. */
  private stub<T extends grpc.Client>(ep: Endpoint, ctor: StubConstructor<T>): T {
    let s = ep.stubs.get(ctor);
    if (!s) {
      const first = ep.stubs.values().next().value;
      s = new ctor(ep.addr, this.credentials, { ...this.channelOptions, ...(first ? { channelOverride: first.getChannel() } : {}) });
      ep.stubs.set(ctor, s);
    }
    return s as T;
  }

  /**
   * Moves the current endpoint after a call to ep failed with e; a failure
   * of an endpoint that is no longer current moves nothing.
   */
  observe(ep: Endpoint, e: unknown): Verdict {
    const refused = notLeader(e);
    if (refused && refused.leader && refused.leader !== ep.addr) {
      let i = this.eps.findIndex((x) => x.addr === refused.leader);
      if (i < 0) i = this.eps.push({ addr: refused.leader, stubs: new Map() }) - 1;
      this.cur = i;
      return Verdict.Redirect;
    }
    if (refused) {
      this.advance(ep);
      return Verdict.Redirect;
    }
    if ((e as grpc.ServiceError | undefined)?.code === grpc.status.UNAVAILABLE && this.eps.length > 1) {
      this.advance(ep);
      return Verdict.Failover;
    }
    return Verdict.Done;
  }

  private advance(ep: Endpoint): void {
    if (this.eps[this.cur] === ep) this.cur = (this.cur + 1) % this.eps.length;
  }

  /** Call options that fail fast when there are several endpoints. */
  private options(opts: unknown): Partial<grpc.CallOptions> {
    const o = (opts ?? {}) as Partial<grpc.CallOptions>;
    return this.eps.length > 1 ? { ...o, waitForReady: false } as Partial<grpc.CallOptions> : o;
  }

  /**
   * A unary call (request, [metadata], [options], callback) following
   * NOT_LEADER (at once the first time, then with backoff) and, with
   * several endpoints, going on to the next on UNAVAILABLE. It gives up
   * after MAX_REDIRECTS NOT_LEADER answers, or when every endpoint in a row
   * could not be reached (a replica answering NOT_LEADER while an election
   * goes on shows the group alive). berth.v1's writes are idempotent, so a
   * call that broke with the connection may be sent again. A deadline in
   * the options bounds every try together. The call returned is the first
   * try's.
   */
  unary<T extends grpc.Client>(ctor: StubConstructor<T>, method: string, args: unknown[]): unknown {
    const callback = args[args.length - 1] as Callback;
    const request = args[0];
    const md = (args.slice(1, -1).find((a) => a instanceof grpc.Metadata) as grpc.Metadata | undefined) ?? new grpc.Metadata();
    const opts = args.slice(1, -1).find((a) => !(a instanceof grpc.Metadata));
    let redirects = 0;
    let unreachable = 0;
    const attempt = (): unknown => {
      const ep = this.eps[this.cur];
      const fn = (this.stub(ep, ctor) as unknown as Record<string, AnyMethod>)[method];
      return fn.call(this.stub(ep, ctor), request, md.clone(), this.options(opts), (err: grpc.ServiceError | null, resp?: unknown) => {
        if (!err) return callback(null, resp);
        const v = this.observe(ep, err);
        if (v === Verdict.Redirect) unreachable = 0;
        if (v === Verdict.Redirect && ++redirects < MAX_REDIRECTS) {
          setTimeout(attempt, retryDelay(this.delay(redirects - 1), err));
        } else if (v === Verdict.Failover && ++unreachable < this.eps.length) {
          attempt();
        } else {
          callback(err, resp);
        }
      });
    };
    return attempt();
  }

  /**
   * Opens a stream on the current endpoint: sync (metadata, options) or
   * watch (request, metadata, options). Its failure is observed as a unary
   * call's is, and given to the caller, which reopens it.
   */
  stream<T extends grpc.Client>(ctor: StubConstructor<T>, method: string, args: unknown[], requestStream: boolean): unknown {
    const ep = this.eps[this.cur];
    const stub = this.stub(ep, ctor);
    const fn = (stub as unknown as Record<string, AnyMethod>)[method];
    const a = requestStream ? [args[0], this.options(args[1])] : [args[0], args[1], this.options(args[2])];
    const call = fn.apply(stub, a) as grpc.ClientReadableStream<unknown>;
    call.on("error", (e) => this.observe(ep, e));
    return call;
  }

  /**
   * Whether a stream that failed with e may be opened again without a
   * backoff wait, and the new count of such hops in a row: with several
   * endpoints, one could not be reached (UNAVAILABLE, not NOT_LEADER) and the
   * router moved on, fewer times in a row than there are endpoints. A replica
   * that is down then costs no wait while the others elect; a whole round
   * unreachable backs off as one failure.
   */
  hop(e: unknown, hops: number): [boolean, number] {
    if (notLeader(e) || (e as grpc.ServiceError | undefined)?.code !== grpc.status.UNAVAILABLE) return [false, 0];
    return ++hops >= this.eps.length ? [false, 0] : [true, hops];
  }

  close(): void {
    for (const ep of this.eps) for (const s of ep.stubs.values()) s.close();
  }

  /**
   * A stub whose RPC methods go through the router; other members (getChannel,
   * waitForReady, ...) are those of the current endpoint's stub.
   */
  routed<T extends grpc.Client>(ctor: StubConstructor<T>): T {
    const service = ctor.service;
    const byName = new Map(Object.entries(service).map(([name, def]) => [name, def]));
    return new Proxy({} as T, {
      get: (_, prop) => {
        const def = typeof prop === "string" ? byName.get(prop) : undefined;
        if (!def) {
          const stub = this.stub(this.eps[this.cur], ctor);
          const v = (stub as unknown as Record<string | symbol, unknown>)[prop];
          return typeof v === "function" ? v.bind(stub) : v;
        }
        const name = prop as string;
        if (def.responseStream || def.requestStream) {
          return (...args: unknown[]) => this.stream(ctor, name, args, def.requestStream);
        }
        return (...args: unknown[]) => this.unary(ctor, name, args);
      },
    });
  }
}
