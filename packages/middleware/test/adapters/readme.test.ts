/*
 * The adapter examples of the root README.md, run as written against the chaos server, with three substitutions:
 * the server URL, an in-memory OpenTelemetry setup for `setupTelemetry`, and each framework's scripted model for
 * the OpenAI model (every model repeats the invalid call three times, then answers).
 */
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { toolsCondition } from '@langchain/langgraph/prebuilt';
import { loadMcpTools } from '@langchain/mcp-adapters';
import { type ChaosHttpServer, startChaosHttpServer } from '@mcp-resilience/chaos';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, MCPServerStreamableHttp, Runner, setTracingDisabled } from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolSet } from '../../src/adapters/ai.js';
import { resilientToolNode } from '../../src/adapters/langgraph.js';
import { resilientMcpServer } from '../../src/adapters/openaiAgents.js';
import { withResilience } from '../../src/mcp/index.js';
import { createOtelRecorder } from '../../src/otel/createOtelRecorder.js';
import { createOtelHarness, type OtelHarness } from '../../src/otel/test-support/otelHarness.js';
import { callsOf, INVALID_CALL } from './chaosServer.js';
import { ScriptedChatModel, ScriptedModel } from './scriptedModels.js';

let chaos: ChaosHttpServer;
let otel: OtelHarness;
let shutdowns = 0;
const printed: unknown[] = [];
const console = { log: (value: unknown) => printed.push(value) };
/** `setupTelemetry()` with in-memory exporters; `shutdown` is counted, the harness is shut down after the test. */
const setupTelemetry = (_options: { serviceName: string }) => ({
  recorder: createOtelRecorder({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider }),
  shutdown: async () => {
    shutdowns++;
  },
});

beforeAll(() => setTracingDisabled(true));
afterEach(async () => {
  await chaos?.close();
  await otel?.shutdown();
  printed.length = 0;
  shutdowns = 0;
});
async function start() {
  chaos = await startChaosHttpServer({ plan: { faults: [] }, seed: 1 });
  otel = createOtelHarness();
  return new URL(chaos.url).href;
}
const avoided = async () =>
  (await otel.points('mcp.resilience.model_retries.avoided')).map((p) => [
    p.attributes['mcp.resilience.server'],
    p.value,
  ]);

