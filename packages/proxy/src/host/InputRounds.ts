import { randomUUID } from 'node:crypto';
import { type Clock, realClock } from '@mcp-resilience/middleware';
import { ForwardedError } from '../upstream/ForwardedError.js';
import type { HostLink } from '../upstream/HostLink.js';

type Message = { method: string; params?: Record<string, unknown> };
type Settle = { resolve(value: unknown): void; reject(error: unknown): void };
type Asked = Settle & { readonly key: string; readonly request: Message };

/** Options of {@link InputRounds}. */
export interface InputRoundsOptions {
  /** How long a round waits for the host's repeat before it is refused to the upstream. Default 60 000 ms. */
  readonly inputRoundTimeoutMs?: number;
  /** The time source of the round timeout. Default: the real clock. */
  readonly clock?: Clock;
}

export const inputRoundsDefaults = { inputRoundTimeoutMs: 60_000 } as const;

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
  private keys = 0;

  constructor(readonly capabilities: Record<string, unknown>) {}

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
 * One instance per host connection: another host's `requestState` is unknown here.
 */
export class InputRounds {
  private readonly calls = new Map<string, PendingCall>();
  private readonly timeoutMs: number;
  private readonly clock: Clock;

  constructor(options: InputRoundsOptions = {}) {
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
   * A new call, of a host that declared `declared` (its envelope's client capabilities): `send(signal, id)`
   * forwards it upstream (with `id` as its in-flight id, the one the upstream's requests are related to); the
   * first turn is returned.
   */
  start(
    declared: unknown,
    hostSignal: AbortSignal,
    send: (signal: AbortSignal, id: string) => Promise<Record<string, unknown>>,
  ): Promise<Turn> {
    const call = new PendingCall(
      typeof declared === 'object' && declared !== null ? (declared as never) : {},
    );
    this.calls.set(call.id, call);
    call.outcome = send(call.controller.signal, call.id).then(
      (result) => ({ kind: 'result', result }) as const,
    );
    call.outcome.finally(() => this.forget(call)).catch(() => {});
    return this.turn(call, hostSignal);
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

  /** Refuses every pending round and cancels every call (the host went away). */
  close(): void {
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
    const call =
      typeof options.relatedRequestId === 'string' ? this.calls.get(options.relatedRequestId) : undefined;
    const refused = refusalOf(request.method, call);
    if (refused !== undefined || call === undefined) return Promise.reject(refused);
    return new Promise((resolve, reject) => {
      const asked: Asked = { key: call.nextKey(request.method), request, resolve, reject };
      call.queue.push(asked);
      options.signal.addEventListener('abort', () => reject(options.signal.reason), { once: true });
      if (call.waiter) this.deliver(call);
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
    const error = refusal(`the input round was not answered: ${why}`);
    for (const asked of [...call.delivered.values(), ...call.queue.splice(0)]) asked.reject(error);
    call.delivered.clear();
    this.forget(call);
    call.controller.abort(error);
  }

  private forget(call: PendingCall): void {
    call.timer?.abort();
    this.calls.delete(call.id);
  }
}

/** Why a server-to-client request cannot become a round of `call` (none: it can). */
function refusalOf(method: string, call: PendingCall | undefined): ForwardedError | undefined {
  if (call === undefined) {
    return refusal(`"${method}" is not related to exactly one call of this host in flight`, -32601);
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

const refusal = (why: string, code = -32603) =>
  new ForwardedError(
    code,
    `mcp-resilience: a 2026-07-28 host gets a server-to-client request only as an input_required round: ${why}`,
  );
