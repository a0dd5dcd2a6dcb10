import { getEventListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createResilience } from '../createResilience.js';
import { isResilienceError, type ResilienceError } from '../errors/ResilienceError.js';
import { createMemoryRecorder, type MemoryRecorder } from '../record/createMemoryRecorder.js';
import type { Recorder } from '../record/Recorder.js';
import type { McpResilienceOptions } from './McpResilienceOptions.js';
import { observeFetch } from './observeFetch.js';
import { CLASSIFICATION_META_KEY, type McpClassificationMeta, withResilience } from './withResilience.js';

/** A real SDK server and client over the SDK's in-memory transport. */
const fast = {
  backoffBaseMs: 1,
  backoffMaxMs: 5,
  jitter: 'none',
  adaptiveBackoff: false,
  breakerJitter: 0,
} as const satisfies McpResilienceOptions;

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function pair(
  register: (server: McpServer) => void,
  client = new Client({ name: 'test', version: '1' }),
) {
  const server = new McpServer({ name: 'test-server', version: '1.0.0' }, { capabilities: { logging: {} } });
  register(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  closers.push(async () => {
    await client.close().catch(() => {});
    await server.close().catch(() => {});
  });
  return { server, client, clientSide };
}

async function connected(register: (server: McpServer) => void) {
  const { server, client, clientSide } = await pair(register);
  await client.connect(clientSide);
  return { server, client };
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const failure = (value: string): CallToolResult => ({
  content: [{ type: 'text', text: value }],
  isError: true,
});
const metaOf = (result: unknown) =>
  (result as CallToolResult)._meta?.[CLASSIFICATION_META_KEY] as McpClassificationMeta | undefined;
const textAt = (result: unknown, index: number) =>
  ((result as CallToolResult).content[index] as { text: string }).text;
const operations = (recorder: MemoryRecorder) => recorder.ofType('call_started').map((e) => e.operation);
const attemptsOf = (recorder: MemoryRecorder) => recorder.ofType('call_finished').map((e) => e.attempts);

async function rejection(promise: Promise<unknown>): Promise<ResilienceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isResilienceError(error)) throw new Error(`expected a ResilienceError, got ${String(error)}`);
  return error;
}

/** A tool that fails `failures` times with `message` (an isError result), then succeeds. */
function flaky(
  server: McpServer,
  name: string,
  annotations: Record<string, boolean> | undefined,
  failures = 1,
) {
  let calls = 0;
  return server.registerTool(name, { ...(annotations ? { annotations } : {}) }, async () =>
    ++calls <= failures ? failure('upstream request timed out') : text(`ok after ${calls}`),
  );
}

