import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createOtlpReceiver, type OtlpHttpRequest, StoreBusyError } from '@/lib/otlp/receiver';
import { ExportMetricsServiceResponse, ExportTraceServiceResponse, RpcStatus } from '@/lib/otlp/schema';
import { createCapture, serialize } from './support/otel';
import { otlpRequest } from './support/otlp-request';
import { testServer } from './support/runtime';
import { standardScript } from './support/workload';

async function payloads() {
  const c = createCapture();
  await c.run(standardScript());
  return { c, metrics: serialize.metricsProto(await c.metrics()), traces: serialize.tracesProto(c.spans()) };
}

const post = (url: string, body: Uint8Array | string, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', body: body as BodyInit, headers });

describe('OTLP/HTTP receiver', () => {
  it('accepts protobuf + gzip and JSON, answering an empty response in the request encoding', async () => {
    const s = await testServer();
    const { c, metrics } = await payloads();
    const r1 = await post(`${s.url}/v1/metrics`, gzipSync(metrics), {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'gzip',
    });
    expect(r1.status).toBe(200);
    expect(r1.headers.get('content-type')).toBe('application/x-protobuf');
    expect((await r1.arrayBuffer()).byteLength).toBe(0);
    const r2 = await post(`${s.url}/v1/traces`, serialize.tracesJson(c.spans()), {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(r2.status).toBe(200);
    expect(await r2.text()).toBe('{}');
    const summary = await (await fetch(`${s.url}/api/v1/summary`)).json();
    expect(summary.calls.total).toBe(c.truth.calls.total);
  });

  it('answers partial success for rejected points, in JSON and protobuf', async () => {
    const s = await testServer();
    const body = {
      resourceMetrics: [
        { scopeMetrics: [{ metrics: [{ name: 'x', summary: { dataPoints: [{}, {}, {}] } }] }] },
      ],
    };
    const r = await post(`${s.url}/v1/metrics`, JSON.stringify(body), { 'content-type': 'application/json' });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      partialSuccess: { rejectedDataPoints: '3', errorMessage: expect.stringContaining('summary') },
    });
    const spans = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'zz', spanId: '00' }] }] }] };
    const r2 = await post(`${s.url}/v1/traces`, JSON.stringify(spans), {
      'content-type': 'application/json',
    });
    expect((await r2.json()).partialSuccess.rejectedSpans).toBe('1');
    const proto = await post(
      `${s.url}/v1/metrics`,
      Buffer.from(
        (await import('@/lib/otlp/schema')).ExportMetricsServiceRequest.encode({
          resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'x', summary: { dataPoints: [{}] } }] }] }],
        }).finish(),
      ),
      { 'content-type': 'application/x-protobuf' },
    );
    const decoded = ExportMetricsServiceResponse.decode(new Uint8Array(await proto.arrayBuffer())).toJSON();
    expect(decoded.partialSuccess.rejectedDataPoints).toBe('1');
    expect(ExportTraceServiceResponse).toBeDefined();
  });

  it('answers 400 with a google.rpc.Status for malformed data', async () => {
    const s = await testServer();
    const r = await post(`${s.url}/v1/metrics`, '{"resourceMetrics": {}', {
      'content-type': 'application/json',
    });
    expect(r.status).toBe(400);
    expect((await r.json()).message).toMatch(/invalid JSON/);
    const p = await post(`${s.url}/v1/traces`, Buffer.from([0x0a, 0x05, 0x01]), {
      'content-type': 'application/x-protobuf',
    });
    expect(p.status).toBe(400);
    expect(RpcStatus.decode(new Uint8Array(await p.arrayBuffer())).toJSON().message).toMatch(
      /invalid protobuf/,
    );
    const g = await post(`${s.url}/v1/traces`, Buffer.from('not gzip'), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(g.status).toBe(400);
  });

  it('answers 415 for other content types and encodings, 405 for other methods', async () => {
    const s = await testServer();
    expect((await post(`${s.url}/v1/metrics`, 'x', { 'content-type': 'text/plain' })).status).toBe(415);
    expect(
      (
        await post(`${s.url}/v1/metrics`, 'x', {
          'content-type': 'application/json',
          'content-encoding': 'br',
        })
      ).status,
    ).toBe(415);
    expect((await fetch(`${s.url}/v1/metrics`)).status).toBe(405);
  });

  it('answers 413 above the cap, also when only the decompressed size is too large (gzip bomb)', async () => {
    const s = await testServer({ OTLP_MAX_BODY_BYTES: String(64 * 1024) });
    const big = Buffer.alloc(100 * 1024, 0x20);
    expect((await post(`${s.url}/v1/metrics`, big, { 'content-type': 'application/json' })).status).toBe(413);
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20)); // ~200 KB on the wire
    expect(bomb.length).toBeLessThan(64 * 1024 * 4);
    const small = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20));
    expect(small.length).toBeLessThan(64 * 1024);
    const before = process.memoryUsage().rss;
    const r = await post(`${s.url}/v1/metrics`, small, {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(r.status).toBe(413);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
    // without content-length (chunked): the stream is cut at the cap
    const chunked = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new Uint8Array(16 * 1024));
        controller.close();
      },
    });
    const c = await fetch(`${s.url}/v1/metrics`, {
      method: 'POST',
      body: chunked,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    expect(c.status).toBe(413);
  });

  it('requires the bearer token when INGEST_TOKEN is set', async () => {
    const s = await testServer({ INGEST_TOKEN: 's3cret' });
    expect((await post(`${s.url}/v1/metrics`, '{}', { 'content-type': 'application/json' })).status).toBe(
      401,
    );
    expect(
      (
        await post(`${s.url}/v1/metrics`, '{}', {
          'content-type': 'application/json',
          authorization: 'Bearer nope',
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await post(`${s.url}/v1/metrics`, '{}', {
          'content-type': 'application/json',
          authorization: 'Bearer s3cret',
        })
      ).status,
    ).toBe(200);
  });
});

