import { describe, expect, it } from 'vitest';
import {
  type AgentLayerCell,
  renderAgentLayer,
  runAgentLayer,
  saysRepeatCannotHelp,
} from '../src/agentLayer.js';

const cell = (cells: readonly AgentLayerCell[], fault: string, model: string, policy: string) => {
  const found = cells.find((c) => c.fault === fault && c.model === model && c.policy === policy);
  if (!found) throw new Error(`no cell ${fault}/${model}/${policy}`);
  return found;
};

describe('agent layer benchmark', () => {
  it('counts what each policy sends and what the model pays for an invalid call repeated by the model', async () => {
    const cells = await runAgentLayer({ tasks: 4, costPerAttempt: 0.5 });
    // The model calls 3 times, then answers: 4 LLM calls per task whatever the tool layer does.
    expect(cell(cells, 'invalid_arguments', 'stubborn', 'naive')).toMatchObject({
      llmCalls: 16,
      wastedLlmCalls: 8,
      toolRequests: 4 * 3 * 6, // 6 requests per model call (5 retries)
      wastedCost: (4 * 3 * 6 - 4) * 0.5,
    });
    // LangGraph's default RetryPolicy retries a JSON-RPC -32602 (no HTTP status): 3 requests per model call.
    expect(cell(cells, 'invalid_arguments', 'stubborn', 'langgraph').toolRequests).toBe(4 * 3 * 3);
    expect(cell(cells, 'invalid_arguments', 'stubborn', 'ai-sdk').toolRequests).toBe(4 * 3);
    // mcp-resilience: one request per task; the model's repeats are answered from the negative cache.
    expect(cell(cells, 'invalid_arguments', 'stubborn', 'mcp-resilience')).toMatchObject({
      toolRequests: 4,
      wastedToolRequests: 0,
    });
    // A model that reads errors stops after the first invalid-arguments error, in every policy's wording: 2 LLM calls
    // per task; the tool layer's own retries still cost what they cost.
    for (const policy of ['naive', 'langgraph', 'ai-sdk', 'mcp-resilience']) {
      expect(cell(cells, 'invalid_arguments', 'reads-errors', policy)).toMatchObject({
        llmCalls: 8,
        wastedLlmCalls: 0,
        wastedLlmCost: 0,
      });
    }
    expect(cell(cells, 'invalid_arguments', 'reads-errors', 'naive').toolRequests).toBe(4 * 6);
    expect(cell(cells, 'invalid_arguments', 'reads-errors', 'langgraph').toolRequests).toBe(4 * 3);
    expect(cell(cells, 'invalid_arguments', 'reads-errors', 'ai-sdk').toolRequests).toBe(4);
    expect(cell(cells, 'invalid_arguments', 'stubborn', 'ai-sdk').wastedLlmCost).toBe(8);
    // An outage reads as transient in every wording: the reading model repeats as the stubborn one does.
    for (const policy of ['naive', 'langgraph', 'ai-sdk', 'mcp-resilience']) {
      const { model: _s, ...stubborn } = cell(cells, 'outage', 'stubborn', policy);
      const { model: _r, ...reads } = cell(cells, 'outage', 'reads-errors', policy);
      expect(reads).toEqual(stubborn);
    }
    // After a blip, retrying in the tool layer saves the model's repeat; the AI SDK pays one LLM call for it.
    expect(cell(cells, 'blip', 'stubborn', 'mcp-resilience').wastedLlmCalls).toBe(0);
    expect(cell(cells, 'blip', 'stubborn', 'ai-sdk').wastedLlmCalls).toBe(4);
    // An outage: retried while it may be a blip, then the open breaker answers at once without a request.
    expect(cell(cells, 'outage', 'stubborn', 'mcp-resilience').toolRequests).toBeLessThan(
      cell(cells, 'outage', 'stubborn', 'langgraph').toolRequests,
    );
    expect(renderAgentLayer(cells, 0.5)).toMatch(
      /\| invalid_arguments \| stubborn \| mcp-resilience \| 16 \| 8 \| 4 \| 0 \| 0 \|/,
    );
  });
});

