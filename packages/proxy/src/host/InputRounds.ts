import { randomUUID } from 'node:crypto';
import { type Clock, realClock } from '@mcp-resilience/middleware';
import { ForwardedError } from '../upstream/ForwardedError.js';
import type { HostLink } from '../upstream/HostLink.js';
import type { RoundLimit } from './RoundLimit.js';

type Message = { method: string; params?: Record<string, unknown> };
type Settle = { resolve(value: unknown): void; reject(error: unknown): void };
type Asked = Settle & { readonly key: string; readonly request: Message };
type Held = Settle & { readonly request: Message; readonly timer: AbortController };

/** Options of {@link InputRounds}. */
export interface InputRoundsOptions {
  /** How long a round waits for the host's repeat before it is refused to the upstream. Default 60 000 ms. */
  readonly inputRoundTimeoutMs?: number;
  /** The time source of the round timeout. Default: the real clock. */
  readonly clock?: Clock;
}

export const inputRoundsDefaults = { inputRoundTimeoutMs: 60_000 } as const;

/** How one {@link InputRounds} shares the proxy: set by the gateway, not by a user. */
export interface InputRoundsSharing {
  /** The bound on calls with rounds pending, shared across the gateway's servers. Default: none. */
  readonly limit?: RoundLimit;
  /**
   * Whether each call is a host of its own for the upstream's routing (the gateway's sessionless hosts): a
   * server-to-client request while several calls are in flight on the upstream is refused, as it is between
   * host sessions, instead of being given to one of them. Default: `false` (one host, `wrap` and `connect`).
   */
  readonly callsAreHosts?: boolean;
}

/**
 * The negative cache's caller of the calls of sessionless hosts (the gateway's, on 2026-07-28), which share one
 * memory, apart from every host session's. A call during which the upstream asked the host anything is not
 * remembered in it (its failure depends on what that host declared and answered, and must not answer another
 * host's call); the others are, for every such host's repeats.
 */
const SHARED_CALLER = '2026-07-28-hosts';

/** What one turn of a call gives the host: the upstream's result, or a round of requests to answer. */
export type Turn =
  | { readonly kind: 'result'; readonly result: Record<string, unknown> }
  | { readonly kind: 'round'; readonly result: Record<string, unknown> };

/** The capability a server-to-client method needs (as the host's envelope declares it). */
const CAPABILITY: Readonly<Record<string, string>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** One host call in flight upstream, across the host's repeats. */
class PendingCall {
  readonly id = randomUUID();
  readonly controller = new AbortController();
  readonly queue: Asked[] = [];
  readonly delivered = new Map<string, Asked>();
  waiter: ((turn: Turn) => void) | undefined;
  timer: AbortController | undefined;
  outcome: Promise<Turn> | undefined;
  /** Whether the call holds a slot of the {@link RoundLimit} (from its first request to the host to its end). */
  slot = false;
  /** Whether the upstream asked anything during the call (a round, or a request refused). */
  asked = false;
  private keys = 0;

  /** The host the upstream's requests during this call are routed to. */
  link: HostLink;

  constructor(
    readonly capabilities: Record<string, unknown>,
    link: HostLink,
  ) {
    this.link = link;
  }

  nextKey(method: string): string {
    this.keys += 1;
    return `${method.replace(/\W/g, '_')}_${this.keys}`;
  }
}

/**
 * The crossing of a 2025-era upstream's server-to-client requests (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`) to one host on 2026-07-28, which has none: while the host's call is in
 * flight upstream, each such request answers the host's call with an `input_required` result that embeds it
 * (`inputRequests`, and a `requestState` naming the call); the upstream call stays pending, and the host's repeat
 * (its `inputResponses` with that `requestState`) answers the upstream's requests and waits on the same call
 * again, whose result goes to the repeat. A round the host does not repeat within `inputRoundTimeoutMs` is
 * refused to the upstream and the upstream call cancelled; a `requestState` this host was not given is refused.
 * A `roots/list` while no call is in flight (a server asks it right after connecting) is held, one at a time,
 * for the host's next call, whose first turn is then the round that carries it (the call goes upstream once
 * the host answered it); no call within `inputRoundTimeoutMs`, and it is refused to the upstream.
 * One instance per host connection (`wrap`, `connect`) or per server of a gateway: another's `requestState` is
 * unknown here.
 */
export class InputRounds {
  private readonly calls = new Map<string, PendingCall>();
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private held: Held | undefined;

  constructor(
    options: InputRoundsOptions = {},
    private readonly sharing: InputRoundsSharing = {},
  ) {
    const ms = options.inputRoundTimeoutMs ?? inputRoundsDefaults.inputRoundTimeoutMs;
    if (!Number.isFinite(ms) || ms <= 0) {
      throw new TypeError(`inputRoundTimeoutMs must be a positive number of milliseconds, got ${ms}`);
    }
    this.timeoutMs = ms;
    this.clock = options.clock ?? realClock;
  }

  /** The link the upstream's server-to-client requests take to this host: into the call they belong to. */
  readonly link: HostLink = {
    request: (request, options) => this.ask(request, options),
    notify: async () => {},
    accepts: () => true,
  };

