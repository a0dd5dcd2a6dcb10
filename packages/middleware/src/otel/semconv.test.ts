import { describe, expect, it } from 'vitest';
import * as semconv from './semconv.js';

/** The OpenTelemetry semantic-convention names the contract copies (stable or Development), and nothing else. */
const OTEL_NAMES = new Set([
  'error.type',
  'gen_ai.prompt.name',
  'gen_ai.tool.name',
  'jsonrpc.request.id',
  'mcp.method.name',
  'mcp.protocol.version',
  'mcp.resource.uri',
  'mcp.session.id',
  'network.transport',
  'rpc.response.status_code',
  'service.instance.id',
  'service.name',
  'mcp.client.operation.duration',
]);
const OURS = /^mcp\.resilience\.[a-z_]+(\.[a-z_]+)*$/;

const named = (prefix: string) =>
  Object.entries(semconv)
    .filter(([key]) => key.startsWith(prefix))
    .map(([key, value]) => [key, value as string] as const);

describe('the telemetry contract: every name that is ours is in our own namespace', () => {
  it.each(['ATTR_', 'METRIC_', 'SPAN_', 'EVENT_'])(
    '%s names: an OTel convention name, else mcp.resilience.*',
    (prefix) => {
      const names = named(prefix);
      expect(names.length).toBeGreaterThan(0);
      for (const [key, name] of names) {
        expect(OTEL_NAMES.has(name) || OURS.test(name), `${key} = '${name}'`).toBe(true);
      }
    },
  );

  it('names each attribute once: no two constants share a name', () => {
    const values = named('ATTR_').map(([, name]) => name);
    expect(new Set(values).size).toBe(values.length);
  });

  it('gives every Prometheus label as the standard translation of a contract attribute', () => {
    const attributes = new Set(named('ATTR_').map(([, name]) => name.replaceAll('.', '_')));
    for (const [key, label] of named('PROM_LABEL_'))
      expect(attributes.has(label), `${key} = '${label}'`).toBe(true);
  });

  it('keeps the names that squatted other namespaces out of the contract', () => {
    const all = new Set<unknown>(Object.values(semconv).filter((v) => typeof v === 'string'));
    for (const old of [
      'mcp.server',
      'error.class',
      'outcome',
      'state',
      'from_state',
      'to_state',
      'mcp_server',
    ]) {
      expect(all.has(old), old).toBe(false);
    }
  });
});