/** The tool outputs the policies really hand the model in this benchmark (checked against a run below). */
const ERROR_TEXTS: readonly { policy: string; fault: string; output: string; stops: boolean }[] = [
  {
    policy: 'naive',
    fault: 'invalid_arguments',
    output: 'Error: MCP error -32602: Invalid params: unknown city',
    stops: true,
  },
  {
    policy: 'langgraph',
    fault: 'invalid_arguments',
    output: 'Error: MCP error -32602: Invalid params: unknown city\n Please fix your mistakes.',
    stops: true,
  },
  {
    policy: 'ai-sdk',
    fault: 'invalid_arguments',
    output: 'MCP error -32602: Invalid params: unknown city',
    stops: true,
  },
  {
    policy: 'mcp-resilience',
    fault: 'invalid_arguments',
    output:
      "Tool call 'get_weather' failed with a non-retryable error (invalid_params): MCP error -32602: Invalid params: unknown city\nIt was not retried (1 attempt made): calling it again with the same arguments cannot succeed.\nCheck the arguments against the tool’s input schema, then call it again with corrected arguments.",
    stops: true,
  },
  { policy: 'ai-sdk', fault: 'blip', output: 'HTTP 503 Service Unavailable', stops: false },
  { policy: 'naive', fault: 'outage', output: 'Error: HTTP 503 Service Unavailable', stops: false },
  {
    policy: 'langgraph',
    fault: 'outage',
    output: 'Error: HTTP 503 Service Unavailable\n Please fix your mistakes.',
    stops: false,
  },
  { policy: 'ai-sdk', fault: 'outage', output: 'HTTP 503 Service Unavailable', stops: false },
  {
    policy: 'mcp-resilience',
    fault: 'outage',
    output:
      "Tool 'get_weather' failed 3 times in a row with a temporary error (unavailable); calling it again in a few seconds may succeed, or continue without it.",
    stops: false,
  },
  {
    policy: 'mcp-resilience',
    fault: 'outage',
    output:
      "Tool 'get_weather' is unavailable: its server is failing and calls to it are paused, so calling it again right away will fail the same way; continue without it or try later.",
    stops: false,
  },
  {
    policy: 'mcp-resilience',
    fault: 'outage',
    output:
      "Tool 'get_weather' is unavailable: its server is failing and calls to it are paused, so calling it again can only succeed after about 1 s; continue without it or try later.",
    stops: false,
  },
  {
    policy: 'mcp-resilience',
    fault: 'outage',
    output:
      "Tool 'get_weather' is unavailable: its server is failing and calls to it are paused, so calling it again can only succeed after about 2 s; continue without it or try later.",
    stops: false,
  },
];

describe('saysRepeatCannotHelp (the reads-errors model)', () => {
  it.each(ERROR_TEXTS)('$policy, $fault: stops = $stops', ({ output, stops }) => {
    expect(saysRepeatCannotHelp(output)).toBe(stops);
  });

  it('the texts above are the ones the policies produce in the benchmark', async () => {
    // The wait a circuit_open result announces depends on the breaker's probe spacing: the words are the same
    const shape = (policy: string, fault: string, output: string) =>
      JSON.stringify({ policy, fault, output: output.replace(/about \d+ s;/, 'about N s;') });
    const seen = new Set<string>();
    await runAgentLayer({
      tasks: 20,
      onToolError: ({ policy, fault, output }) => seen.add(shape(policy, fault, output)),
    });
    const listed = new Set(ERROR_TEXTS.map(({ policy, fault, output }) => shape(policy, fault, output)));
    expect([...seen].sort()).toEqual([...listed].sort());
  });

  it('recognizes invalid or permanent failures in other wordings, and keeps repeating transient ones', () => {
    for (const stops of [
      'MCP error -32602: Invalid arguments for tool get_weather',
      'Invalid request',
      'HTTP 400 Bad Request',
      '401 Unauthorized',
      'HTTP 403 Forbidden',
      'HTTP 404 Not Found',
      'Resource not found',
      'Error: something odd\n Please fix your mistakes.',
    ]) {
      expect(saysRepeatCannotHelp(stops), stops).toBe(true);
    }
    for (const repeats of [
      'Request timed out',
      'ETIMEDOUT',
      'HTTP 429 Too Many Requests',
      'HTTP 502 Bad Gateway',
      'Service temporarily overloaded, try again',
      'Error: Request timeout\n Please fix your mistakes.',
      'Something went wrong',
    ]) {
      expect(saysRepeatCannotHelp(repeats), repeats).toBe(false);
    }
  });
});
