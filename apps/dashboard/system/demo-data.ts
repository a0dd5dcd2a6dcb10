import { randomBytes } from 'node:crypto';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_ATTEMPT,
  ATTR_MCP_RESILIENCE_ATTEMPTS,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE,
  ATTR_MCP_RESILIENCE_DECISION,
  ATTR_MCP_RESILIENCE_DELAY_MS,
  ATTR_MCP_RESILIENCE_ERROR_CLASS,
  ATTR_MCP_RESILIENCE_ERROR_MESSAGE,
  ATTR_MCP_RESILIENCE_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_MCP_RESILIENCE_WASTED_RETRIES,
  ATTR_MCP_RESILIENCE_WASTED_TIME_MS,
  EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
  EVENT_MCP_RESILIENCE_CLASSIFICATION,
  METRIC_MCP_RESILIENCE_CALL_DURATION,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING,
  METRIC_MCP_RESILIENCE_ERRORS,
  METRIC_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED,
  METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST,
  METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME,
  METRIC_MCP_RESILIENCE_RETRIES,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_COST,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME,
  SPAN_MCP_RESILIENCE_CALL,
  SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
} from '@mcp-resilience/middleware/semconv';

/*
 * A synthetic hour of telemetry in OTLP/JSON, for documentation screenshots: three MCP servers, two agent
 * instances exporting cumulative metrics every 30 s, an incident on `tickets` (efficiency dips, its breaker
 * flaps), `search` currently half-open, and a few retried calls with their attempt spans.
 */

type Attr = { key: string; value: { stringValue?: string; intValue?: number; doubleValue?: number } };
const kv = (key: string, v: string | number): Attr =>
  typeof v === 'string'
    ? { key, value: { stringValue: v } }
    : { key, value: Number.isInteger(v) ? { intValue: v } : { doubleValue: v } };
const nanos = (ms: number) => `${Math.round(ms)}000000`;
const hex = (n: number) => randomBytes(n).toString('hex');

const SERVERS = [
  { server: 'weather', tool: 'get_forecast', rate: 40 },
  { server: 'search', tool: 'search', rate: 25 },
  { server: 'tickets', tool: 'create_ticket', rate: 15 },
];

/** Breaker transitions, minutes ago: the gauges and the transition events agree with it. */
const SCHEDULE: Array<[server: string, ago: number, from: string, to: string, reason: string]> = [
  ['tickets', 38, 'closed', 'open', 'failure_rate'],
  ['tickets', 37.5, 'open', 'half_open', 'break_elapsed'],
  ['tickets', 37.4, 'half_open', 'open', 'probe_failed'],
  ['tickets', 36.4, 'open', 'half_open', 'break_elapsed'],
  ['tickets', 36.3, 'half_open', 'open', 'probe_failed'],
  ['tickets', 30, 'open', 'half_open', 'break_elapsed'],
  ['tickets', 29.9, 'half_open', 'closed', 'probe_succeeded'],
  ['tickets', 2.5, 'closed', 'open', 'consecutive_failures'],
  ['search', 8, 'closed', 'open', 'failure_rate'],
  ['search', 0.8, 'open', 'half_open', 'break_elapsed'],
];

function stateAt(server: string, agoMin: number): string {
  let state = 'closed';
  for (const [s, ago, , to] of SCHEDULE) if (s === server && ago >= agoMin) state = to;
  return state;
}

/** Failure share and retry success share of a server at minute m (0 = an hour ago). */
function health(server: string, m: number) {
  if (server === 'tickets' && m >= 20 && m < 35) return { fail: 0.45, retryOk: 0.35 };
  if (server === 'tickets' && m >= 57) return { fail: 0.6, retryOk: 0.2 };
  if (server === 'search' && m >= 50) return { fail: 0.15, retryOk: 0.7 };
  return { fail: 0.04, retryOk: 0.92 };
}

const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Share of calls per duration bucket (the last entry: +Inf): healthy, and slow (timeouts and retries). */
const FAST = [0, 0, 0.02, 0.1, 0.3, 0.35, 0.15, 0.05, 0.03, 0, 0, 0, 0, 0];
const SLOW = [0, 0, 0, 0.02, 0.08, 0.15, 0.2, 0.2, 0.2, 0.1, 0.05, 0, 0, 0];

/** `n` calls spread over the buckets by `shares` (integers, the remainder in the largest share). */
function spread(n: number, shares: readonly number[]): number[] {
  const out = shares.map((f) => Math.floor(n * f));
  const mode = shares.indexOf(Math.max(...shares));
  out[mode]! += n - out.reduce((a, b) => a + b, 0);
  return out;
}