describe('README agent-loop examples', () => {
  it('LangGraph.js', async () => {
    const url = await start();
    const ChatOpenAI = class {
      constructor(readonly options: { model: string }) {}
      bindTools(_tools: unknown) {
        return new ScriptedChatModel([
          ...['c1', 'c2', 'c3'].map(
            (id) => new AIMessage({ content: '', tool_calls: [{ id, ...INVALID_CALL, type: 'tool_call' }] }),
          ),
          new AIMessage('There is no weather report for Atlantis.'),
        ]);
      }
    };
    // --- the example ---
    const telemetry = setupTelemetry({ serviceName: 'weather-agent' });
    const client = new Client({ name: 'weather-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    // The MCP client retries what can succeed and answers the model's repeats (recorded as model retries avoided);
    // one retry and no wait at an open breaker, so a call through the tool node is not held for long.
    const mcp = withResilience(client, {
      server: 'weather',
      maxAttempts: 2,
      breakerWait: false,
      resultOn: ['circuit_open', 'retries_exhausted'],
      recorder: telemetry.recorder,
    });
    const tools = await loadMcpTools('weather', mcp);
    const model = new ChatOpenAI({ model: 'gpt-4.1-mini' }).bindTools(tools);

    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async ({ messages }) => ({ messages: [await model.invoke(messages)] }))
      // Failures become error ToolMessages the model can act on; the client above already answers repeats.
      .addNode('tools', resilientToolNode(tools, { server: 'weather-tools', negativeCacheTtlMs: 0 }))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END])
      .addEdge('tools', 'agent')
      .compile();

    const result = await graph.invoke({ messages: [new HumanMessage('What is the weather in Atlantis?')] });
    console.log(result.messages.at(-1)?.content);

    await client.close();
    await telemetry.shutdown();
    // --- end of the example ---
    expect(printed).toEqual(['There is no weather report for Atlantis.']);
    expect(callsOf(chaos, 'get_weather')).toBe(1);
    const errors = result.messages.filter((m) => m.getType() === 'tool');
    expect(errors.map((m) => (m as { status?: string }).status)).toEqual(['error', 'error', 'error']);
    expect(String(errors[2]?.content)).toMatch(/non-retryable error \(invalid_params\): .*Invalid city/);
    expect(await avoided()).toEqual([['weather', 2]]);
    expect(shutdowns).toBe(1);
  });

  it('Vercel AI SDK', async () => {
    const url = await start();
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    const mock = new MockLanguageModelV3({
      doGenerate: [
        ...['c1', 'c2', 'c3'].map((id) => ({
          content: [
            {
              type: 'tool-call' as const,
              toolCallId: id,
              toolName: INVALID_CALL.name,
              input: JSON.stringify(INVALID_CALL.args),
            },
          ],
          finishReason: { unified: 'tool-calls' as const, raw: undefined },
          usage,
          warnings: [],
        })),
        {
          content: [{ type: 'text' as const, text: 'There is no weather report for Atlantis.' }],
          finishReason: { unified: 'stop' as const, raw: undefined },
          usage,
          warnings: [],
        },
      ],
    });
    const openai = (_model: string) => mock;
    // --- the example ---
    const telemetry = setupTelemetry({ serviceName: 'weather-agent' });
    const client = new Client({ name: 'weather-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const mcp = withResilience(client, {
      server: 'weather',
      nonRetryableAs: 'result', // the model reads what was wrong
      resultOn: ['circuit_open', 'budget_exhausted', 'retries_exhausted'],
      recorder: telemetry.recorder,
    });

    const { text } = await generateText({
      model: openai('gpt-4.1-mini'),
      tools: await mcpToolSet(mcp),
      stopWhen: stepCountIs(8),
      prompt: 'What is the weather in Atlantis?',
    });
    console.log(text);

    await client.close();
    await telemetry.shutdown();
    // --- end of the example ---
    expect(printed).toEqual(['There is no weather report for Atlantis.']);
    expect(callsOf(chaos, 'get_weather')).toBe(1);
    expect(JSON.stringify(mock.doGenerateCalls[3]?.prompt.at(-1))).toMatch(
      /calling it again with the same arguments cannot succeed/,
    );
    expect(await avoided()).toEqual([['weather', 2]]);
    expect(shutdowns).toBe(1);
  });

  it('OpenAI Agents JS', async () => {
    const url = await start();
    const script = new ScriptedModel([
      ...['c1', 'c2', 'c3'].map((callId) => [
        {
          type: 'function_call' as const,
          callId,
          name: INVALID_CALL.name,
          arguments: JSON.stringify(INVALID_CALL.args),
          status: 'completed' as const,
        },
      ]),
      [
        {
          type: 'message' as const,
          role: 'assistant' as const,
          status: 'completed' as const,
          content: [{ type: 'output_text' as const, text: 'There is no weather report for Atlantis.' }],
        },
      ],
    ]);
    // `run` with a model provider that resolves 'gpt-4.1-mini' to the scripted model.
    const run = (agent: Agent, input: string, options: { maxTurns: number }) =>
      new Runner({ modelProvider: { getModel: () => script } }).run(agent, input, options);
    // --- the example ---
    const telemetry = setupTelemetry({ serviceName: 'weather-agent' });
    const server = new MCPServerStreamableHttp({ url, name: 'weather' });
    const weather = resilientMcpServer(server, { recorder: telemetry.recorder });
    await weather.connect();

    const agent = new Agent({
      name: 'weather',
      instructions: 'Answer questions about the weather.',
      model: 'gpt-4.1-mini',
      mcpServers: [weather],
    });
    const result = await run(agent, 'What is the weather in Atlantis?', { maxTurns: 8 });
    console.log(result.finalOutput);

    await weather.close();
    await telemetry.shutdown();
    // --- end of the example ---
    expect(printed).toEqual(['There is no weather report for Atlantis.']);
    expect(callsOf(chaos, 'get_weather')).toBe(1);
    expect(JSON.stringify(script.requests[3]?.input)).toMatch(/non-retryable error \(invalid_params\)/);
    expect(await avoided()).toEqual([['weather', 2]]);
    expect(shutdowns).toBe(1);
  });
});