describe('createOtlpReceiver back-pressure', () => {
  const sink = { metrics: () => ({ rejected: 0 }), traces: () => ({ rejected: 0 }) };
  const chunks = (...parts: Buffer[]) =>
    (async function* () {
      yield* parts;
    })();

  it('holds no slot while a body is still arriving; beyond the slots (decoding), 429 with Retry-After', async () => {
    const receive = createOtlpReceiver({ sink, maxBodyBytes: 1024 * 1024, maxConcurrent: 1 });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = (async function* () {
      yield Buffer.from('{');
      await gate;
      yield Buffer.from('}');
    })();
    const stalled = receive('metrics', otlpRequest(slow));
    // The stalled body holds no slot: another export is served.
    expect((await receive('metrics', otlpRequest(chunks(Buffer.from('{}'))))).status).toBe(200);
    // Two complete gzip bodies: the first decompresses (off the event loop) while the second asks for the slot.
    const gz = gzipSync(Buffer.from(JSON.stringify({ resourceMetrics: [] }).padEnd(200_000, ' ')));
    const gzReq = (): OtlpHttpRequest => ({ ...otlpRequest(chunks(gz)), contentEncoding: 'gzip' });
    const [a, b] = await Promise.all([receive('metrics', gzReq()), receive('metrics', gzReq())]);
    expect([a.status, b.status].sort()).toEqual([200, 429]);
    expect((a.status === 429 ? a : b).headers['retry-after']).toBe('1');
    release();
    expect((await stalled).status).toBe(200);
  });

  it('answers 503 with Retry-After (never 500) when the store is busy', async () => {
    const busy = {
      metrics: () => {
        throw new StoreBusyError('locked');
      },
      traces: () => ({ rejected: 0 }),
    };
    const receive = createOtlpReceiver({ sink: busy, maxBodyBytes: 1024, maxConcurrent: 4 });
    const r = await receive(
      'metrics',
      otlpRequest(
        (async function* () {
          yield Buffer.from('{}');
        })(),
      ),
    );
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
  });
});