export function demoMetrics(now: number): unknown[] {
  const start = now - 61 * 60_000;
  const requests: unknown[] = [];
  const acc = new Map<string, number>();
  const add = (key: string, v: number) => {
    const x = (acc.get(key) ?? 0) + v;
    acc.set(key, x);
    return x;
  };
  for (let k = 0; k < 120; k++) {
    const t = now - 60 * 60_000 + (k + 1) * 30_000;
    const m = k / 2;
    for (const instance of ['agent-1', 'agent-2', 'naive-1']) {
      // the naive agent: retries everything 5 times, calls a bad argument "retryable", has no breaker
      const naive = instance === 'naive-1';
      const sums: Record<string, unknown[]> = {};
      const push = (metric: string, attrs: Attr[], value: number) => {
        sums[metric] ??= [];
        sums[metric].push({
          attributes: attrs,
          startTimeUnixNano: nanos(start),
          timeUnixNano: nanos(t),
          asDouble: value,
        });
      };
      const hist: unknown[] = [];
      const gauge: unknown[] = [];
      const gaugeWaiting: unknown[] = [];
      for (const s of SERVERS) {
        const h = health(s.server, m);
        const jitter = 0.8 + ((k * 37 + s.rate) % 10) / 25;
        const calls = Math.round((s.rate / (naive ? 4 : 2)) * jitter);
        const failed = Math.round(calls * h.fail);
        const nonRetryable = naive ? 1 : Math.round(calls * 0.02 + (k % 5 === 0 ? 1 : 0));
        const retries = naive ? failed * 5 + nonRetryable * 5 : Math.round(failed * 1.6) + 1;
        const retryOk = Math.round((naive ? failed : retries) * h.retryOk);
        const base = [
          kv(ATTR_MCP_RESILIENCE_SERVER, s.server),
          kv(ATTR_MCP_METHOD_NAME, 'tools/call'),
          kv(ATTR_GEN_AI_TOOL_NAME, s.tool),
        ];
        const key = `${instance}|${s.server}`;
        push(
          METRIC_MCP_RESILIENCE_CALLS,
          [...base, kv(ATTR_MCP_RESILIENCE_OUTCOME, 'success')],
          add(`${key}|ok`, calls - failed),
        );
        push(
          METRIC_MCP_RESILIENCE_CALLS,
          [
            ...base,
            kv(ATTR_MCP_RESILIENCE_OUTCOME, 'failure'),
            kv(ATTR_MCP_RESILIENCE_ERROR_CLASS, 'retryable'),
            kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, 'unavailable'),
          ],
          add(`${key}|fail`, failed - Math.min(failed, nonRetryable)),
        );
        push(
          METRIC_MCP_RESILIENCE_CALLS,
          [
            ...base,
            kv(ATTR_MCP_RESILIENCE_OUTCOME, 'failure'),
            kv(ATTR_MCP_RESILIENCE_ERROR_CLASS, 'non_retryable'),
            kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, 'invalid_params'),
          ],
          add(`${key}|nr`, Math.min(failed, nonRetryable)),
        );
        push(
          METRIC_MCP_RESILIENCE_RETRIES,
          [
            ...base,
            kv(ATTR_MCP_RESILIENCE_OUTCOME, 'success'),
            kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, 'unavailable'),
          ],
          add(`${key}|rok`, retryOk),
        );
        push(
          METRIC_MCP_RESILIENCE_RETRIES,
          [
            ...base,
            kv(ATTR_MCP_RESILIENCE_OUTCOME, 'failure'),
            kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, 'unavailable'),
          ],
          add(`${key}|rfail`, retries - retryOk),
        );
        push(
          METRIC_MCP_RESILIENCE_ERRORS,
          [
            ...base,
            kv(ATTR_MCP_RESILIENCE_ERROR_CLASS, 'retryable'),
            kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, k % 3 === 0 ? 'timeout' : 'unavailable'),
          ],
          add(`${key}|e1|${k % 3 === 0}`, failed + retries - retryOk),
        );
        push(
          METRIC_MCP_RESILIENCE_ERRORS,
          [
            ...base,
            kv(ATTR_MCP_RESILIENCE_ERROR_CLASS, naive ? 'retryable' : 'non_retryable'),
            kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, 'invalid_params'),
          ],
          add(`${key}|e2`, naive ? nonRetryable * 6 : nonRetryable),
        );
        push(
          METRIC_MCP_RESILIENCE_ERRORS,
          [
            ...base,
            kv(ATTR_MCP_RESILIENCE_ERROR_CLASS, 'conditional'),
            kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, 'rate_limited'),
          ],
          add(`${key}|e3`, k % 4 === 0 ? 1 : 0),
        );
        push(METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME, base, add(`${key}|wt`, (retries - retryOk) * 0.35));
        push(METRIC_MCP_RESILIENCE_RETRY_WASTED_COST, base, add(`${key}|wc`, (retries - retryOk) * 0.02));
        // the agent loop's negative cache: repeats of an invalid call answered without a request
        if (!naive)
          push(
            METRIC_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED,
            [...base, kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, 'invalid_params')],
            add(`${key}|av`, nonRetryable),
          );
        if (!naive)
          push(
            METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME,
            [...base, kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, 'invalid_params')],
            add(`${key}|avt`, nonRetryable * 0.042),
          );
        // (costPerAttempt 0.02, as for the wasted cost; each original failed at its one attempt)
        if (!naive)
          push(
            METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST,
            [...base, kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, 'invalid_params')],
            add(`${key}|avc`, nonRetryable * 0.02),
          );
        const open = !naive && stateAt(s.server, (now - t) / 60_000) === 'open';
        push(
          METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED,
          [kv(ATTR_MCP_RESILIENCE_SERVER, s.server)],
          add(`${key}|shed`, open ? 2 : 0),
        );
        if (!naive)
          gaugeWaiting.push({
            attributes: [kv(ATTR_MCP_RESILIENCE_SERVER, s.server)],
            startTimeUnixNano: nanos(start),
            timeUnixNano: nanos(t),
            asInt: open ? 3 : 0,
          });
        // every call's duration: slow while the server is in trouble
        const okCalls = calls - failed;
        const okBuckets = spread(okCalls, h.fail > 0.1 ? SLOW : FAST).map((c, i) =>
          add(`${key}|ok-b${i}`, c),
        );
        const okCount = add(`${key}|ok-c`, okCalls);
        hist.push({
          attributes: [...base, kv(ATTR_MCP_RESILIENCE_OUTCOME, 'success')],
          startTimeUnixNano: nanos(start),
          timeUnixNano: nanos(t),
          count: okCount,
          sum: add(`${key}|ok-s`, okCalls * (h.fail > 0.1 ? 0.9 : 0.2)),
          bucketCounts: okBuckets,
          explicitBounds: BOUNDS,
        });
        const nrCount = add(`${key}|hc`, Math.min(failed, nonRetryable));
        hist.push({
          attributes: [
            ...base,
            kv(ATTR_MCP_RESILIENCE_OUTCOME, 'failure'),
            kv(ATTR_MCP_RESILIENCE_ERROR_CLASS, 'non_retryable'),
          ],
          startTimeUnixNano: nanos(start),
          timeUnixNano: nanos(t),
          count: nrCount,
          sum: nrCount * 0.042,
          bucketCounts: [0, 0, 0, nrCount, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
          explicitBounds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
        });
        const state = stateAt(s.server, (now - t) / 60_000);
        for (const st of naive ? [] : ['closed', 'open', 'half_open']) {
          gauge.push({
            attributes: [
              kv(ATTR_MCP_RESILIENCE_SERVER, s.server),
              kv(ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, st),
            ],
            timeUnixNano: nanos(t),
            asInt: st === state ? 1 : 0,
          });
        }
      }
      requests.push({
        resourceMetrics: [
          {
            resource: {
              attributes: [
                kv('service.name', naive ? 'naive-agent' : 'support-agent'),
                kv('service.instance.id', instance),
              ],
            },
            scopeMetrics: [
              {
                scope: { name: '@mcp-resilience/middleware' },
                metrics: [
                  ...Object.entries(sums).map(([name, dataPoints]) => ({
                    name,
                    sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints },
                  })),
                  {
                    name: METRIC_MCP_RESILIENCE_CALL_DURATION,
                    histogram: { aggregationTemporality: 2, dataPoints: hist },
                  },
                  { name: METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, gauge: { dataPoints: gauge } },
                  {
                    name: METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING,
                    sum: { aggregationTemporality: 2, isMonotonic: false, dataPoints: gaugeWaiting },
                  },
                ],
              },
            ],
          },
        ],
      });
    }
  }
  return requests;
}

