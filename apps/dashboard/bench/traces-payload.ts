import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_ATTEMPT,
  ATTR_MCP_RESILIENCE_ATTEMPTS,
  ATTR_MCP_RESILIENCE_DECISION,
  ATTR_MCP_RESILIENCE_DELAY_MS,
  ATTR_MCP_RESILIENCE_ERROR_CLASS,
  ATTR_MCP_RESILIENCE_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  EVENT_MCP_RESILIENCE_CLASSIFICATION,
  SPAN_MCP_RESILIENCE_CALL,
} from '@mcp-resilience/middleware/semconv';
import { ExportTraceServiceRequest } from '../lib/otlp/schema';

/** The bench's servers and tools (metrics and traces). */
export const SERVERS = ['weather', 'search', 'tickets', 'reports', 'files'];
export const TOOLS = ['get', 'list', 'create', 'update'];
/** An OTLP attribute (JSON shape). */
export const kv = (key: string, v: string | number) =>
  typeof v === 'string' ? { key, value: { stringValue: v } } : { key, value: { intValue: v } };
/** Epoch ms as OTLP nanoseconds. */
export const ns = (ms: number) => BigInt(Math.round(ms)) * 1_000_000n;

/** A traces export: `calls` calls, 40% of them retried (1-2 failed attempts with classification events). */
export function tracesPayload(calls: number, t0: number) {
  const spans: unknown[] = [];
  let attempts = 0;
  for (let i = 0; i < calls; i++) {
    const traceId = randomBytes(16);
    const callId = randomBytes(8);
    const server = SERVERS[i % SERVERS.length]!;
    const tool = TOOLS[i % TOOLS.length]!;
    const r = (i * 7919) % 100;
    const n = r < 60 ? 1 : r < 85 ? 2 : 3;
    const failedAll = r >= 85;
    const start = t0 + i;
    const base = [
      kv(ATTR_MCP_RESILIENCE_SERVER, server),
      kv(ATTR_MCP_METHOD_NAME, 'tools/call'),
      kv(ATTR_GEN_AI_TOOL_NAME, tool),
    ];
    for (let a = 1; a <= n; a++) {
      attempts++;
      const ok = a === n && !failedAll;
      spans.push({
        traceId,
        spanId: randomBytes(8),
        parentSpanId: callId,
        name: `tools/call ${tool}`,
        kind: 3,
        startTimeUnixNano: ns(start + a * 3),
        endTimeUnixNano: ns(start + a * 3 + 2),
        attributes: [
          ...base,
          kv(ATTR_MCP_RESILIENCE_ATTEMPT, a),
          ...(ok ? [] : [kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, 'unavailable')]),
        ],
        events: ok
          ? []
          : [
              {
                timeUnixNano: ns(start + a * 3 + 2),
                name: EVENT_MCP_RESILIENCE_CLASSIFICATION,
                attributes: [
                  kv(ATTR_MCP_RESILIENCE_ERROR_CLASS, 'retryable'),
                  kv(ATTR_MCP_RESILIENCE_ERROR_TYPE, 'unavailable'),
                  kv(ATTR_MCP_RESILIENCE_DECISION, a < n ? 'retry' : 'give_up'),
                  kv(ATTR_MCP_RESILIENCE_DELAY_MS, 100),
                ],
              },
            ],
        status: { code: ok ? 1 : 2, message: ok ? '' : 'HTTP 503' },
      });
    }
    spans.push({
      traceId,
      spanId: callId,
      name: SPAN_MCP_RESILIENCE_CALL,
      kind: 1,
      startTimeUnixNano: ns(start),
      endTimeUnixNano: ns(start + n * 3 + 2),
      attributes: [
        ...base,
        kv(ATTR_MCP_RESILIENCE_OUTCOME, failedAll ? 'failure' : 'success'),
        kv(ATTR_MCP_RESILIENCE_ATTEMPTS, n),
      ],
      status: { code: failedAll ? 2 : 0 },
    });
  }
  const message = ExportTraceServiceRequest.fromObject({
    resourceSpans: [
      {
        resource: { attributes: [kv('service.name', 'bench-agent'), kv('service.instance.id', 'bench-1')] },
        scopeSpans: [{ scope: { name: '@mcp-resilience/middleware' }, spans }],
      },
    ],
  });
  return {
    body: gzipSync(ExportTraceServiceRequest.encode(message).finish()),
    spans: spans.length,
    attempts,
  };
}