  /**
   * A new call, of a host that declared `declared` (its envelope's client capabilities): `send(signal, id, link)`
   * forwards it upstream (with `id` as its in-flight id, the one the upstream's requests are related to, and
   * `link` as the host they are routed to); the first turn is returned. A held `roots/list` is its first round,
   * and the call is sent once the host answered it.
   */
  start(
    declared: unknown,
    hostSignal: AbortSignal,
    send: (signal: AbortSignal, id: string, link: HostLink) => Promise<Record<string, unknown>>,
  ): Promise<Turn> {
    const capabilities = typeof declared === 'object' && declared !== null ? (declared as never) : {};
    const call = new PendingCall(capabilities, this.link);
    call.link = this.linkOf(call);
    this.calls.set(call.id, call);
    const answered = this.carryHeld(call);
    const forward = () => {
      if (call.controller.signal.aborted) throw call.controller.signal.reason;
      return send(call.controller.signal, call.id, call.link);
    };
    // The held request's answer leaves first (a turn of the event loop), then the call.
    const sent = answered
      ? answered.then(() => new Promise((ok) => setImmediate(ok))).then(forward)
      : forward();
    call.outcome = sent.then((result) => ({ kind: 'result', result }) as const);
    call.outcome.finally(() => this.forget(call)).catch(() => {});
    return this.turn(call, hostSignal);
  }

  /** The link `call`'s upstream requests take: its own when calls are hosts, remembered unless it asked. */
  private linkOf(call: PendingCall): HostLink {
    if (!this.sharing.callsAreHosts) return this.link;
    return { ...this.link, caller: SHARED_CALLER, rememberFailure: () => !call.asked };
  }

  /** Whether `state` is a `requestState` this host was given for a call still pending. */
  owns(state: unknown): boolean {
    return typeof state === 'string' && this.calls.has(state);
  }

  /**
   * The host's repeat: its `inputResponses` answer the requests of the last round, and the call's next turn is
   * returned. A `requestState` this host was not given (unknown, expired, another host's) is refused.
   */
  resume(
    state: unknown,
    responses: Record<string, unknown> | undefined,
    hostSignal: AbortSignal,
  ): Promise<Turn> {
    const call = typeof state === 'string' ? this.calls.get(state) : undefined;
    if (call === undefined) {
      return Promise.reject(
        new ForwardedError(
          -32602,
          'mcp-resilience: unknown requestState: it names no pending call of this host (expired after its round timed out, already completed, or given to another host)',
          { reason: 'invalid_request_state' },
        ),
      );
    }
    call.timer?.abort();
    for (const [key, asked] of call.delivered) {
      const response = responses?.[key];
      if (response === undefined) {
        asked.reject(
          new ForwardedError(-32603, `mcp-resilience: the host's repeat carried no response for "${key}"`),
        );
      } else asked.resolve(response);
    }
    call.delivered.clear();
    return this.turn(call, hostSignal);
  }

  /** Refuses every pending round (and a held request) and cancels every call (the host went away). */
  close(): void {
    this.dropHeld('the host closed the connection');
    for (const call of [...this.calls.values()]) this.expire(call, 'the host closed the connection');
  }

  /** The call's next turn: its result, or (at once when requests are queued) the next round. */
  private turn(call: PendingCall, hostSignal: AbortSignal): Promise<Turn> {
    const cancel = () => call.controller.abort(hostSignal.reason);
    if (hostSignal.aborted) cancel();
    hostSignal.addEventListener('abort', cancel, { once: true });
    const round = new Promise<Turn>((resolve) => {
      call.waiter = resolve;
      if (call.queue.length > 0) this.deliver(call);
    });
    return Promise.race([call.outcome as Promise<Turn>, round]).finally(() => {
      call.waiter = undefined;
      hostSignal.removeEventListener('abort', cancel);
    });
  }

  /** A server-to-client request of the upstream, during `relatedRequestId`'s call: queued for the next round. */
  private ask(
    request: Message,
    options: { signal: AbortSignal; relatedRequestId?: string | number },
  ): Promise<unknown> {
    const related = options.relatedRequestId;
    const call = typeof related === 'string' ? this.calls.get(related) : undefined;
    if (related === undefined && this.holds(request.method)) return this.hold(request, options.signal);
    // Whatever becomes of it, the call's outcome now depends on this host.
    if (call !== undefined) call.asked = true;
    const refused = refusalOf(request.method, call) ?? (call && this.slotRefusal(call));
    if (refused !== undefined || call === undefined) return Promise.reject(refused);
    return new Promise((resolve, reject) => {
      this.enqueue(call, { key: call.nextKey(request.method), request, resolve, reject });
      options.signal.addEventListener('abort', () => reject(options.signal.reason), { once: true });
    });
  }

  private enqueue(call: PendingCall, asked: Asked): void {
    call.queue.push(asked);
    if (call.waiter) this.deliver(call);
  }