describe('JSON API and SSE', () => {
  it('GET /api/v1/summary validates its parameters and names the bad one', async () => {
    const s = await testServer();
    const bad = async (qs: string, param: string) => {
      const r = await fetch(`${s.url}/api/v1/summary?${qs}`);
      expect(r.status).toBe(400);
      const body = await r.json();
      expect(body.parameter).toBe(param);
      expect(body.error).toContain(param);
    };
    await bad('from=yesterday', 'from');
    await bad('from=10&to=-5', 'to');
    await bad('from=100&to=50', 'from');
    await bad('server=', 'server');
    await bad('server=a&server=b', 'server');
    await bad('method=', 'method');
    await bad('method=tools/list&method=tools/call', 'method');
    await bad('bogus=1', 'bogus');
    expect((await fetch(`${s.url}/api/v1/summary?method=tools%2Flist`)).status).toBe(200);
    const ok = await fetch(`${s.url}/api/v1/summary?from=0&to=${Date.now()}&server=weather`);
    expect(ok.status).toBe(200);
    expect(Object.keys(await ok.json())).toEqual([
      'from',
      'to',
      'calls',
      'retries',
      'errors',
      'wastedRetries',
      'wastedRetryTimeSeconds',
      'mttfNonRetryableSeconds',
      'breakers',
    ]);
  });

  it('GET /api/v1/instances and /api/v1/transitions answer from the source and validate their parameters', async () => {
    const s = await testServer();
    const a = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a-1' });
    const b = createCapture({ 'service.name': 'other', 'service.instance.id': 'b-1' });
    const flaky = Array.from({ length: 3 }, () => ({ server: 'flaky', tool: 't', steps: [503 as const] }));
    await a.run(flaky, {
      breakerConsecutiveFailures: 2,
      breakerBreakMs: 60_000,
      maxAttempts: 1,
      breakerWait: false,
    });
    await b.run(standardScript());
    for (const c of [a, b]) {
      const m = await post(`${s.url}/v1/metrics`, serialize.metricsProto(await c.metrics()), {
        'content-type': 'application/x-protobuf',
      });
      expect(m.status).toBe(200);
      const t = await post(`${s.url}/v1/traces`, serialize.tracesProto(c.spans()), {
        'content-type': 'application/x-protobuf',
      });
      expect(t.status).toBe(200);
    }
    const before = Date.now();
    const instances = await (await fetch(`${s.url}/api/v1/instances`)).json();
    expect(instances).toEqual({
      instances: [
        { service: 'agent', instance: 'a-1', lastSeen: expect.any(Number) },
        { service: 'other', instance: 'b-1', lastSeen: expect.any(Number) },
      ],
    });
    expect(Math.abs(instances.instances[0].lastSeen - before)).toBeLessThan(10_000);
    const agentOnly = await (await fetch(`${s.url}/api/v1/instances?service=agent`)).json();
    expect(agentOnly.instances.map((i: { instance: string }) => i.instance)).toEqual(['a-1']);
    const old = await (await fetch(`${s.url}/api/v1/instances?from=0&to=1000`)).json();
    expect(old).toEqual({ instances: [] });

    const transitions = await (await fetch(`${s.url}/api/v1/transitions?service=agent`)).json();
    expect(transitions).toEqual({
      transitions: [
        {
          ts: expect.any(Number),
          service: 'agent',
          instance: 'a-1',
          server: 'flaky',
          tool: null,
          from: 'closed',
          to: 'open',
          reason: 'consecutive_failures',
        },
      ],
    });
    for (const qs of ['server=flaky', 'tool=t', 'server=flaky&tool=t']) {
      const r = await (await fetch(`${s.url}/api/v1/transitions?${qs}`)).json();
      expect(r.transitions, qs).toHaveLength(1);
    }
    for (const qs of ['service=other', 'server=weather', `from=0&to=1000`]) {
      const r = await (await fetch(`${s.url}/api/v1/transitions?${qs}`)).json();
      expect(r.transitions, qs).toEqual([]);
    }

    const bad = async (path: string, qs: string, param: string) => {
      const r = await fetch(`${s.url}${path}?${qs}`);
      expect(r.status, `${path}?${qs}`).toBe(400);
      const body = await r.json();
      expect(body.parameter).toBe(param);
      expect(body.error).toContain(param);
    };
    for (const path of ['/api/v1/instances', '/api/v1/transitions']) {
      await bad(path, 'from=yesterday', 'from');
      await bad(path, 'from=100&to=50', 'from');
      await bad(path, 'to=1&to=2', 'to');
      await bad(path, 'service=', 'service');
      await bad(path, 'bogus=1', 'bogus');
    }
    await bad('/api/v1/instances', 'server=flaky', 'server');
    await bad('/api/v1/transitions', 'tool=a&tool=b', 'tool');
    // breakers carry no method: a method filter there is an unknown parameter, not a silent no-op
    await bad('/api/v1/transitions', 'method=tools/list', 'method');
    expect((await fetch(`${s.url}/api/v1/instances`, { method: 'POST' })).status).toBe(405);
  });

  it('pushes a breaker transition over SSE as soon as it is ingested', async () => {
    const s = await testServer();
    const controller = new AbortController();
    const res = await fetch(`${s.url}/api/live?range=15m`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const waitFor = async (pattern: RegExp) => {
      const deadline = Date.now() + 5000;
      while (!pattern.test(text)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}: ${text}`);
        const { value } = await reader.read();
        text += decoder.decode(value);
      }
    };
    await waitFor(/event: headline/);
    const c = createCapture();
    await c.run(
      Array.from({ length: 3 }, () => ({ server: 'flaky', tool: 't', steps: [503 as const] })),
      {
        breakerConsecutiveFailures: 2,
        maxAttempts: 1,
      },
    );
    const started = Date.now();
    await post(`${s.url}/v1/traces`, serialize.tracesProto(c.spans()), {
      'content-type': 'application/x-protobuf',
    });
    await waitFor(/event: breaker\ndata: .*"state":"open"/);
    expect(Date.now() - started).toBeLessThan(5000);
    controller.abort();
  });

  it('protects the UI and API with DASHBOARD_TOKEN (bearer, basic, ?token= then cookie), not the ingest', async () => {
    const s = await testServer({ DASHBOARD_TOKEN: 'tok' });
    expect((await fetch(`${s.url}/api/v1/summary`)).status).toBe(401);
    expect(
      (await fetch(`${s.url}/api/v1/summary`, { headers: { authorization: 'Bearer tok' } })).status,
    ).toBe(200);
    const basic = `Basic ${Buffer.from('any:tok').toString('base64')}`;
    expect((await fetch(`${s.url}/api/v1/summary`, { headers: { authorization: basic } })).status).toBe(200);
    const login = await fetch(`${s.url}/api/v1/summary?token=tok`, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).not.toContain('tok;');
    expect(
      (await fetch(`${s.url}/api/v1/summary`, { headers: { cookie: cookie.split(';')[0]! } })).status,
    ).toBe(200);
    expect((await post(`${s.url}/v1/metrics`, '{}', { 'content-type': 'application/json' })).status).toBe(
      200,
    );
    expect((await fetch(`${s.url}/api/health`)).status).toBe(200);
  });

  it('accepts Alertmanager webhooks and edits the rule over the API', async () => {
    const s = await testServer();
    const r = await post(
      `${s.url}/api/alerts/webhook`,
      JSON.stringify({ alerts: [{ status: 'firing', labels: { alertname: 'X' }, fingerprint: 'f1' }] }),
      { 'content-type': 'application/json' },
    );
    expect(await r.json()).toEqual({ received: 1, dropped: 0 });
    expect(
      (await post(`${s.url}/api/alerts/webhook`, '{"alerts":1}', { 'content-type': 'application/json' }))
        .status,
    ).toBe(400);
    const put = await fetch(`${s.url}/api/alerts/rules/retry-efficiency`, {
      method: 'PUT',
      body: JSON.stringify({ forMs: 0 }),
    });
    expect(await put.json()).toMatchObject({ forMs: 0, threshold: 0.8 });
    const badPut = await fetch(`${s.url}/api/alerts/rules/retry-efficiency`, {
      method: 'PUT',
      body: JSON.stringify({ threshold: 3 }),
    });
    expect(badPut.status).toBe(400);
    expect((await badPut.json()).field).toBe('threshold');
    const alerts = await (await fetch(`${s.url}/api/alerts`)).json();
    expect(alerts.instances[0]).toMatchObject({ source: 'alertmanager', state: 'firing' });
  });
});