describe('withResilience', () => {
  it('runs every client request through the pipeline, and keeps the client usable as a Client', async () => {
    const { client } = await connected((server) => {
      server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) =>
        text(message),
      );
      server.registerResource('readme', 'file:///readme', {}, async (uri) => ({
        contents: [{ uri: uri.href, text: 'hello' }],
      }));
      server.registerResource(
        'item',
        new ResourceTemplate('item://{id}', { list: undefined, complete: { id: () => ['1', '2'] } }),
        {},
        async (uri) => ({ contents: [{ uri: uri.href, text: 'item' }] }),
      );
      server.registerPrompt('greet', { argsSchema: { name: z.string() } }, ({ name }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `hi ${name}` } }],
      }));
    });
    const recorder = createMemoryRecorder();
    const mcp = withResilience(client, { ...fast, recorder });
    expect(mcp).toBeInstanceOf(Client);
    expect(mcp.getServerVersion()?.name).toBe('test-server');

    await mcp.ping();
    await mcp.listTools();
    expect(await mcp.callTool({ name: 'echo', arguments: { message: 'x' } })).toMatchObject(text('x'));
    await mcp.listResources();
    await mcp.listResourceTemplates();
    await mcp.readResource({ uri: 'file:///readme' });
    await mcp.listPrompts();
    await mcp.getPrompt({ name: 'greet', arguments: { name: 'a' } });
    await mcp.complete({
      ref: { type: 'ref/resource', uri: 'item://{id}' },
      argument: { name: 'id', value: '' },
    });
    await mcp.setLoggingLevel('info');
    expect(operations(recorder)).toEqual([
      'ping',
      'tools/list',
      'tools/call',
      'resources/list',
      'resources/templates/list',
      'resources/read',
      'prompts/list',
      'prompts/get',
      'completion/complete',
      'logging/setLevel',
    ]);
    const call = recorder.ofType('call_started')[2]!;
    expect(call.endpoint).toBe('test-server'); // the server's own name by default
    expect(call.attributes).toMatchObject({
      'mcp.resilience.server': 'test-server',
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
    });
    expect(recorder.ofType('call_started')[7]!.attributes['gen_ai.prompt.name']).toBe('greet');
  });

  it('connects through the wrapper without putting initialize in the retry loop', async () => {
    const { client, clientSide } = await pair((server) => {
      server.registerTool('echo', {}, async () => text('e'));
    });
    const recorder = createMemoryRecorder();
    const mcp = withResilience(client, { ...fast, recorder, server: 'named' });
    await mcp.connect(clientSide);
    await mcp.callTool({ name: 'echo', arguments: {} });
    expect(operations(recorder)).toEqual(['tools/list', 'tools/call']);
    expect(recorder.ofType('call_started')[1]!.endpoint).toBe('named');
  });

  it('propagates the trace context the recorder fills into params._meta, keeping the caller’s _meta', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const { client } = await connected((server) => {
      server.registerTool('echo_meta', {}, async (extra) => text(JSON.stringify(extra._meta ?? {})));
    });
    const memory = createMemoryRecorder();
    const tracing: Recorder = {
      record(event) {
        if (event.type === 'attempt_started') event.traceContext.traceparent = traceparent;
        memory.record(event);
      },
    };
    const mcp = withResilience(client, { ...fast, recorder: tracing, idempotency: 'never' });
    const result = await mcp.callTool({ name: 'echo_meta', arguments: {}, _meta: { 'x-caller': 'kept' } });
    expect(JSON.parse(textAt(result, 0))).toEqual({
      'x-caller': 'kept',
      traceparent,
    });

    const untraced = withResilience(client, { ...fast, idempotency: 'never' });
    const plain = await untraced.callTool({ name: 'echo_meta', arguments: {} });
    expect(JSON.parse(textAt(plain, 0))).toEqual({});
  });

  describe('idempotency', () => {
    async function tools() {
      return connected((server) => {
        flaky(server, 'read', { readOnlyHint: true });
        flaky(server, 'idempotent', { idempotentHint: true });
        flaky(server, 'unannotated', undefined);
        flaky(server, 'destructive', { destructiveHint: true });
      });
    }
    const call = (mcp: Client, name: string) => mcp.callTool({ name, arguments: {} });

    it("'annotations' (default): lists the tools once, retries read-only and idempotent tools only", async () => {
      const { client } = await tools();
      const recorder = createMemoryRecorder();
      const mcp = withResilience(client, { ...fast, recorder });
      expect((await call(mcp, 'read')).isError).toBeFalsy();
      expect((await call(mcp, 'idempotent')).isError).toBeFalsy();
      const unannotated = await call(mcp, 'unannotated');
      expect(unannotated.isError).toBe(true);
      expect(metaOf(unannotated)).toMatchObject({
        type: 'timeout',
        execution: 'unknown',
        attempts: 1,
        reason: 'not_idempotent',
        healthNeutral: true,
      });
      expect(metaOf(await call(mcp, 'destructive'))).toMatchObject({ attempts: 1, reason: 'not_idempotent' });
      expect(operations(recorder)).toEqual([
        'tools/list',
        'tools/call',
        'tools/call',
        'tools/call',
        'tools/call',
      ]);
      expect(attemptsOf(recorder)).toEqual([1, 2, 2, 1, 1]);
    });

    it("'assume-idempotent' retries every tool; 'never' none; overrides win", async () => {
      const { client } = await tools();
      const assume = createMemoryRecorder();
      const trusting = withResilience(client, {
        ...fast,
        recorder: assume,
        idempotency: 'assume-idempotent',
      });
      expect((await call(trusting, 'destructive')).isError).toBeFalsy();
      expect(operations(assume)).toEqual(['tools/call']); // no listing needed

      const never = createMemoryRecorder();
      const wary = withResilience(client, {
        ...fast,
        recorder: never,
        idempotency: 'never',
        toolIdempotency: { idempotent: true },
      });
      expect(metaOf(await call(wary, 'read'))).toMatchObject({ attempts: 1, reason: 'not_idempotent' });
      expect((await call(wary, 'idempotent')).isError).toBeFalsy();
      expect(attemptsOf(never)).toEqual([1, 2]);
    });

    it('an override can distrust an annotation', async () => {
      const { client } = await tools();
      const mcp = withResilience(client, { ...fast, toolIdempotency: { read: false } });
      expect(metaOf(await call(mcp, 'read'))).toMatchObject({ attempts: 1, reason: 'not_idempotent' });
    });

    it('notifications/tools/list_changed makes the next call list the tools again', async () => {
      let changed = 0;
      let notified: () => void = () => {};
      const seen = new Promise<void>((resolve) => {
        notified = resolve;
      });
      const onChanged = () => {
        changed++;
        notified();
      };
      const client = new Client(
        { name: 'test', version: '1' },
        { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged } } },
      );
      let tool: ReturnType<typeof flaky> | undefined;
      const { clientSide } = await pair((server) => {
        tool = flaky(server, 'evolving', undefined, 2);
      }, client);
      const recorder = createMemoryRecorder();
      // Wrapped before connecting: the SDK's own list_changed handler (set at connect) must not replace ours.
      const mcp = withResilience(client, { ...fast, recorder });
      await mcp.connect(clientSide);
      expect(metaOf(await call(mcp, 'evolving'))).toMatchObject({ attempts: 1, reason: 'not_idempotent' });

      tool?.update({ annotations: { idempotentHint: true } }); // the server sends tools/list_changed
      await seen; // the notification arrived
      expect(changed).toBe(1); // the caller's handler still runs
      expect((await call(mcp, 'evolving')).isError).toBeFalsy();
      expect(operations(recorder)).toEqual(['tools/list', 'tools/call', 'tools/list', 'tools/call']);
      expect(attemptsOf(recorder)).toEqual([1, 1, 1, 2]);
    });

    it('with the annotations unknown (listing refused), the MCP defaults apply and it does not ask again', async () => {
      // A low-level server that answers tools/call but has no tools/list: -32601.
      const server = new Server({ name: 'bare', version: '1' }, { capabilities: { tools: {} } });
      let calls = 0;
      server.setRequestHandler(CallToolRequestSchema, async () =>
        ++calls === 1 ? failure('upstream request timed out') : text('ok'),
      );
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: 'test', version: '1' });
      await client.connect(clientSide);
      closers.push(async () => {
        await client.close();
        await server.close();
      });
      const recorder = createMemoryRecorder();
      const mcp = withResilience(client, { ...fast, recorder });
      expect(metaOf(await call(mcp, 'anything'))).toMatchObject({ attempts: 1, reason: 'not_idempotent' });
      expect((await call(mcp, 'anything')).isError).toBeFalsy();
      expect(operations(recorder)).toEqual(['tools/list', 'tools/call', 'tools/call']);
      expect(recorder.ofType('call_finished')[0]).toMatchObject({
        classification: { type: 'method_not_found' },
      });
    });
  });

  describe('nonRetryableAs', () => {
    async function server() {
      return connected((s) => {
        s.registerTool('sum', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) =>
          text(`${a + b}`),
        );
        s.registerTool('login', {}, async () => {
          throw new UrlElicitationRequiredError([
            { mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e1' },
          ]);
        });
        s.registerTool(
          'hang',
          { annotations: { readOnlyHint: true } },
          () => new Promise<CallToolResult>(() => {}),
        );
      });
    }

    it("'throw' (default): a thrown non-retryable error rejects; an isError result is returned as it came", async () => {
      const { client } = await server();
      const mcp = withResilience(client, fast);
      const error = await rejection(mcp.callTool({ name: 'login', arguments: {} }));
      expect(error).toMatchObject({ attempts: 1, classification: { type: 'user_action_required' } });
      const invalid = await mcp.callTool({ name: 'sum', arguments: { a: 'x', b: 1 } });
      expect((invalid as CallToolResult).content).toHaveLength(1);
      expect(metaOf(invalid)).toMatchObject({ class: 'non_retryable', type: 'invalid_params', attempts: 1 });
    });

    it("'result': an isError result the model can act on, for tools/call only", async () => {
      const { client } = await server();
      const mcp = withResilience(client, { ...fast, nonRetryableAs: 'result' });
      const login = await mcp.callTool({ name: 'login', arguments: {} });
      expect(login.isError).toBe(true);
      expect(textAt(login, 0)).toMatch(
        /^Tool call 'login' failed with a non-retryable error \(user_action_required\): MCP error -32042: .*\nIt was not retried \(1 attempt made\).*\nA human has to act first/,
      );
      expect(metaOf(login)).toMatchObject({
        type: 'user_action_required',
        attempts: 1,
        reason: 'non_retryable',
      });

      const invalid = await mcp.callTool({ name: 'sum', arguments: { a: 'x', b: 1 } });
      expect((invalid as CallToolResult).content).toHaveLength(2); // the server's text, then the explanation
      expect(textAt(invalid, 1)).toMatch(/corrected arguments/);

      // Not a tool call: it throws.
      await rejection(mcp.getPrompt({ name: 'nope' }));
    });

    it("'result' never turns a caller's abort into a result", async () => {
      const { client } = await server();
      const mcp = withResilience(client, { ...fast, nonRetryableAs: 'result' });
      const error = await rejection(
        mcp.callTool({ name: 'hang', arguments: {} }, undefined, { signal: AbortSignal.timeout(30) }),
      );
      expect(error.reason).toBe('aborted');
    });
  });

  describe("the SDK's request options are the call's limit", () => {
    it('a per-request timeout bounds the whole call, attempts and waits, not each attempt', async () => {
      const { client } = await connected((s) => {
        s.registerTool(
          'hang',
          { annotations: { readOnlyHint: true } },
          () => new Promise<CallToolResult>(() => {}),
        );
      });
      const recorder = createMemoryRecorder();
      const mcp = withResilience(client, { ...fast, recorder, server: 's', maxAttempts: 5 });
      const error = await rejection(
        mcp.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 200 }),
      );
      expect(error).toMatchObject({ reason: 'deadline', classification: { type: 'timeout' } });
      const finished = recorder.ofType('call_finished').at(-1);
      expect(finished?.attempts).toBe(1); // one attempt of 200 ms, not five
      expect(finished?.durationMs).toBeGreaterThanOrEqual(190);
      expect(finished?.durationMs).toBeLessThan(1_000);
    });

    it('limitOf: timeout and maxTotalTimeout, whichever ends first; an idle timeout (resetTimeoutOnProgress) is none', async () => {
      const { limitOf } = await import('./withResilience.js');
      expect(limitOf(undefined)).toEqual({});
      expect(limitOf({ timeout: 2_000 })).toEqual({ timeoutMs: 2_000 });
      expect(limitOf({ timeout: 2_000, maxTotalTimeout: 500 })).toEqual({ timeoutMs: 500 });
      expect(limitOf({ timeout: 2_000, resetTimeoutOnProgress: true })).toEqual({});
      expect(limitOf({ timeout: 2_000, resetTimeoutOnProgress: true, maxTotalTimeout: 9_000 })).toEqual({
        timeoutMs: 9_000,
      });
      expect(limitOf({ timeout: Number.NaN })).toEqual({});
    });
  });

  describe('circuit breakers', () => {
    async function server() {
      return connected((s) => {
        s.registerTool('hang', {}, () => new Promise<CallToolResult>(() => {}));
        s.registerTool('ok', {}, async () => text('ok'));
        s.registerTool('broken', { annotations: { readOnlyHint: true } }, async () =>
          failure('upstream 503'),
        );
      });
    }
    const options = {
      ...fast,
      maxAttempts: 1,
      breakerConsecutiveFailures: 1,
      // the next probe after the default limit of a call without a deadline (breakerWaitLimitMs, 60 s)
      breakerBreakMs: 120_000,
    } as const;

    it("'server' (default): one breaker for the whole server", async () => {
      const { client } = await server();
      const recorder = createMemoryRecorder();
      const mcp = withResilience(client, { ...options, recorder, server: 's' });
      await rejection(mcp.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 30 }));
      const rejected = await rejection(mcp.callTool({ name: 'ok', arguments: {} }));
      expect(rejected).toMatchObject({ attempts: 0, reason: 'circuit_open' });
      expect(recorder.ofType('breaker_transition').map((t) => [t.endpoint, t.to])).toEqual([['s', 'open']]);
    });

    it("'tool': one breaker per tool, with the tool in its telemetry attributes", async () => {
      const { client } = await server();
      const recorder = createMemoryRecorder();
      const mcp = withResilience(client, { ...options, recorder, server: 's', breakerScope: 'tool' });
      await rejection(mcp.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 30 }));
      expect((await mcp.callTool({ name: 'ok', arguments: {} })).isError).toBeFalsy();
      await mcp.ping(); // not a tool: the server's breaker
      const again = await rejection(
        mcp.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 30 }),
      );
      expect(again.reason).toBe('circuit_open');
      const [transition] = recorder.ofType('breaker_transition');
      expect(transition).toMatchObject({
        endpoint: 's/hang',
        to: 'open',
        attributes: { 'mcp.resilience.server': 's', 'gen_ai.tool.name': 'hang' },
      });
      expect(recorder.ofType('call_started').map((c) => c.endpoint)).toEqual([
        's', // tools/list, for the annotations
        's/hang',
        's/ok',
        's',
        's/hang',
      ]);
    });

    it('an isError result never counts against a breaker', async () => {
      const { client } = await server();
      const recorder = createMemoryRecorder();
      const mcp = withResilience(client, { ...options, maxAttempts: 3, recorder });
      for (let i = 0; i < 3; i++) {
        const result = await mcp.callTool({ name: 'broken', arguments: {} });
        expect(metaOf(result)).toMatchObject({ type: 'unavailable', healthNeutral: true, attempts: 3 });
      }
      expect(recorder.ofType('breaker_transition')).toEqual([]);
    });

    it('a shared pipeline shares breakers between clients', async () => {
      const { client } = await server();
      const resilience = createResilience({ ...options });
      const a = withResilience(client, { resilience, server: 'shared' });
      const b = withResilience(client, { resilience, server: 'shared' });
      await rejection(a.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 30 }));
      expect(await rejection(b.callTool({ name: 'ok', arguments: {} }))).toMatchObject({
        reason: 'circuit_open',
      });
      expect(resilience.breakers().map((s) => [s.endpoint, s.state])).toEqual([['shared', 'open']]);
    });
  });

  it('does not pile abort listeners on a long-lived signal (the SDK never removes its own)', async () => {
    const { client } = await connected(() => {});
    // Spy on the signals the SDK's request() receives.
    const seen = new Set<AbortSignal>();
    const original = client.request.bind(client);
    client.request = ((request, schema, options) => {
      if (options?.signal) seen.add(options.signal);
      return original(request, schema, options);
    }) as typeof client.request;
    const mcp = withResilience(client, fast);
    for (let i = 0; i < 20; i++) await mcp.ping();
    const caller = new AbortController();
    for (let i = 0; i < 20; i++) await mcp.ping({ signal: caller.signal });
    expect(seen.size).toBe(40);
    // One signal per attempt: the listeners left on it (the SDK's, the attempt's own) go away with it.
    for (const signal of seen) expect(getEventListeners(signal, 'abort').length).toBeLessThanOrEqual(2);
    // The caller's signal: one listener for its lifetime, however many calls use it.
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
  });

  it('runs the caller’s rules before the MCP ones', async () => {
    const { client } = await connected((server) => flaky(server, 'read', { readOnlyHint: true }));
    const mcp = withResilience(client, {
      ...fast,
      rules: [
        { name: 'permanent', message: /timed out/, classify: { class: 'non_retryable', type: 'timeout' } },
      ],
    });
    expect(metaOf(await mcp.callTool({ name: 'read', arguments: {} }))).toMatchObject({
      class: 'non_retryable',
      source: 'rule:permanent',
      attempts: 1,
    });
  });

  it('validates its options', async () => {
    const client = new Client({ name: 'test', version: '1' });
    const bad: Array<[McpResilienceOptions, RegExp]> = [
      [{ mcp: { server: '' } }, /option 'mcp.server' must be a non-empty string/],
      [{ mcp: { idempotency: 'sometimes' as never } }, /option 'mcp.idempotency' must be one of/],
      [{ mcp: { idempotency: { tools: { a: 'yes' } } as never } }, /option 'mcp.idempotency' must be one of/],
      [{ mcp: { reconnect: 'http://x' as never } }, /option 'mcp.reconnect' must be a function/],
      [{ mcp: { breakerScope: 'method' as never } }, /option 'mcp.breakerScope' must be one of/],
      [
        { mcp: { fetch: globalThis.fetch as never } },
        /'mcp.fetch' must be the function returned by observeFetch/,
      ],
      [{ mcp: { retries: 2 } as never }, /unknown option 'mcp.retries'; known options of 'mcp': server,/],
      [{ resilience: {} as never }, /'resilience' must be an object returned by createResilience/],
      [
        { resilience: createResilience(), retry: { maxAttempts: 2 } },
        /retry cannot be combined with 'resilience'/,
      ],
      [{ retry: { maxAttempts: 0 } }, /'retry.maxAttempts' must be an integer >= 1/],
      [{ retries: 2 } as never, /unknown option 'retries'/],
      // The flat names of the first versions, still accepted, are checked under their grouped paths.
      [{ server: '' }, /option 'mcp.server' must be a non-empty string/],
      [{ idempotency: 'sometimes' as never }, /option 'mcp.idempotency' must be one of/],
      [{ toolIdempotency: { a: 'yes' } as never }, /option 'mcp.idempotency' must be one of/],
      [{ nonRetryableAs: 'log' as never }, /option 'nonRetryableAs' must be 'throw' or 'result'/],
      [{ maxAttempts: 0 }, /'retry.maxAttempts' must be an integer >= 1/],
      [
        { resilience: createResilience(), maxAttempts: 2 },
        /maxAttempts cannot be combined with 'resilience'/,
      ],
      [{ server: 'a', mcp: { server: 'b' } }, /option 'server' is the flat name of 'mcp.server'; give only/],
    ];
    for (const [options, message] of bad) expect(() => withResilience(client, options)).toThrow(message);
    expect(() =>
      withResilience(client, { resilience: createResilience(), rules: [], fetch: observeFetch() }),
    ).not.toThrow();
  });
});