  /** The refusal when the call would need a slot of the shared limit and none is left (none: it may ask). */
  private slotRefusal(call: PendingCall): ForwardedError | undefined {
    const limit = this.sharing.limit;
    if (call.slot || limit === undefined) return undefined;
    if (limit.take()) {
      call.slot = true;
      return undefined;
    }
    return refusal(
      `${limit.max} input rounds are pending on this gateway (the limit, ${limit.option})`,
      -32603,
      MOMENTARY,
    );
  }

  /** Whether a request related to no call is held for the next one: a `roots/list` while none is in flight. */
  private holds(method: string): boolean {
    return method === 'roots/list' && this.calls.size === 0 && !this.sharing.callsAreHosts;
  }

  /** Holds a `roots/list` for the host's next call (one at a time), refused if none comes in time. */
  private hold(request: Message, upstreamSignal: AbortSignal): Promise<unknown> {
    if (this.held !== undefined) {
      return Promise.reject(
        refusal(
          `"${request.method}" came while the host had no call in flight, and one is held already`,
          -32603,
          MOMENTARY,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const timer = new AbortController();
      this.held = { request, resolve, reject, timer };
      upstreamSignal.addEventListener('abort', () => this.dropHeld(upstreamSignal.reason), { once: true });
      this.clock.sleep(this.timeoutMs, timer.signal, { unref: true }).then(
        () => this.dropHeld(`no call of the host came within ${this.timeoutMs} ms to carry it`),
        () => {},
      );
    });
  }

  /** Refuses the held request (`why`: a reason, or the upstream's own abort reason). */
  private dropHeld(why: unknown): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    held.timer.abort();
    held.reject(
      typeof why === 'string'
        ? refusal(
            `"${held.request.method}" came while the host had no call in flight: ${why}`,
            -32603,
            MOMENTARY,
          )
        : why,
    );
  }

  /**
   * Moves the held request into `call`'s first round; resolves once the host answered it (or it was refused).
   * None held: `undefined`. A call whose host did not declare the capability gets it refused.
   */
  private carryHeld(call: PendingCall): Promise<void> | undefined {
    const held = this.held;
    if (held === undefined) return undefined;
    this.held = undefined;
    held.timer.abort();
    const refused = refusalOf(held.request.method, call) ?? this.slotRefusal(call);
    if (refused !== undefined) {
      held.reject(refused);
      return undefined;
    }
    return new Promise<void>((answered) => {
      this.enqueue(call, {
        key: call.nextKey(held.request.method),
        request: held.request,
        resolve: (value) => {
          held.resolve(value);
          answered();
        },
        reject: (error) => {
          held.reject(error);
          answered();
        },
      });
    });
  }

  /** Answers the waiting host request with an `input_required` result embedding the queued requests. */
  private deliver(call: PendingCall): void {
    const waiter = call.waiter;
    if (waiter === undefined) return;
    call.waiter = undefined;
    const inputRequests: Record<string, Message> = {};
    for (const asked of call.queue.splice(0)) {
      call.delivered.set(asked.key, asked);
      inputRequests[asked.key] = asked.request;
    }
    const timer = new AbortController();
    call.timer = timer;
    this.clock.sleep(this.timeoutMs, timer.signal, { unref: true }).then(
      () => this.expire(call, `the host did not repeat the call within ${this.timeoutMs} ms`),
      () => {},
    );
    waiter({ kind: 'round', result: { resultType: 'input_required', inputRequests, requestState: call.id } });
  }

  /** Refuses the call's requests to the upstream and cancels the call. */
  private expire(call: PendingCall, why: string): void {
    const error = refusal(`the input round was not answered: ${why}`, -32603, MOMENTARY);
    for (const asked of [...call.delivered.values(), ...call.queue.splice(0)]) asked.reject(error);
    call.delivered.clear();
    this.forget(call);
    call.controller.abort(error);
  }

  private forget(call: PendingCall): void {
    call.timer?.abort();
    this.calls.delete(call.id);
    if (call.slot) this.sharing.limit?.give();
    call.slot = false;
  }
}

/** Why a server-to-client request cannot become a round of `call` (none: it can). */
function refusalOf(method: string, call: PendingCall | undefined): ForwardedError | undefined {
  if (call === undefined) {
    return refusal(
      `"${method}" is not related to exactly one call of this host in flight`,
      -32601,
      MOMENTARY,
    );
  }
  const capability = CAPABILITY[method];
  if (capability === undefined) return refusal(`"${method}" has no input request form on 2026-07-28`, -32601);
  if (call.capabilities[capability] === undefined) {
    return refusal(
      `"${method}" needs the "${capability}" capability, which the host did not declare`,
      -32601,
    );
  }
  return undefined;
}

/** A refusal that depends on the moment (calls in flight, a limit, time): see `ForwardedError.momentary`. */
const MOMENTARY = true;

const refusal = (why: string, code = -32603, momentary = false) =>
  new ForwardedError(
    code,
    `mcp-resilience: a 2026-07-28 host gets a server-to-client request only as an input_required round: ${why}`,
    undefined,
    { momentary },
  );