export function demoTraces(now: number): unknown {
  const spans: unknown[] = [];
  const transitions: unknown[] = [];
  const transition = (server: string, at: number, from: string, to: string, reason: string) => {
    const attrs = [
      kv(ATTR_MCP_RESILIENCE_SERVER, server),
      kv(ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE, from),
      kv(ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE, to),
      kv(ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON, reason),
    ];
    transitions.push({
      traceId: hex(16),
      spanId: hex(8),
      name: SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
      kind: 1,
      startTimeUnixNano: nanos(at),
      endTimeUnixNano: nanos(at),
      attributes: attrs,
      events: [
        { name: EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION, timeUnixNano: nanos(at), attributes: attrs },
      ],
    });
  };
  const ago = (min: number) => now - min * 60_000;
  for (const [server, min, from, to, reason] of SCHEDULE) transition(server, ago(min), from, to, reason);

  const call = (
    server: string,
    tool: string,
    at: number,
    steps: Array<'ok' | 'unavailable' | 'timeout' | 'invalid_params'>,
  ) => {
    const traceId = hex(16);
    const callId = hex(8);
    const base = [
      kv(ATTR_MCP_RESILIENCE_SERVER, server),
      kv(ATTR_MCP_METHOD_NAME, 'tools/call'),
      kv(ATTR_GEN_AI_TOOL_NAME, tool),
    ];
    let t = at;
    let wasted = 0;
    let wastedMs = 0;
    steps.forEach((step, i) => {
      const dur = step === 'timeout' ? 2000 : step === 'ok' ? 180 : 90;
      const ok = step === 'ok';
      const last = i === steps.length - 1;
      const delay = last ? 0 : 200 * 2 ** i;
      const cls = step === 'invalid_params' ? 'non_retryable' : 'retryable';
      if (i > 0 && !ok) {
        wasted++;
        wastedMs += dur + 200 * 2 ** (i - 1);
      }
      spans.push({
        traceId,
        spanId: hex(8),
        parentSpanId: callId,
        name: `tools/call ${tool}`,
        kind: 3,
        startTimeUnixNano: nanos(t),
        endTimeUnixNano: nanos(t + dur),
        attributes: [...base, kv(ATTR_MCP_RESILIENCE_ATTEMPT, i + 1)],
        status: ok
          ? { code: 0 }
          : {
              code: 2,
              message:
                step === 'timeout'
                  ? 'request timed out'
                  : step === 'invalid_params'
                    ? 'MCP error -32602: invalid date'
                    : 'HTTP 503 Service Unavailable',
            },
        events: ok
          ? []
          : [
              {
                name: EVENT_MCP_RESILIENCE_CLASSIFICATION,
                timeUnixNano: nanos(t + dur),
                attributes: [
                  kv(ATTR_MCP_RESILIENCE_ERROR_CLASS, cls),
                  kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, step),
                  kv(ATTR_MCP_RESILIENCE_DECISION, last || cls === 'non_retryable' ? 'give_up' : 'retry'),
                  kv(ATTR_MCP_RESILIENCE_DELAY_MS, delay),
                  kv(
                    ATTR_MCP_RESILIENCE_ERROR_MESSAGE,
                    step === 'timeout'
                      ? 'request timed out after 2000 ms'
                      : step === 'invalid_params'
                        ? 'invalid date: 2026-13-01'
                        : 'HTTP 503 Service Unavailable',
                  ),
                ],
              },
            ],
      });
      t += dur + delay;
    });
    const okAll = steps.at(-1) === 'ok';
    const lastStep = steps.at(-1)!;
    spans.push({
      traceId,
      spanId: callId,
      name: SPAN_MCP_RESILIENCE_CALL,
      kind: 1,
      startTimeUnixNano: nanos(at),
      endTimeUnixNano: nanos(t),
      attributes: [
        ...base,
        kv(ATTR_MCP_RESILIENCE_OUTCOME, okAll ? 'success' : 'failure'),
        kv(ATTR_MCP_RESILIENCE_ATTEMPTS, steps.length),
        kv(ATTR_MCP_RESILIENCE_WASTED_RETRIES, wasted),
        kv(ATTR_MCP_RESILIENCE_WASTED_TIME_MS, wastedMs),
        ...(okAll
          ? []
          : [
              kv(
                ATTR_MCP_RESILIENCE_ERROR_CLASS,
                lastStep === 'invalid_params' ? 'non_retryable' : 'retryable',
              ),
              kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, lastStep),
            ]),
      ],
      status: okAll ? { code: 0 } : { code: 2 },
    });
  };
  call('tickets', 'create_ticket', ago(2.2), ['unavailable', 'unavailable', 'unavailable']);
  call('tickets', 'create_ticket', ago(3.1), ['timeout', 'unavailable', 'ok']);
  call('weather', 'get_forecast', ago(4), ['invalid_params']);
  call('search', 'search', ago(6), ['unavailable', 'ok']);
  call('weather', 'get_forecast', ago(9), ['timeout', 'ok']);
  const resource = (instance: string, list: unknown[]) => ({
    resource: { attributes: [kv('service.name', 'support-agent'), kv('service.instance.id', instance)] },
    scopeSpans: [{ scope: { name: '@mcp-resilience/middleware' }, spans: list }],
  });
  const again = transitions.map((t) => ({ ...(t as object), traceId: hex(16), spanId: hex(8) }));
  return { resourceSpans: [resource('agent-1', [...spans, ...transitions]), resource('agent-2', again)] };
}
