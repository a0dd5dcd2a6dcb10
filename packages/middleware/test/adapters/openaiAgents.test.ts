import {
  Agent,
  type AgentInputItem,
  MCPServerStreamableHttp,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
} from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resilientMcpServer } from '../../src/adapters/openaiAgents.js';
import { createMemoryRecorder } from '../../src/record/createMemoryRecorder.js';
import { callsOf, connectedChaos, INVALID_CALL } from './chaosServer.js';
import { ScriptedModel } from './scriptedModels.js';

const functionCall = (callId: string): ModelResponse['output'] => [
  {
    type: 'function_call',
    callId,
    name: INVALID_CALL.name,
    arguments: JSON.stringify(INVALID_CALL.args),
    status: 'completed',
  },
];
const finalAnswer: ModelResponse['output'] = [
  {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'No weather for Atlantis.' }],
  },
];

/** The function call results in a request's input, as the model reads them. */
const resultsIn = (request: ModelRequest | undefined) =>
  (Array.isArray(request?.input) ? request.input : []).filter(
    (item: AgentInputItem): item is Extract<AgentInputItem, { type: 'function_call_result' }> =>
      item.type === 'function_call_result',
  );

beforeAll(() => setTracingDisabled(true)); // no export to OpenAI's tracing backend from a test

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('OpenAI Agents JS adapter', () => {
  it('an agent run repeating an invalid MCP call: the server sees it once, the model reads the structured error', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const recorder = createMemoryRecorder();
    const server = resilientMcpServer(new MCPServerStreamableHttp({ url: chaos.http.url, name: 'chaos' }), {
      recorder,
    });
    await server.connect();
    cleanups.push(() => server.close());
    const model = new ScriptedModel([
      functionCall('c1'),
      functionCall('c2'),
      functionCall('c3'),
      finalAnswer,
    ]);
    const agent = new Agent({
      name: 'weather',
      instructions: 'Answer about the weather.',
      model,
      mcpServers: [server],
    });

    const result = await run(agent, 'Weather in Atlantis?', { maxTurns: 10 });

    expect(result.finalOutput).toBe('No weather for Atlantis.');
    expect(model.requests).toHaveLength(4);
    expect(callsOf(chaos.http, 'get_weather')).toBe(1);
    const seen = resultsIn(model.requests[3]);
    expect(seen.map((r) => r.callId)).toEqual(['c1', 'c2', 'c3']);
    for (const r of seen) {
      expect(JSON.stringify(r.output)).toMatch(
        /Tool call 'get_weather' failed with a non-retryable error \(invalid_params\): Invalid city/,
      );
    }
    const avoided = recorder.ofType('model_retry_avoided');
    expect(avoided.map((e) => [e.endpoint, e.attributes['gen_ai.tool.name'], e.classification.type])).toEqual(
      [
        ['chaos', 'get_weather', 'invalid_params'],
        ['chaos', 'get_weather', 'invalid_params'],
      ],
    );
  });
});
