import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { toolsCondition } from '@langchain/langgraph/prebuilt';
import { loadMcpTools } from '@langchain/mcp-adapters';
import { afterEach, describe, expect, it } from 'vitest';
import { resilientToolNode, resilientTools } from '../../src/adapters/langgraph.js';
import { CLASSIFICATION_META_KEY } from '../../src/mcp/index.js';
import { createMemoryRecorder } from '../../src/record/createMemoryRecorder.js';
import { createFakeClock } from '../../src/testing/createFakeClock.js';
import { callsOf, connectedChaos, INVALID_CALL } from './chaosServer.js';
import { ScriptedChatModel } from './scriptedModels.js';

const repeatInvalid = (times: number) => [
  ...Array.from(
    { length: times },
    (_, i) =>
      new AIMessage({
        content: '',
        tool_calls: [{ id: `call_${i + 1}`, ...INVALID_CALL, type: 'tool_call' }],
      }),
  ),
  new AIMessage('I could not find the weather for Atlantis.'),
];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('LangGraph.js adapter', () => {
  it('a ReAct graph repeating an invalid MCP call: the server sees it once, the model reads error ToolMessages', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const tools = await loadMcpTools('chaos', chaos.client);
    const model = new ScriptedChatModel(repeatInvalid(3));
    const recorder = createMemoryRecorder();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode('tools', resilientToolNode(tools, { server: 'chaos', recorder }))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END])
      .addEdge('tools', 'agent')
      .compile();

    const result = await graph.invoke({ messages: [new HumanMessage('Weather in Atlantis?')] });

    expect(callsOf(chaos.http, 'get_weather')).toBe(1);
    expect(model.seen).toHaveLength(4);
    const answers = model.seen.slice(1).map((messages) => messages.at(-1));
    for (const answer of answers) {
      expect(answer).toBeInstanceOf(ToolMessage);
      const message = answer as ToolMessage;
      expect(message.status).toBe('error');
      expect(message.content).toMatch(
        /^Tool call 'get_weather' failed with a non-retryable error \(invalid_params\): .*Invalid city/,
      );
      expect(message.content).toMatch(/calling it again with the same arguments cannot succeed/);
      expect(message.artifact[CLASSIFICATION_META_KEY]).toMatchObject({
        class: 'non_retryable',
        type: 'invalid_params',
      });
    }
    expect(answers.map((m) => (m as ToolMessage).artifact.repeat)).toEqual([false, true, true]);
    expect(recorder.ofType('model_retry_avoided')).toHaveLength(2);
    expect(String(result.messages.at(-1)?.content)).toBe('I could not find the weather for Atlantis.');
  });

  it('resilientTools: any StructuredTool, its failure thrown with the sentence for the model, repeats refused', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const [weather] = resilientTools(
      (await loadMcpTools('chaos', chaos.client)).filter((t) => t.name === 'get_weather'),
      { server: 'chaos' },
    );
    expect(await weather?.invoke({ city: 'Paris' })).toMatch(/Paris/);
    for (let i = 0; i < 3; i++) {
      await expect(weather?.invoke(INVALID_CALL.args)).rejects.toMatchObject({
        name: 'ResilientToolError',
        message: expect.stringMatching(/non-retryable error \(invalid_params\)/),
        classification: { type: 'invalid_params' },
      });
    }
    expect(callsOf(chaos.http, 'get_weather')).toBe(2);
  });

  it('an unknown tool and an open breaker become error ToolMessages at once, without sleeping', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const tools = await loadMcpTools('chaos', chaos.client);
    await chaos.http.close(); // the server is gone: every call fails with a connection error
    const node = resilientToolNode(tools, {
      server: 'chaos',
      clock: createFakeClock(0),
      breakerConsecutiveFailures: 1,
      breakerBreakMs: 60_000,
      breakerJitter: 0,
    });
    const ask = (name: string, id: string) =>
      node({
        messages: [
          new AIMessage({ content: '', tool_calls: [{ id, name, args: { query: 'x' }, type: 'tool_call' }] }),
        ],
      });
    const [unknown] = (await ask('no_such_tool', 'a')).messages;
    expect(unknown?.status).toBe('error');
    expect(unknown?.content).toMatch(/^Tool 'no_such_tool' does not exist; call one of: .*search/);
    const [down] = (await ask('search', 'b')).messages;
    expect(down?.status).toBe('error');
    const [open] = (await ask('search', 'c')).messages;
    expect(open?.content).toMatch(/^Tool 'search' is unavailable: its server is failing .* after about 60 s/);
    expect(open?.artifact[CLASSIFICATION_META_KEY]).toMatchObject({
      type: 'circuit_open',
      reason: 'circuit_open',
    });
  });
});

describe('adapter options', () => {
  it('names the option in validation errors', () => {
    expect(() => resilientTools([], { negativeCacheTtlMs: Number.NaN })).toThrow(
      "resilient tools: option 'negativeCacheTtlMs' must be a finite number >= 0 (milliseconds; 0 turns the cache off), got null",
    );
    expect(() => resilientToolNode([], { idempotent: { search: 'yes' as never } })).toThrow(
      /option 'idempotent' must be a boolean, or an object of booleans by tool name/,
    );
    expect(() => resilientTools([], { negativeCacheTypes: ['typo' as never] })).toThrow(
      /option 'negativeCacheTypes'/,
    );
    expect(() => resilientTools([], { server: '' })).toThrow(/option 'server' must be a non-empty string/);
    expect(() => resilientTools([], { maxAttempts: 0 })).toThrow(/maxAttempts/);
  });
});
